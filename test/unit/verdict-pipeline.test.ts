// The rules the verdict pipeline holds in one place for live runs and replays: when a disk is
// hung, what the detectors make a round, and the exit code a run ends with.
import { describe, expect, it } from 'vitest';
import { statisticalParams } from '../../src/detectors/statistical-params.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { predictorParams } from '../../src/early-warning/predictor-params.js';
import { scenarioTrace } from '../../dev/scenarios/index.js';
import { EXIT_CRITICAL, EXIT_OK, EXIT_WARNING, exitCodeOf } from '../../src/verdict/exit-codes.js';
import { NOT_JUDGED_CODE } from '../../src/verdict/down-verdict.js';
import { VerdictPipeline, type PipelineParams, type RoundVerdict, type TickOutput } from '../../src/verdict/verdict-pipeline.js';

const score = DEFAULT_SCORE_PARAMS;
const I = score.intervalMs;

function pipeline(overrides: Partial<PipelineParams> = {}): VerdictPipeline {
  const made = new VerdictPipeline({
    score,
    statistical: statisticalParams({ failureLatencyMs: score.timeoutMs }),
    predictor: predictorParams({ timeoutMs: score.timeoutMs }),
    criticalOn: 'evict',
    hangAfterMs: 5000,
    ...overrides,
  });
  made.disks(['raft', 'kv']);
  return made;
}

/** Each disk's inspection of each tick takes `ms(disk, tick)` (null: it fails). */
type Durations = (disk: string, tick: number) => number | null;

interface Seen {
  /** Per tick, the disks hung then, and those told hung at it. */
  hung: string[][];
  told: string[][];
  storeScores: number[];
  severity: string;
  exitCode: number;
}

/**
 * A live run's stream: the ticks fire a little late on a clock of its own (the monotonic
 * clock does not start at 0), and each result comes when it arrives, after the ticks it
 * outlasted; the next inspection of a disk starts at the first tick after its result.
 */
function live(ticks: number, ms: Durations): Seen {
  const run = pipeline();
  const seen: Seen = { hung: [], told: [], storeScores: [], severity: 'ok', exitCode: 0 };
  const clock = (tick: number) => 123_456.7 + tick * I + 3;
  const arrivals: { atMs: number; tick: number; disk: string; ms: number | null }[] = [];
  // The prober's threads: one inspection in flight per disk.
  const busy = new Set<string>();
  for (let tick = 1; tick <= ticks; tick += 1) {
    for (const arrival of arrivals.filter((each) => each.atMs < clock(tick)).sort((a, b) => a.atMs - b.atMs)) {
      run.inspection(arrival);
      busy.delete(arrival.disk);
      arrivals.splice(arrivals.indexOf(arrival), 1);
    }
    const out = run.tick({ tick, atMs: clock(tick) });
    for (const disk of ['raft', 'kv']) {
      if (busy.has(disk)) continue;
      busy.add(disk);
      const took = ms(disk, tick);
      arrivals.push({ atMs: clock(tick) + (took ?? 0.5) + 0.2, tick, disk, ms: took });
    }
    observe(run, seen, out, run.devices({ tick }), clock(tick));
  }
  return finish(run, seen, clock(ticks));
}

/** A replay's stream: tick k at k x interval, each line right after its tick, its result at k x interval + its duration. */
function replayed(ticks: number, ms: Durations): Seen {
  const run = pipeline();
  const seen: Seen = { hung: [], told: [], storeScores: [], severity: 'ok', exitCode: 0 };
  const busyUntil = new Map<string, number>();
  for (let tick = 1; tick <= ticks; tick += 1) {
    const out = run.tick({ tick, atMs: tick * I });
    const round = run.devices({ tick });
    for (const disk of ['raft', 'kv']) {
      // A trace has a line for each inspection that started and came back while recording.
      if ((busyUntil.get(disk) ?? 0) > tick * I) continue;
      const took = ms(disk, tick);
      busyUntil.set(disk, tick * I + (took ?? 0));
      run.inspection({ tick, disk, ms: took, atMs: tick * I + (took ?? 0) });
    }
    observe(run, seen, out, round, tick * I);
  }
  return finish(run, seen, ticks * I);
}

function observe(run: VerdictPipeline, seen: Seen, out: TickOutput, round: RoundVerdict | null, atMs: number): void {
  seen.hung.push(['raft', 'kv'].filter((disk) => run.disk(disk, atMs)?.hung));
  seen.told.push(out.hung.map((told) => told.disk));
  if (round) seen.storeScores.push(round.storeScore);
}

function finish(run: VerdictPipeline, seen: Seen, atMs: number): Seen {
  run.checkEnd(atMs);
  return { ...seen, severity: run.verdict.severity, exitCode: run.exitCode() };
}

describe('the hang rule', () => {
  // raft's inspection of tick 5 takes 6.05 s; kv answers in 2 ms throughout.
  const hangAt5: Durations = (disk, tick) => (disk === 'raft' && tick === 5 ? 6050 : 2);

  it('finds the same hang in a live-timed stream and in a replay-timed one: from the tick its inspection has been out for --hang-after, until it came back', () => {
    const [fromLive, fromReplay] = [live(120, hangAt5), replayed(120, hangAt5)];
    expect(fromLive).toEqual(fromReplay);
    // Out from tick 5 (0.5 s): hung at tick 55 (5.5 s), back during tick 65 (6.55 s).
    const hungTicks = fromLive.hung.flatMap((disks, index) => (disks.includes('raft') ? [index + 1] : []));
    expect(hungTicks).toEqual(Array.from({ length: 11 }, (_, i) => 55 + i));
    expect(fromLive.told.flatMap((disks, index) => (disks.length > 0 ? [[index + 1, disks]] : []))).toEqual([[55, ['raft']]]);
    // WARNING, not CRITICAL: a hang is not an eviction, and the score stays under the slow threshold.
    expect(fromLive.severity).toBe('slow');
    expect(fromLive.exitCode).toBe(EXIT_WARNING);
    expect(Math.max(...fromLive.storeScores)).toBeLessThan(score.slowThreshold);
  });

  it('a disk out for less than --hang-after is never hung, live or replayed', () => {
    const short: Durations = (disk, tick) => (disk === 'raft' && tick === 5 ? 4000 : 2);
    const [fromLive, fromReplay] = [live(120, short), replayed(120, short)];
    expect(fromLive).toEqual(fromReplay);
    expect(fromLive.hung.flat()).toEqual([]);
    // Not hung; but a 4 s stall in each 12 s, a third of the ticks, would evict it: WARNING.
    expect(fromLive.exitCode).toBe(EXIT_WARNING);
    const once: Durations = (disk, tick) => (disk === 'raft' && tick === 5 ? 600 : 2);
    expect(live(120, once).exitCode).toBe(EXIT_OK);
  });

  it('a disk that never answers is hung from --hang-after on and never told twice; its score evicts at 21 s', () => {
    const never: Durations = (disk, tick) => (disk === 'raft' && tick >= 5 ? 1e9 : 2);
    const [fromLive, fromReplay] = [live(240, never), replayed(240, never)];
    expect(fromLive).toEqual(fromReplay);
    expect(fromLive.told.flat()).toEqual(['raft']);
    expect(fromLive.severity).toBe('evict');
    expect(fromLive.exitCode).toBe(EXIT_CRITICAL);
  });
});

describe('inspections in flight', () => {
  it('one per disk: an inspection that never comes back starts no other, and every tick is charged; its failure lets the next start', () => {
    const run = pipeline();
    run.disks(['raft']);
    for (let tick = 1; tick <= 30; tick += 1) run.tick({ tick, atMs: tick * I });
    expect(run.disk('raft', 30 * I)).toMatchObject({ inFlightSinceMs: I, waitingMs: 29 * I });
    expect(run.storeScore()).toBe(2);
    run.inspection({ tick: 1, disk: 'raft', ms: null, atMs: 30 * I + 5, error: 'ETIMEDOUT' });
    run.tick({ tick: 31, atMs: 31 * I });
    expect(run.disk('raft', 31 * I)?.inFlightSinceMs).toBe(31 * I);
  });

  it('a result of a later tick than the one in flight ends it: the disk is inspected again, and no tick is charged for good', () => {
    // The prober's thread skipped the tick the CLI thought it started (it was placed late).
    const run = pipeline();
    run.disks(['raft']);
    run.tick({ tick: 1, atMs: I });
    run.tick({ tick: 2, atMs: 2 * I });
    expect(run.inspection({ tick: 2, disk: 'raft', ms: 1, atMs: 2 * I + 1 })?.counted).toBe(true);
    run.tick({ tick: 3, atMs: 3 * I });
    expect(run.disk('raft', 3 * I)?.inFlightSinceMs).toBe(3 * I);
    expect(run.inspection({ tick: 3, disk: 'raft', ms: 1, atMs: 3 * I + 1 })?.counted).toBe(true);
    run.tick({ tick: 4, atMs: 4 * I });
    // Only tick 1, never answered, was charged.
    expect(run.chargedTimeouts().get('raft')).toBe(1);
  });
});

describe("check's end", () => {
  it('a disk that completed no inspection leaves nothing to call OK; one that did, and none hung, is OK', () => {
    const run = pipeline();
    for (let tick = 1; tick <= 30; tick += 1) {
      run.tick({ tick, atMs: tick * I });
      run.devices({ tick });
      run.inspection({ tick, disk: 'kv', ms: 2, atMs: tick * I + 2 });
      run.inspection({ tick, disk: 'raft', ms: null, atMs: tick * I + 1 });
    }
    expect(run.verdict.severity).toBe('ok');
    expect(run.checkEnd(30 * I)).toBe('slow');
    expect(run.exitCode()).toBe(EXIT_WARNING);
  });
});

describe('severity to exit code', () => {
  it('OK 0, WARNING 1, CRITICAL 2', () => {
    expect(exitCodeOf('ok')).toBe(EXIT_OK);
    expect(exitCodeOf('slow')).toBe(EXIT_WARNING);
    expect(exitCodeOf('evict')).toBe(EXIT_CRITICAL);
    expect([EXIT_OK, EXIT_WARNING, EXIT_CRITICAL]).toEqual([0, 1, 2]);
  });
});

describe('criticalOn', () => {
  // 12 HDD-like disks, disk4 x2 slower from minute 5: the detector confirms it, the score never notices.
  const lines = [...scenarioTrace({ kind: 'slow', seed: 7, disks: 12, media: 'hdd', factor: 2, onsetMs: 300_000, slowDisk: 3, durationMs: 600_000 })].map(
    (line) => JSON.parse(line) as { tick: number; disk?: string; ms?: number; error?: string; disks?: string[] },
  );
  const disks = lines[0]!.disks!;
  const lastTick = lines.at(-1)!.tick;

  function judge(criticalOn: 'evict' | 'any') {
    const run = pipeline({ criticalOn });
    run.disks(disks);
    const byTick = new Map<number, typeof lines>();
    for (const line of lines.slice(1)) if (line.disk !== undefined) byTick.set(line.tick, [...(byTick.get(line.tick) ?? []), line]);
    const severities: string[] = [];
    for (let tick = 1; tick <= lastTick; tick += 1) {
      run.tick({ tick, atMs: tick * I });
      const round = run.devices({ tick });
      if (round) severities.push(round.severity);
      for (const line of byTick.get(tick) ?? []) {
        const ms = line.ms ?? null;
        run.inspection({ tick, disk: line.disk!, ms, atMs: tick * I + (ms ?? 0) });
      }
    }
    return { severities, exitCode: run.exitCode(), confirmed: run.disk('disk4', lastTick * I)?.statistical, storeScore: run.storeScore() };
  }

  it('a confirmed disk makes a round WARNING by default, CRITICAL with criticalOn any; the score alone says OK', () => {
    const warned = judge('evict');
    const critical = judge('any');
    expect(warned.confirmed).toBe('confirmed');
    expect(warned.storeScore).toBeLessThan(score.slowThreshold);
    expect(warned.severities.at(-1)).toBe('slow');
    expect(warned.exitCode).toBe(EXIT_WARNING);
    expect(critical.severities.at(-1)).toBe('evict');
    expect(critical.exitCode).toBe(EXIT_CRITICAL);
    // Before the slowdown both are OK, round for round.
    const beforeOnset = 300_000 / (score.roundTicks * I);
    expect(warned.severities.slice(0, beforeOnset).every((severity) => severity === 'ok')).toBe(true);
    expect(critical.severities.slice(0, beforeOnset)).toEqual(warned.severities.slice(0, beforeOnset));
  });
});

describe('a disk that cannot be written', () => {
  function failing(code: string, ticks: number, recoverAt = Infinity): { severities: string[]; exitCode: number } {
    const run = pipeline();
    const severities: string[] = [];
    for (let tick = 1; tick <= ticks; tick += 1) {
      run.tick({ tick, atMs: tick * I });
      const round = run.devices({ tick });
      if (round) severities.push(round.severity);
      run.inspection({ tick, disk: 'kv', ms: 2, atMs: tick * I + 2 });
      const down = tick < recoverAt;
      run.inspection({ tick, disk: 'raft', ms: down ? null : 2, atMs: tick * I + 1, ...(down ? { error: code } : {}) });
    }
    return { severities, exitCode: run.exitCode() };
  }

  it.each(['EROFS', 'EIO', 'ENOSPC', 'EACCES'])('%s: CRITICAL from its first failed inspection, at a score of 2', (code) => {
    const { severities, exitCode } = failing(code, 31);
    expect(exitCode).toBe(EXIT_CRITICAL);
    expect(severities).toEqual(['evict']);
  });

  it('another error (a directory deleted: ENOENT) is left to the score', () => {
    expect(failing('ENOENT', 31)).toEqual({ severities: ['ok'], exitCode: EXIT_OK });
  });

  it('on a read-only bind (EROBIND) it is not judged: WARNING, never CRITICAL, its failures not counted as timeouts', () => {
    // 10 rounds of failures: ENOENT's, counted as timeouts, take the score to the eviction threshold.
    expect(failing('ENOENT', 301).exitCode).toBe(EXIT_CRITICAL);
    expect(failing(NOT_JUDGED_CODE, 301)).toEqual({ severities: Array(10).fill('ok'), exitCode: EXIT_WARNING });
  });

  it('once it is written again, its rounds are no longer CRITICAL (the run stays so)', () => {
    const { severities, exitCode } = failing('EROFS', 91, 31);
    expect(severities).toEqual(['evict', 'ok', 'ok']);
    expect(exitCode).toBe(EXIT_CRITICAL);
  });
});

describe('a check too short to reach a threshold', () => {
  /** raft times out on the ticks `slow` says, kv never; a check of `ticks` ticks. */
  function check(ticks: number, slow: (tick: number) => boolean) {
    const run = pipeline();
    for (let tick = 1; tick <= ticks; tick += 1) {
      run.tick({ tick, atMs: tick * I });
      run.devices({ tick });
      run.inspection({ tick, disk: 'kv', ms: 2, atMs: tick * I + 2 });
      const ms = slow(tick) ? 150 : 2;
      run.inspection({ tick, disk: 'raft', ms, atMs: tick * I + ms });
    }
    const severity = run.checkEnd(ticks * I);
    return { severity, score: run.storeScore(), raft: run.disk('raft', ticks * I)! };
  }

  it('a disk timing out in 40% of ticks in each of 3 rounds (10 s) is WARNING at score 8: a continuous run would evict it 12 s on', () => {
    const { severity, score, raft } = check(100, (tick) => tick % 5 < 2);
    expect(score).toBe(8);
    expect(raft.evictionInMs).toBe(12_000);
    expect(severity).toBe('slow');
  });

  it('one round of the three under the ratio threshold, the rounds together above it: WARNING all the same', () => {
    const { severity, score, raft } = check(100, (tick) => (tick < 60 ? tick % 5 < 2 : tick === 70 || tick === 80));
    expect(score).toBeLessThan(8);
    expect(raft.evictionInMs).not.toBeNull();
    expect(severity).toBe('slow');
  });

  it('a stray timeout in each round, 3% of ticks: OK, left to the score', () => {
    const { severity, raft } = check(100, (tick) => tick % 30 === 10);
    expect(raft.evictionInMs).toBeNull();
    expect(severity).toBe('ok');
  });

  it('a check that closed no round has no such evidence', () => {
    expect(check(20, () => true).severity).toBe('ok');
  });

  it('the statistical detector has judged nothing in 10 s: no verdict, warming up', () => {
    expect(check(100, () => false).raft.statisticalJudged).toBe(false);
  });
});

describe('a path whose filesystem changed', () => {
  it('another filesystem mounted onto an inspected path makes the run WARNING, and its rounds', () => {
    const run = pipeline();
    const severities: string[] = [];
    for (let tick = 1; tick <= 60; tick += 1) {
      if (tick === 20) run.restart('kv');
      run.tick({ tick, atMs: tick * I });
      const round = run.devices({ tick });
      if (round) severities.push(round.severity);
      for (const disk of ['raft', 'kv']) run.inspection({ tick, disk, ms: 2, atMs: tick * I + 2 });
    }
    expect(severities).toEqual(['slow', 'slow']);
    expect(run.exitCode()).toBe(EXIT_WARNING);
    expect(run.disk('kv', 60 * I)!.filesystemChanged).toBe(true);
    expect(run.disk('raft', 60 * I)!.filesystemChanged).toBe(false);
  });
});
