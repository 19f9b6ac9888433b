// Why a slow disk was slow, from its inspections' wait for a CPU and the devices under it: a
// starved prober, others' load, a slow device of its own, a slow device it shares with another
// slow disk, or unknown; never a device on less than a
// device seen serving slowly.
import { describe, expect, it } from 'vitest';
import type { DeviceFigures } from '../../src/kernel/device-counters.js';
import { deviceRound } from '../helpers/device-round.js';
import { SlowCauses } from '../../src/verdict/slow-cause.js';

const NONE = new Set<string>();

/** Two disks, each on a loop device of its own, whose images are on one backing disk. */
function twoDisks(loopA: Partial<DeviceFigures> = {}, loopB: Partial<DeviceFigures> = {}, backing: Partial<DeviceFigures> = {}): DeviceFigures[] {
  return [deviceRound('loop0', ['a'], loopA), deviceRound('loop1', ['b'], loopB), deviceRound('vda', ['a', 'b'], { role: 'backing', writeIops: 80, ...backing })];
}

/** Causes that have seen `healthy` rounds of the usual figures. */
function learned(healthy = 5): SlowCauses {
  const causes = new SlowCauses();
  for (let round = 0; round < healthy; round += 1) expect(causes.round(twoDisks(), NONE)).toEqual(new Map());
  return causes;
}

describe('the cause of a slow disk', () => {
  it("others' I/O on its device: load, though each request takes longer", () => {
    const causes = learned();
    expect(causes.round(twoDisks({ writeIops: 1000, writeLatencyMs: 6, averageQueueDepth: 7, utilisation: 0.97 }), new Set(['a']))).toEqual(new Map([['a', 'load']]));
  });

  it('a load that set in some rounds before the disk was found slow: still load', () => {
    const causes = learned(10);
    const busy = twoDisks({ writeIops: 8000, writeLatencyMs: 0.7, utilisation: 0.96 });
    // A detector doubts after seconds: these rounds were not slow yet, and counted as healthy.
    for (let round = 0; round < 5; round += 1) expect(causes.round(busy, NONE)).toEqual(new Map());
    expect(causes.round(busy, new Set(['a']))).toEqual(new Map([['a', 'load']]));
  });

  it('an idle disk on a backing disk that a neighbour saturates: load, not device', () => {
    const causes = learned();
    const round = twoDisks({ writeIops: 1000, writeLatencyMs: 6 }, { writeLatencyMs: 5 }, { writeIops: 1100, writeLatencyMs: 6 });
    expect(causes.round(round, new Set(['a', 'b']))).toEqual(new Map([['a', 'load'], ['b', 'load']]));
  });

  it('its own device serving slowly at a third of its usual rate: device', () => {
    const causes = learned();
    expect(causes.round(twoDisks({ writeIops: 13, flushIops: 3, writeLatencyMs: 200, flushLatencyMs: 250, utilisation: 1 }), new Set(['a']))).toEqual(new Map([['a', 'device']]));
  });

  it('its device stalled, requests waiting and none completed: device, with or without a baseline', () => {
    const stalled = { writeIops: 0, flushIops: 0, writeLatencyMs: null, flushLatencyMs: null, inFlight: 1, utilisation: 1, stalled: true };
    expect(new SlowCauses().round(twoDisks(stalled), new Set(['a']))).toEqual(new Map([['a', 'device']]));
    expect(learned().round(twoDisks(stalled), new Set(['a']))).toEqual(new Map([['a', 'device']]));
  });

  it('two disks slow together, each device slow, through the backing disk they share: shared', () => {
    const causes = learned();
    const slowLoop = { writeIops: 20, writeLatencyMs: 150, flushLatencyMs: 200 };
    expect(causes.round(twoDisks(slowLoop, slowLoop), new Set(['a', 'b']))).toEqual(new Map([['a', 'shared'], ['b', 'shared']]));
  });

  it("a limit of slowdisk's cgroup on its own device used to its edge: throttle, though the device serves fast", () => {
    const causes = learned();
    // Held above the queue: fewer requests, each as fast as ever.
    expect(causes.round(twoDisks({ writeIops: 19, flushIops: 5, limitUse: 0.95 }), new Set(['a']))).toEqual(new Map([['a', 'throttle']]));
    // With no baseline yet too: the limit is read, not inferred.
    expect(new SlowCauses().round(twoDisks({ limitUse: 1 }), new Set(['a']))).toEqual(new Map([['a', 'throttle']]));
  });

  it('a limit still set that let few requests through after a round at its edge: still throttle', () => {
    const causes = learned();
    expect(causes.round(twoDisks({ writeIops: 4, limitUse: 0.8 }), new Set(['a'])).get('a')).toBe('throttle');
    expect(causes.round(twoDisks({ writeIops: 0, limitUse: 0 }), new Set(['a'])).get('a')).toBe('throttle');
    // Two rounds under half of it: no longer.
    expect(causes.round(twoDisks({ writeIops: 1, limitUse: 0.2 }), new Set(['a'])).get('a')).toBe('unknown');
  });

  it('a limit not used to its edge, or one on the device under it (the loop worker\'s, not slowdisk\'s I/O): not throttle', () => {
    const causes = learned();
    expect(causes.round(twoDisks({ writeIops: 19, flushIops: 5, limitUse: 0.3 }), new Set(['a']))).toEqual(new Map([['a', 'unknown']]));
    const slowLoop = { writeIops: 13, writeLatencyMs: 200, flushLatencyMs: 250 };
    expect(causes.round(twoDisks(slowLoop, {}, { limitUse: 1 }), new Set(['a']))).toEqual(new Map([['a', 'device']]));
  });

  it('devices as usual and no limit (a cloud volume at its cap, a journal): unknown', () => {
    const causes = learned();
    expect(causes.round(twoDisks({ writeIops: 19, flushIops: 5 }), new Set(['a']))).toEqual(new Map([['a', 'unknown']]));
    expect(causes.round(twoDisks(), new Set(['b']))).toEqual(new Map([['b', 'unknown']]));
  });

  it('a device with too few healthy rounds to compare with: unknown, not device', () => {
    const causes = learned(2);
    expect(causes.round(twoDisks({ writeLatencyMs: 200, writeIops: 10 }), new Set(['a']))).toEqual(new Map([['a', 'unknown']]));
  });

  it('most of its ticks past the timeout only by its waits for a CPU: cpu, whatever the devices show', () => {
    const causes = learned();
    const starved = new Map([['a', { count: 4, ms: 950, waitMs: 920, slowForCpu: 3, slowOfItself: 1 }]]);
    expect(causes.round(twoDisks(), new Set(['a']), starved)).toEqual(new Map([['a', 'cpu']]));
    // A starved machine starves the loop device's worker too: its device looks slow.
    expect(causes.round(twoDisks({ writeIops: 13, writeLatencyMs: 200 }), new Set(['a']), starved)).toEqual(new Map([['a', 'cpu']]));
    // Without the devices' figures (a trace recorded without them) the wait alone tells it.
    expect(new SlowCauses().round([], new Set(['a']), starved)).toEqual(new Map([['a', 'cpu']]));
  });

  it('ticks past the timeout of themselves as many as by a wait for a CPU: not cpu', () => {
    const causes = learned();
    const slowLoop = { writeIops: 13, writeLatencyMs: 200, flushLatencyMs: 250 };
    expect(causes.round(twoDisks(slowLoop), new Set(['a']), new Map([['a', { count: 10, ms: 1500, waitMs: 300, slowForCpu: 2, slowOfItself: 2 }]]))).toEqual(new Map([['a', 'device']]));
    // A timeout no inspection can beat: every tick is past it of itself, whatever the waits.
    expect(causes.round(twoDisks(), new Set(['a']), new Map([['a', { count: 5, ms: 1.5, waitMs: 1, slowForCpu: 0, slowOfItself: 5 }]]))).toEqual(new Map([['a', 'unknown']]));
  });

  it('no tick past the timeout (a detector doubts): cpu when half of the time, and 2 ms, went waiting', () => {
    const causes = learned();
    const doubted = (ms: number, waitMs: number) => new Map([['a', { count: 10, ms, waitMs, slowForCpu: 0, slowOfItself: 0 }]]);
    expect(causes.round(twoDisks(), new Set(['a']), doubted(60, 45))).toEqual(new Map([['a', 'cpu']]));
    expect(causes.round(twoDisks(), new Set(['a']), doubted(60, 20))).toEqual(new Map([['a', 'unknown']]));
    expect(causes.round(twoDisks(), new Set(['a']), doubted(1.5, 1.2))).toEqual(new Map([['a', 'unknown']]));
  });

  it('learns from the devices of disks not slow in the round only', () => {
    const causes = learned();
    // Ten rounds of a slow loop0 under a slow disk a: its baseline stays the healthy one.
    const slowLoop = { writeIops: 13, writeLatencyMs: 200, flushLatencyMs: 250 };
    for (let round = 0; round < 10; round += 1) expect(causes.round(twoDisks(slowLoop), new Set(['a'])).get('a')).toBe('device');
  });
});
