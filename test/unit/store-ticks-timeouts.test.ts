// The per-disk count of ticks charged as timeouts: what slowdisk_inspection_timeouts_total exports.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS, type ScoreParams } from '../../src/score/score-params.js';
import { StoreTicks } from '../../src/score/store-ticks.js';

const params = (overrides: Partial<ScoreParams> = {}): ScoreParams => ({ ...DEFAULT_SCORE_PARAMS, ...overrides });

function storeOf(p: ScoreParams, disks: string[]): StoreTicks {
  const ticks = new StoreTicks(p);
  ticks.setInspected(disks, 0);
  return ticks;
}

describe('charged timeouts', () => {
  it('a hung inspection charges every tick it spans, as the score does', () => {
    const p = params();
    const ticks = storeOf(p, ['raft', 'kv']);
    for (let k = 1; k <= 210; k += 1) {
      const tick = ticks.tick(k * p.intervalMs);
      // kv answers at once; raft's inspection of tick 1 never comes back.
      ticks.finished('kv', tick.tickId, 1);
    }
    expect(ticks.storeScore()).toBe(100);
    // Ticks 1..209 are charged at ticks 2..210; tick 210 is still open.
    expect(ticks.chargedTimeouts()).toEqual(new Map([['raft', 209]]));
  });

  it('counts an inspection at or over the timeout that made its tick, and a failed one, once each', () => {
    const p = params({ timeoutMs: 50 });
    const ticks = storeOf(p, ['raft']);
    const durations: Record<number, number> = { 3: 50, 4: 70, 5: 49.9 };
    for (let k = 1; k <= 10; k += 1) {
      const tick = ticks.tick(k * p.intervalMs);
      // Tick 7's inspection fails: no result.
      if (k !== 7) ticks.finished('raft', tick.tickId, durations[k] ?? 1);
    }
    // Ticks 3 and 4 over the timeout, tick 7 failed (charged at tick 8).
    expect(ticks.chargedTimeouts().get('raft')).toBe(3);
    // A result for a tick already charged is not counted again.
    expect(ticks.finished('raft', 4, 70)).toBe(false);
    expect(ticks.chargedTimeouts().get('raft')).toBe(3);
  });

  it('never goes back: a disk that restarts from score 1, or leaves, keeps its count', () => {
    const p = params();
    const ticks = storeOf(p, ['raft']);
    for (let k = 1; k <= 5; k += 1) ticks.tick(k * p.intervalMs);
    expect(ticks.chargedTimeouts().get('raft')).toBe(4);
    ticks.restart('raft', 500);
    expect(ticks.chargedTimeouts().get('raft')).toBe(4);
    ticks.setInspected([], 500);
    ticks.tick(600);
    expect(ticks.chargedTimeouts().get('raft')).toBe(4);
  });
});
