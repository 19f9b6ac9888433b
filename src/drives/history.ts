// A host's drive history, as kept between runs: the last /proc/diskstats snapshot, the
// counters of the days not over yet per drive and bucket, and the judged days. Pure: every
// function here takes the state and a snapshot or clock reading and returns or updates state;
// the reading of the kernel and of the state file live elsewhere.
//
// An interval between two snapshots is turned into what the Perseus series hold: per drive
// and per bucket (a minute), throughput in bytes/s and the mean latency of the reads and
// writes that completed, in ms. An interval that spans several buckets (the minutes between
// two cron runs) is shared among them by time, so a bucket's figures are the ratio of the
// counters' sums over the time it covers: sampled every 15 s or once in five minutes, the
// series is the same series, and the peer detector (peer-day.ts) judges it unchanged.
import { deviceRates } from '../kernel/device-rates.js';
import type { DiskCounters } from '../kernel/diskstats.js';
import { judgeDayByClass, type HostDay } from './peer-day.js';
import type { PeerParams } from './peer-params.js';
import { DayBuilder, type AlignedDay } from './aligned-series.js';
import { judgeHost, type HostVerdict } from './peer-verdict.js';
import type { DriveParams } from './drive-params.js';

export const HISTORY_VERSION = 1;

export interface DeviceSnapshot {
  /** Who the drive is (./block-disks.ts driveIdentity). */
  id: string;
  /** Its device class (./device-class.ts): it is judged against the drives of that class. */
  peerClass?: string;
  counters: DiskCounters;
}

export interface Snapshot {
  /** Wall clock, ms since the epoch. */
  timeMs: number;
  /** The kernel's boot id: counters of another boot are not comparable. null when unknown. */
  bootId: string | null;
  /** By kernel name. */
  devices: Record<string, DeviceSnapshot>;
}

/** One drive in one bucket: bytes moved, reads and writes completed, ms they took, ms of the bucket covered. */
export type BucketCounters = [bytes: number, ios: number, ms: number, coveredMs: number];

export interface DriveHistory {
  version: typeof HISTORY_VERSION;
  last: Snapshot | null;
  /** The latest kernel name of each drive id. */
  names: Record<string, string>;
  /** The device class of each drive id (absent in a history from before classes: one class). */
  classes?: Record<string, string>;
  /** Days not over yet: day (YYYY-MM-DD, UTC) → drive id → bucket of the day → counters. */
  open: Record<string, Record<string, Record<string, BucketCounters>>>;
  /** Days over, judged once, ascending. */
  judged: HostDay[];
}

export function emptyHistory(): DriveHistory {
  return { version: HISTORY_VERSION, last: null, names: {}, classes: {}, open: {}, judged: [] };
}

/** What a snapshot added: the drives whose interval was recorded, and why the others' was not. */
export interface Recorded {
  recorded: string[];
  skipped: { device: string; why: string }[];
  /** The snapshot was taken for a clock gone wrong, and recorded nothing: one line saying so. */
  clockJump?: string;
}

const DAY_MS = 86_400_000;
/**
 * A snapshot further than this past the last one is taken for a clock gone wrong (an RTC or
 * NTP step), not for time gone by: it would judge every open day at once and age out every
 * judged day. Such an interval is longer than maxIntervalMs and never recorded anyway, so a
 * host that was really off this long loses nothing but one snapshot's closing of the days.
 */
export const CLOCK_JUMP_MS = DAY_MS;
/**
 * The few days a history spans, named once each: every sample of every drive asks for the day
 * of each bucket it covers, and formatting or parsing a date each time was a third of a
 * watch's sampling. Cleared when full: a clock that wanders over many days costs only the
 * formatting.
 */
const dayNames = new Map<number, string>();
const dayStarts = new Map<string, number>();
const KNOWN_DAYS = 64;
const dayOf = (ms: number): string => {
  const number = Math.floor(ms / DAY_MS);
  let name = dayNames.get(number);
  if (name === undefined) {
    if (dayNames.size >= KNOWN_DAYS) dayNames.clear();
    name = new Date(ms).toISOString().slice(0, 10);
    dayNames.set(number, name);
  }
  return name;
};
const dayStartMs = (day: string): number => {
  let start = dayStarts.get(day);
  if (start === undefined) {
    if (dayStarts.size >= KNOWN_DAYS) dayStarts.clear();
    start = Date.parse(`${day}T00:00:00Z`);
    dayStarts.set(day, start);
  }
  return start;
};
const thousandths = (value: number): number => Math.round(value * 1000) / 1000;

/** Whether the whole interval can be compared with the previous snapshot; the reason when not. */
function intervalProblem(last: Snapshot, next: Snapshot, params: DriveParams): string | null {
  const elapsed = next.timeMs - last.timeMs;
  if (elapsed <= 0) return 'the clock went back since the last sample';
  if (last.bootId !== null && next.bootId !== null && last.bootId !== next.bootId) return 'the host rebooted since the last sample';
  if (elapsed > params.maxIntervalMs) return `${Math.round(elapsed / 60_000)} min since the last sample, more than ${Math.round(params.maxIntervalMs / 60_000)}`;
  return null;
}

/** The counters' reads and writes over the interval; null when they restarted in between. */
function usageOf(before: DiskCounters, after: DiskCounters, elapsedMs: number): { bytes: number; ios: number; ms: number } | null {
  const rates = deviceRates(before, after, elapsedMs);
  if (rates === null) return null;
  const seconds = elapsedMs / 1000;
  const reads = rates.readIops * seconds;
  const writes = rates.writeIops * seconds;
  return {
    bytes: (rates.readBytesPerSecond + rates.writeBytesPerSecond) * seconds,
    ios: reads + writes,
    ms: (rates.readLatencyMs ?? 0) * reads + (rates.writeLatencyMs ?? 0) * writes,
  };
}

/** Shares an interval's counters among the buckets it overlaps, by time. */
function spread(history: DriveHistory, id: string, fromMs: number, toMs: number, usage: { bytes: number; ios: number; ms: number }, bucketMs: number): void {
  const span = toMs - fromMs;
  // After the clock was set back, an interval may fall on a day already judged: it is not judged twice.
  const lastJudged = history.judged.length > 0 ? history.judged[history.judged.length - 1]!.day : '';
  for (let bucket = Math.floor(fromMs / bucketMs); bucket * bucketMs < toMs; bucket += 1) {
    const start = bucket * bucketMs;
    const covered = Math.min(toMs, start + bucketMs) - Math.max(fromMs, start);
    if (covered <= 0) continue;
    const share = covered / span;
    const day = dayOf(start);
    if (day <= lastJudged) continue;
    const key = String(Math.round((start - dayStartMs(day)) / bucketMs));
    const drives = (history.open[day] ??= {});
    const buckets = (drives[id] ??= {});
    const was = buckets[key] ?? [0, 0, 0, 0];
    buckets[key] = [Math.round(was[0] + usage.bytes * share), thousandths(was[1] + usage.ios * share), thousandths(was[2] + usage.ms * share), Math.round(was[3] + covered)];
  }
}

/** One open day as the peer detector takes it: per drive and bucket, bytes/s and ms per I/O (0 without I/O). */
export function alignOpenDay(day: string, drives: Record<string, Record<string, BucketCounters>>, peer: PeerParams, classes: Record<string, string> = {}): AlignedDay {
  const builder = new DayBuilder(day, peer.bucketSeconds);
  const dayStart = dayStartMs(day) / 1000;
  for (const id of Object.keys(drives).sort()) {
    const index = builder.indexOf(id);
    if (classes[id]) builder.setClass(index, classes[id]);
    for (const [key, [bytes, ios, ms, coveredMs]] of Object.entries(drives[id]!)) {
      if (coveredMs <= 0) continue;
      builder.add(dayStart + Number(key) * peer.bucketSeconds, index, bytes / (coveredMs / 1000), ios > 0 ? ms / ios : 0);
    }
  }
  return builder.build();
}

/** Judges the days that are over (no later interval can reach them) and drops those past retention. */
function closeDays(history: DriveHistory, nowMs: number, peer: PeerParams, params: DriveParams): void {
  for (const day of Object.keys(history.open).sort()) {
    if (dayStartMs(day) + DAY_MS > nowMs) continue;
    history.judged.push(...judgeDayByClass(alignOpenDay(day, history.open[day]!, peer, history.classes), peer));
    delete history.open[day];
  }
  const oldest = dayOf(nowMs - params.retentionDays * DAY_MS);
  history.judged = history.judged.filter((day) => day.day >= oldest).sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : 0));
  const kept = new Set<string>();
  for (const day of history.judged) for (const drive of day.drives) kept.add(drive.disk);
  for (const drives of Object.values(history.open)) for (const id of Object.keys(drives)) kept.add(id);
  if (history.last) for (const device of Object.values(history.last.devices)) kept.add(device.id);
  for (const id of Object.keys(history.names)) if (!kept.has(id)) delete history.names[id];
  for (const id of Object.keys(history.classes ?? {})) if (!kept.has(id)) delete history.classes![id];
}

/**
 * Adds the interval from the last snapshot to `next` for every drive in both with the same
 * identity and counters that did not restart, then makes `next` the last snapshot.
 */
export function recordSnapshot(history: DriveHistory, next: Snapshot, peer: PeerParams, params: DriveParams): Recorded {
  const result: Recorded = { recorded: [], skipped: [] };
  const last = history.last;
  if (last !== null && next.timeMs - last.timeMs > CLOCK_JUMP_MS) {
    const ahead = `${((next.timeMs - last.timeMs) / DAY_MS).toFixed(1)} days`;
    result.clockJump =
      `the clock (${new Date(next.timeMs).toISOString()}) is ${ahead} past the drive history's last sample ` +
      `(${new Date(last.timeMs).toISOString()}): this sample is not recorded and judges no day; the next one goes on from it`;
    for (const name of Object.keys(next.devices)) result.skipped.push({ device: name, why: `the clock jumped ${ahead} ahead` });
    // The next snapshot is measured from this one: one with the clock put right went back,
    // and is not recorded either; one as far ahead is time that really went by.
    history.last = next;
    return result;
  }
  const problem = last === null ? 'the first sample' : intervalProblem(last, next, params);
  for (const [name, device] of Object.entries(next.devices)) {
    history.names[device.id] = name;
    if (device.peerClass) (history.classes ??= {})[device.id] = device.peerClass;
    if (problem !== null || last === null) {
      result.skipped.push({ device: name, why: problem ?? 'the first sample' });
      continue;
    }
    const before = last.devices[name];
    if (!before) {
      result.skipped.push({ device: name, why: 'not sampled before' });
      continue;
    }
    if (before.id !== device.id) {
      result.skipped.push({ device: name, why: `another drive than at the last sample (${before.id}, now ${device.id})` });
      continue;
    }
    const usage = usageOf(before.counters, device.counters, next.timeMs - last.timeMs);
    if (usage === null) {
      result.skipped.push({ device: name, why: 'its counters restarted since the last sample' });
      continue;
    }
    spread(history, device.id, last.timeMs, next.timeMs, usage, peer.bucketSeconds * 1000);
    result.recorded.push(name);
  }
  history.last = next;
  closeDays(history, history.last.timeMs, peer, params);
  return result;
}

/**
 * A day judged before the history knew classes (no `peerClass`) holds every drive: its drives
 * are handed to their classes with the day's judgement as it was made (exact on a host of one
 * class; it ages out with retention).
 */
function byClass(day: HostDay, classes: Record<string, string>): HostDay[] {
  if (day.peerClass !== undefined) return [day];
  const split = new Map<string, HostDay>();
  for (const drive of day.drives) {
    const peerClass = classes[drive.disk] ?? '';
    if (!split.has(peerClass)) split.set(peerClass, { ...day, peerClass, drives: [] });
    split.get(peerClass)!.drives.push(drive);
  }
  return [...split.values()];
}

/** The verdict on every drive in the history, each class against itself: the judged days and the open ones judged as they stand. */
export function judgeHistory(history: DriveHistory, peer: PeerParams): HostVerdict {
  const classes = history.classes ?? {};
  const open = Object.keys(history.open)
    .sort()
    .flatMap((day) => judgeDayByClass(alignOpenDay(day, history.open[day]!, peer, classes), peer));
  return judgeHost([...history.judged.flatMap((day) => byClass(day, classes)), ...open], peer);
}
