// A block device's figures over a round, as src/kernel/device-counters.ts gives them: a quiet
// healthy device unless told otherwise, for the tests of what a round's devices make of a disk.
import type { DeviceFigures } from '../../src/kernel/device-counters.js';

/** A device's round: 40 writes/s at 0.5 ms and 10 flushes/s at 1 ms unless told otherwise. */
export function deviceRound(name: string, disks: string[], more: Partial<DeviceFigures> = {}): DeviceFigures {
  return {
    device: name,
    name,
    disks,
    role: 'filesystem',
    readIops: 0,
    writeIops: 40,
    flushIops: 10,
    readLatencyMs: null,
    writeLatencyMs: 0.5,
    flushLatencyMs: 1,
    inFlight: 0,
    averageQueueDepth: 0.05,
    utilisation: 0.02,
    stalled: false,
    limitUse: null,
    ...more,
  };
}
