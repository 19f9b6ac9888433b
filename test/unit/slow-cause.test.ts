// Why a slow disk was slow, from the devices under it: others' load, a slow device of its own,
// a slow device it shares with another slow disk, or unknown; never a device on less than a
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

  it('devices as usual (a limit that holds requests above them, a starved CPU): unknown', () => {
    const causes = learned();
    // Throttled above the queue: fewer requests, each as fast as ever.
    expect(causes.round(twoDisks({ writeIops: 19, flushIops: 5 }), new Set(['a']))).toEqual(new Map([['a', 'unknown']]));
    expect(causes.round(twoDisks(), new Set(['b']))).toEqual(new Map([['b', 'unknown']]));
  });

  it('a device with too few healthy rounds to compare with: unknown, not device', () => {
    const causes = learned(2);
    expect(causes.round(twoDisks({ writeLatencyMs: 200, writeIops: 10 }), new Set(['a']))).toEqual(new Map([['a', 'unknown']]));
  });

  it('learns from the devices of disks not slow in the round only', () => {
    const causes = learned();
    // Ten rounds of a slow loop0 under a slow disk a: its baseline stays the healthy one.
    const slowLoop = { writeIops: 13, writeLatencyMs: 200, flushLatencyMs: 250 };
    for (let round = 0; round < 10; round += 1) expect(causes.round(twoDisks(slowLoop), new Set(['a'])).get('a')).toBe('device');
  });
});
