import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS, type ScoreParams } from '../../src/score/score-params.js';
import { msToReach, projectedMsToReach, roundsToReach, SlowScore, updatedScore } from '../../src/score/slow-score.js';
import { reportedScore, severityOf, storeScore } from '../../src/score/store-score.js';
import { RunVerdict } from '../../src/verdict/run-verdict.js';
import { StoreTicks } from '../../src/score/store-ticks.js';
import { InFlight } from '../../src/verdict/in-flight.js';

const params = (overrides: Partial<ScoreParams> = {}): ScoreParams => ({ ...DEFAULT_SCORE_PARAMS, ...overrides });

/** Sets the round's counters and updates after `elapsedMs`, as TiKV's own unit tests do. */
function step(score: SlowScore, timeouts: number, total: number, elapsedMs: number): number {
  score.timeouts = timeouts;
  score.total = total;
  score.update(score.lastUpdateMs + elapsedMs);
  return score.value;
}

describe("the update rule (TiKV's unit-test vectors)", () => {
  it('threshold 500 ms, θ 0.1, min TTR 300 s', () => {
    const score = new SlowScore(params({ timeoutMs: 500, intervalMs: 500 }), 0);
    expect(step(score, 5, 100, 10_000)).toBe(1.5);
    expect(step(score, 10, 100, 10_000)).toBe(3.0);
    expect(step(score, 20, 100, 10_000)).toBe(6.0);
    expect(step(score, 100, 100, 10_000)).toBe(12.0);
    expect(step(score, 11, 100, 10_000)).toBe(24.0);
    expect(step(score, 0, 100, 15_000)).toBe(19.0);
    expect(step(score, 0, 100, 57_000)).toBe(1.0);
  });

  it('θ 0.6 and 10 round ticks', () => {
    const score = new SlowScore(params({ ratioThreshold: 0.6, roundTicks: 10 }), 0);
    expect(step(score, 1, 10, 10_000)).toBe(1 * (1 + 0.1 / 0.6));
    expect(step(score, 2, 10, 10_000)).toBe(1 * (1 + 0.1 / 0.6) * (1 + 0.2 / 0.6));
    expect(step(score, 0, 100, 57_000)).toBe(1.0);
    expect(step(score, 3, 10, 10_000)).toBe(1.5);
    expect(step(score, 6, 10, 10_000)).toBe(3.0);
    expect(step(score, 10, 10, 10_000)).toBe(6.0);
  });

  it('never exceeds 100 and never falls below 1', () => {
    const p = params();
    expect(updatedScore(64, 30, 30, 3000, p)).toBe(100);
    expect(updatedScore(1.2, 0, 30, 3000, p)).toBe(1);
  });

  it('truncates the elapsed time to whole milliseconds', () => {
    expect(updatedScore(50, 0, 30, 3000.9, params())).toBe(50 - 1);
  });
});

/**
 * A probe on a virtual clock: the inspection started at tick k takes durationOf(k) ms (null:
 * it never returns) and its result arrives at k * interval + ms, before any later tick.
 */
/** A prober on a virtual clock: one inspection in flight per disk, by the pipeline's rule (src/verdict/in-flight.ts). */
class VirtualProbe {
  private pending: { name: string; tickId: number; ms: number; at: number }[] = [];
  private readonly inFlight = new Map<string, InFlight>();
  constructor(
    readonly ticks: StoreTicks,
    private readonly p: ScoreParams,
    disks: string[],
  ) {
    for (const disk of disks) this.inFlight.set(disk, new InFlight());
  }

  run(fromTick: number, toTick: number, durationOf: (tick: number, disk: string) => number | null, onUpdate?: () => void): void {
    for (let k = fromTick; k <= toTick; k += 1) {
      const now = k * this.p.intervalMs;
      for (const result of this.pending.filter((r) => r.at <= now)) {
        this.inFlight.get(result.name)!.ended(result.tickId, result.at - result.ms, result.at);
        this.ticks.finished(result.name, result.tickId, result.ms);
      }
      this.pending = this.pending.filter((r) => r.at > now);
      const tick = this.ticks.tick(now);
      for (const [name, inFlight] of this.inFlight) {
        if (!inFlight.tick(tick.tickId, now)) continue;
        const ms = durationOf(tick.tickId, name);
        this.pending.push({ name, tickId: tick.tickId, ms: ms ?? Infinity, at: ms === null ? Infinity : now + ms });
      }
      if (tick.updated) onUpdate?.();
    }
  }
}

function probeOf(p: ScoreParams, disks: string[] = ['raft']): VirtualProbe {
  const ticks = new StoreTicks(p);
  ticks.setInspected(disks, 0);
  return new VirtualProbe(ticks, p, disks);
}

describe('ticks and rounds', () => {
  it('a full hang doubles the score every round and reaches 100 at tick 210 (21 s), no sooner', () => {
    const p = params();
    const ticks = new StoreTicks(p);
    ticks.setInspected(['raft'], 0);
    const seen: number[] = [];
    for (let k = 1; k <= 210; k += 1) {
      const tick = ticks.tick(k * p.intervalMs);
      if (tick.updated) seen.push(ticks.storeScore());
    }
    expect(seen).toEqual([2, 4, 8, 16, 32, 64, 100]);
    expect(severityOf(seen[5], p)).toBe('ok');
    expect(severityOf(seen[6], p)).toBe('evict');
  });

  it('the first round holds ticks 1..29: a timeout at tick 29 counts in round 1, at tick 30 in round 2', () => {
    const p = params();
    const early = probeOf(p);
    early.run(1, 30, (tick) => (tick === 29 ? 150 : 1));
    // tick 29's inspection misses its tick: 1 timeout of 29 samples
    expect(early.ticks.storeScore()).toBe(1 * (1 + 1 / 29 / 0.1));

    const late = probeOf(p);
    late.run(1, 30, (tick) => (tick === 30 ? 150 : 1));
    expect(late.ticks.storeScore()).toBe(1);
  });

  it('a round with 5 % of its inspections over the timeout multiplies the score by 1.5', () => {
    // 40-tick rounds, so that round 2 (ticks 40..79) holds 40 samples and 2 timeouts are 5 %.
    const p = params({ roundTicks: 40, timeoutMs: 50 });
    const probe = probeOf(p);
    probe.run(1, 40, () => 1);
    expect(probe.ticks.storeScore()).toBe(1);
    probe.run(41, 80, (tick) => (tick === 50 || tick === 60 ? 70 : 1));
    expect(probe.ticks.storeScore()).toBe(1.5);
  });

  it('an inspection that spans ticks charges each tick it spans, once, and its late result is not counted', () => {
    const p = params();
    const probe = probeOf(p);
    // tick 5's inspection takes 150 ms: ticks 5 and 6 are timeouts (no second inspection starts at 6).
    probe.run(1, 30, (tick) => (tick === 5 ? 150 : 1));
    expect(probe.ticks.storeScore()).toBe(1 * (1 + 2 / 29 / 0.1));
    expect(probe.ticks.finished('raft', 5, 150)).toBe(false);
  });

  it('an inspection that never comes back: every tick is charged, and its failure charges none twice', () => {
    const p = params();
    const ticks = new StoreTicks(p);
    ticks.setInspected(['raft'], 0);
    for (let k = 1; k <= 29; k += 1) ticks.tick(k * 100);
    expect(ticks.tick(3000).updated).toBe(true);
    expect(ticks.storeScore()).toBe(2);
    expect(ticks.chargedTimeouts().get('raft')).toBe(29);
  });

  it('a full hang reaches 100 at tick 210 (21 s), then recovers by exactly 1.0 per 3 s round to exactly 1', () => {
    const p = params();
    const probe = probeOf(p);
    const scores: number[] = [];
    // The inspection of tick 1 hangs for 21.05 s; every later one takes 1 ms.
    probe.run(1, 210 + 30 * 101, (tick) => (tick === 1 ? 21_050 : 1), () => scores.push(probe.ticks.storeScore()));
    expect(scores.slice(0, 7)).toEqual([2, 4, 8, 16, 32, 64, 100]);
    // Round 8 (ticks 210..239) still holds the hang's last two ticks.
    expect(scores[7]).toBe(100);
    const recovery = scores.slice(8);
    expect(recovery.slice(0, 3)).toEqual([99, 98, 97]);
    expect(recovery.indexOf(1)).toBe(98);
    expect(recovery.every((score, i) => score === Math.max(1, 99 - i))).toBe(true);
  });

  it('scores each disk on its own; the store takes the worst', () => {
    const p = params();
    const probe = probeOf(p, ['raft', 'kv']);
    // kv hangs from tick 1 on; raft stays fast.
    probe.run(1, 60, (_tick, disk) => (disk === 'kv' ? null : 1));
    expect(probe.ticks.scores()).toEqual(new Map([['raft', 1], ['kv', 4]]));
    expect(probe.ticks.storeScore()).toBe(4);
  });
});

describe('the store', () => {
  it('takes the maximum over disks, at least 1, and reports its integer part', () => {
    expect(storeScore([])).toBe(1);
    expect(storeScore([1.5, 99.9, 3])).toBe(99.9);
    expect(reportedScore(99.9)).toBe(99);
    expect(severityOf(99.9, params())).toBe('slow');
    expect(severityOf(79.99, params())).toBe('ok');
  });

  it('a run is as bad as its worst round', () => {
    const verdict = new RunVerdict(params());
    verdict.observe(85);
    verdict.observe(1);
    expect(verdict.severity).toBe('slow');
    expect(verdict.maxReported).toBe(85);
  });
});

describe('ticks lost to a name race (the probe file taken: no inspection made)', () => {
  it('are neither counted nor charged, and a round of them leaves a slow score where it was', () => {
    const ticks = new StoreTicks(params({ roundTicks: 10 }));
    ticks.setInspected(['kv'], 0);
    // A first round of timeouts (ticks 1 to 9): the score doubles.
    for (let tick = 1; tick <= 10; tick += 1) ticks.tick(tick * 100);
    const slow = ticks.scoreOf('kv')!;
    expect(slow).toBe(2);
    ticks.voided('kv', 10);
    // Then every tick lost: no charge, and no clean round's fall either.
    for (let tick = 11; tick <= 40; tick += 1) {
      ticks.tick(tick * 100);
      ticks.voided('kv', tick);
    }
    ticks.tick(4100);
    expect(ticks.scoreOf('kv')).toBe(slow);
    expect(ticks.chargedTimeouts().get('kv')).toBe(9);
  });
});

describe('how long the score takes to reach a threshold', () => {
  it('at TiKV defaults: 7 rounds of 3 s to eviction (1, 2, 4 ... 64, 100), as a disk timing out throughout does', () => {
    expect(roundsToReach(100)).toBe(7);
    expect(msToReach(params(), 100)).toBe(21_000);
    // The slow threshold too: 64 is under 80.
    expect(msToReach(params(), 80)).toBe(21_000);
    const score = new SlowScore(params(), 0);
    let rounds = 0;
    while (reportedScore(score.value) < 100) step(score, 30, 30, 3000), (rounds += 1);
    expect(rounds).toBe(7);
  });

  it('from a score already risen, and at other parameters', () => {
    expect(msToReach(params(), 100, 8)).toBe(12_000);
    expect(msToReach(params(), 100, 100)).toBe(0);
    expect(msToReach(params({ intervalMs: 20, roundTicks: 10 }), 100)).toBe(1400);
    expect(roundsToReach(4)).toBe(2);
  });

  it('projects the rounds seen, repeated: to eviction when they raise the score, never when a cycle of them does not', () => {
    const round = (timeouts: number) => ({ timeouts, total: 30, elapsedMs: 3000 });
    const p = params();
    // Doubling every round from 8: 16, 32, 64, 128 -> 100.
    expect(projectedMsToReach(8, [round(3), round(3), round(30)], 100, p)).toBe(12_000);
    // x2, x2, x1.67, x2 ...: from 6.67 to 100 in 5 rounds.
    expect(projectedMsToReach(6.67, [round(12), round(12), round(2)], 100, p)).toBe(15_000);
    // One timeout, then clean rounds that bring the score back to 1: never.
    expect(projectedMsToReach(1.33, [round(1), round(0), round(0)], 100, p)).toBeNull();
    expect(projectedMsToReach(1, [], 100, p)).toBeNull();
  });
});
