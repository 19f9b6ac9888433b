// What a block device did over one round, from two /proc/diskstats snapshots: the figures
// iostat derives (iostats.rst), and a stall flag that shows a device that completes nothing
// while requests wait on it, before any inspection of slowdisk's has timed out.
import type { DiskCounters, IoCounters } from './diskstats.js';

export const SECTOR_BYTES = 512;

/** One device over one round. Latencies are null when nothing of that kind completed in it. */
export interface DeviceRates {
  device: string;
  name: string;
  elapsedMs: number;
  readIops: number;
  writeIops: number;
  /** null on a kernel older than 5.5, which does not count flushes. */
  flushIops: number | null;
  /**
   * Mean time from queueing to completion of the requests that completed in the round (a
   * request that took longer than the round is counted whole, in the round it completed).
   */
  readLatencyMs: number | null;
  writeLatencyMs: number | null;
  flushLatencyMs: number | null;
  readBytesPerSecond: number;
  writeBytesPerSecond: number;
  /** Requests in flight at the end of the round: the queue depth at that moment. */
  inFlight: number;
  /** Share of the round with at least one request in flight, 0 to 1 (iostat's %util / 100). */
  utilisation: number;
  /** Mean number of requests in flight over the round (iostat's aqu-sz), from the requests that completed in it. */
  averageQueueDepth: number;
  /** Requests were waiting on the device and none completed in the whole round. */
  stalled: boolean;
}

// The kernel prints every ms field and io_ticks as a 32-bit unsigned int: they wrap after
// 2^32 ms (49.7 days) of time summed, which a busy device reaches in production.
const MS_FIELD_MODULUS = 2 ** 32;

// io_ticks cannot grow faster than the clock; this much slack covers jiffy rounding and
// the time between reading the clock and reading the counters.
const IO_TICKS_SLACK_MS = 1000;

// A device that had something in flight for this share of the round without completing
// anything, though it was idle when the round began, has stalled since early in the round.
const STALLED_BUSY_SHARE = 0.9;

function msDelta(before: number, after: number): number {
  return after >= before ? after - before : after + MS_FIELD_MODULUS - before;
}

/** Requests of one kind completed in the round, and the ms they took. */
type Done = Pick<IoCounters, 'completed' | 'ms'>;

function done(before: Done, after: Done): Done {
  return { completed: after.completed - before.completed, ms: msDelta(before.ms, after.ms) };
}

const meanLatency = ({ completed, ms }: Done) => (completed === 0 ? null : ms / completed);

const countsOf = ({ completed, merged, sectors }: IoCounters) => [completed, merged, sectors];

function allCounts(counters: DiskCounters): number[] {
  const { reads, writes, discards, flushes } = counters;
  return [...countsOf(reads), ...countsOf(writes), ...(discards ? countsOf(discards) : []), ...(flushes ? [flushes.completed] : [])];
}

/**
 * Whether the counters began again between the snapshots (the device was removed and made
 * again, as a loop device can be). Request and sector counts are unsigned longs, which on a
 * 64-bit kernel do not wrap in a device's lifetime: one that went back means a restart; so
 * does io_ticks having "wrapped" by more than the round could hold.
 */
function restarted(before: DiskCounters, after: DiskCounters, elapsedMs: number): boolean {
  if (before.name !== after.name) return true;
  const was = allCounts(before);
  if (allCounts(after).some((count, index) => count < was[index])) return true;
  return msDelta(before.ioTicksMs, after.ioTicksMs) > elapsedMs + IO_TICKS_SLACK_MS;
}

function completions(before: DiskCounters, after: DiskCounters): number {
  const total = ({ reads, writes, discards, flushes }: DiskCounters) =>
    reads.completed + writes.completed + (discards?.completed ?? 0) + (flushes?.completed ?? 0);
  return total(after) - total(before);
}

/**
 * A stall: requests in flight and none completed for the whole round. Those in flight at
 * both ends have waited at least the round; or, when the device was idle as the round
 * began, it has been busy nearly all of it with the requests still there at its end.
 */
function isStalled(before: DiskCounters, after: DiskCounters, busyShare: number): boolean {
  if (after.inFlight === 0 || completions(before, after) > 0) return false;
  return before.inFlight > 0 || busyShare >= STALLED_BUSY_SHARE;
}

/**
 * The device's rates between two snapshots taken elapsedMs apart; null when its counters
 * restarted in between (nothing can be said about that round).
 */
export function deviceRates(before: DiskCounters, after: DiskCounters, elapsedMs: number): DeviceRates | null {
  if (elapsedMs <= 0) throw new RangeError(`elapsedMs must be positive, got ${elapsedMs}`);
  if (restarted(before, after, elapsedMs)) return null;
  const perSecond = (count: number) => (count * 1000) / elapsedMs;
  const reads = done(before.reads, after.reads);
  const writes = done(before.writes, after.writes);
  const flushes = before.flushes && after.flushes ? done(before.flushes, after.flushes) : null;
  const busyShare = msDelta(before.ioTicksMs, after.ioTicksMs) / elapsedMs;
  return {
    device: after.device,
    name: after.name,
    elapsedMs,
    readIops: perSecond(reads.completed),
    writeIops: perSecond(writes.completed),
    flushIops: flushes === null ? null : perSecond(flushes.completed),
    readLatencyMs: meanLatency(reads),
    writeLatencyMs: meanLatency(writes),
    flushLatencyMs: flushes === null ? null : meanLatency(flushes),
    readBytesPerSecond: perSecond((after.reads.sectors - before.reads.sectors) * SECTOR_BYTES),
    writeBytesPerSecond: perSecond((after.writes.sectors - before.writes.sectors) * SECTOR_BYTES),
    inFlight: after.inFlight,
    // io_ticks is kept in jiffies: a round can read a few ms over its length.
    utilisation: Math.min(1, busyShare),
    averageQueueDepth: msDelta(before.timeInQueueMs, after.timeInQueueMs) / elapsedMs,
    stalled: isStalled(before, after, busyShare),
  };
}
