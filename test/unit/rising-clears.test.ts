// A disk is rising, and its estimate shown, only while its recent rounds still say so: after a
// freeze is thawed the score falls, and `status` must stop saying WARNING "rising" with an
// estimate frozen at what the freeze's rounds once projected.
import { describe, expect, it } from 'vitest';
import { predictorParams } from '../../src/early-warning/predictor-params.js';
import type { DiskStatus } from '../../src/live/session-events.js';
import { verdictNotes } from '../../src/formats/verdict-notes.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { reportedScore } from '../../src/score/store-score.js';
import { statisticalParams } from '../../src/detectors/statistical-params.js';
import { currentSeverity } from '../../src/verdict/current-verdict.js';
import { VerdictPipeline } from '../../src/verdict/verdict-pipeline.js';

const score = DEFAULT_SCORE_PARAMS;
const I = score.intervalMs;

/** A live run's verdict pipeline at the default parameters, on one disk, `kv`. */
function onOneDisk(): VerdictPipeline {
  const run = new VerdictPipeline({
    score,
    statistical: statisticalParams({ failureLatencyMs: score.timeoutMs }),
    predictor: predictorParams({ timeoutMs: score.timeoutMs }),
    criticalOn: 'evict',
    hangAfterMs: 5000,
  });
  run.disks(['kv']);
  return run;
}

interface Round {
  atMs: number;
  score: number;
  evictionInMs: number | null;
  notes: string;
  severity: string;
}

/** A service on one disk, `kv`: healthy, then every inspection a timeout from `freezeFromMs` for `freezeMs`, then healthy again; each round as `status` would show it. */
function service(freezeFromMs: number, freezeMs: number, untilMs: number): Round[] {
  const run = onOneDisk();
  const rounds: Round[] = [];
  for (let tick = 1; tick * I <= untilMs; tick += 1) {
    const atMs = tick * I;
    run.tick({ tick, atMs });
    const round = run.devices({ tick });
    const frozen = atMs >= freezeFromMs && atMs < freezeFromMs + freezeMs;
    const ms = frozen ? 150 : 2;
    run.inspection({ tick, disk: 'kv', ms, atMs: atMs + ms });
    if (!round) continue;
    const verdict = run.disk('kv', atMs)!;
    const disk: DiskStatus = { name: 'kv', dir: '/data/kv', inspected: true, memoryBacked: false, state: 'up', inspections: tick, errors: 0, score: verdict.score, evictionInMs: verdict.evictionInMs };
    rounds.push({
      atMs,
      score: verdict.score,
      evictionInMs: verdict.evictionInMs,
      notes: verdictNotes([disk], score),
      severity: currentSeverity(round.severity, [disk]),
    });
  }
  return rounds;
}

describe('a disk frozen for 30 s, then thawed', () => {
  const thawMs = 60_000 + 30_000;
  const rounds = service(60_000, 30_000, thawMs + 240_000);

  it('is rising while frozen, its estimate shrinking round by round as its score climbs', () => {
    const frozen = rounds.filter((round) => round.atMs > 60_000 && round.atMs <= thawMs && reportedScore(round.score) < score.evictThreshold && round.evictionInMs !== null);
    expect(frozen.map((round) => [round.score, round.notes, round.severity])).toEqual([
      [32, 'rising: kv (a continuous run would evict it in 72.0s)', 'slow'],
      [64, 'rising: kv (a continuous run would evict it in 66.0s)', 'slow'],
    ]);
  });

  it('is no longer rising from its third clean round on, while its score falls from 99 for minutes', () => {
    const thawed = rounds.filter((round) => round.atMs > thawMs);
    expect(thawed.slice(0, 2).map((round) => round.evictionInMs !== null)).toEqual([true, true]);
    const falling = thawed.slice(2);
    expect(reportedScore(falling[0]!.score)).toBe(97);
    expect(reportedScore(falling.at(-1)!.score)).toBe(20);
    for (const round of falling) {
      expect(round.evictionInMs).toBeNull();
      expect(round.notes).toBe('');
      expect(currentSeverity('ok', [{ name: 'kv', inspected: true, state: 'up', inspections: 1, evictionInMs: round.evictionInMs }])).toBe('ok');
    }
  });
});

describe('a disk timing out in 4 of 10 ticks without a pause', () => {
  it('stays rising from round to round: two clean rounds in a row do not end it', () => {
    const run = onOneDisk();
    const rising: boolean[] = [];
    // The rounds closing at ticks 120 and 150 are clean; those after time out again.
    for (let tick = 1; tick <= 210; tick += 1) {
      run.tick({ tick, atMs: tick * I });
      const round = run.devices({ tick });
      const clean = tick >= 90 && tick < 150;
      const ms = !clean && tick % 10 < 4 ? 150 : 2;
      run.inspection({ tick, disk: 'kv', ms, atMs: tick * I + ms });
      if (round) rising.push(run.disk('kv', tick * I)!.evictionInMs !== null);
    }
    expect(rising).toEqual([true, true, true, true, true, true, true]);
  });
});
