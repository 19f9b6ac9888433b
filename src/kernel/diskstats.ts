// The kernel's own per-device I/O counters, /proc/diskstats: what every block device has
// done since it was created, kept by the block layer at no I/O cost. Field meanings are the
// kernel's Documentation/admin-guide/iostats.rst.
import { readFileSync } from 'node:fs';

/** One direction of I/O: requests completed and merged, 512-byte sectors, and ms spent on them. */
export interface IoCounters {
  completed: number;
  merged: number;
  sectors: number;
  /** Summed over the requests, from when each was queued to when it completed. */
  ms: number;
}

export interface FlushCounters {
  completed: number;
  ms: number;
}

/** One device's line of /proc/diskstats. Every field but inFlight is cumulative. */
export interface DiskCounters {
  /** MAJ:MIN, as statx, /sys/dev/block and the blkio cgroup name the device. */
  device: string;
  /** The kernel's name for it, e.g. nvme0n1p1, dm-0, loop3. */
  name: string;
  reads: IoCounters;
  writes: IoCounters;
  /** Requests issued to the device and not completed yet, at the moment of the read. */
  inFlight: number;
  /** ms during which the device had at least one request in flight (io_ticks). */
  ioTicksMs: number;
  /** ms of requests in flight, weighted by how many were (time_in_queue). */
  timeInQueueMs: number;
  /** Kernel 4.18 and later; null on an older kernel. */
  discards: IoCounters | null;
  /** Kernel 5.5 and later; null on an older kernel. */
  flushes: FlushCounters | null;
}

/** Major, minor and name, then the counters. */
const ID_FIELDS = 3;
const BASE_FIELDS = ID_FIELDS + 11;
const WITH_DISCARDS = BASE_FIELDS + 4;
const WITH_FLUSHES = WITH_DISCARDS + 2;
const KNOWN_LENGTHS = new Set([BASE_FIELDS, WITH_DISCARDS, WITH_FLUSHES]);

function parseLine(line: string, lineNumber: number): DiskCounters {
  // The kernel pads major and minor with spaces: fields are split on runs of blanks.
  const fields = line.trim().split(/\s+/);
  // A kernel newer than this code may append fields: they are left alone, not refused.
  if (!KNOWN_LENGTHS.has(fields.length) && fields.length < WITH_FLUSHES) {
    throw new Error(`diskstats line ${lineNumber}: expected 14, 18 or 20 fields, got ${fields.length}: '${line}'`);
  }
  const name = fields[2];
  const numberAt = (index: number): number => {
    if (!/^\d+$/.test(fields[index])) {
      throw new Error(`diskstats line ${lineNumber}: field ${index + 1} is not a number: '${fields[index]}'`);
    }
    return Number(fields[index]);
  };
  const counted = Math.min(fields.length, WITH_FLUSHES) - ID_FIELDS;
  const numbers = Array.from({ length: counted }, (_, index) => numberAt(ID_FIELDS + index));
  const io = (at: number): IoCounters => ({ completed: numbers[at], merged: numbers[at + 1], sectors: numbers[at + 2], ms: numbers[at + 3] });
  return {
    device: `${numberAt(0)}:${numberAt(1)}`,
    name,
    reads: io(0),
    writes: io(4),
    inFlight: numbers[8],
    ioTicksMs: numbers[9],
    timeInQueueMs: numbers[10],
    discards: fields.length >= WITH_DISCARDS ? io(11) : null,
    flushes: fields.length >= WITH_FLUSHES ? { completed: numbers[15], ms: numbers[16] } : null,
  };
}

/** Parses /proc/diskstats text into counters by MAJ:MIN; throws an Error naming the line number of a malformed line. */
export function parseDiskstats(text: string): Map<string, DiskCounters> {
  const devices = new Map<string, DiskCounters>();
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    const counters = parseLine(line, index + 1);
    devices.set(counters.device, counters);
  });
  return devices;
}

/**
 * One snapshot of every block device, in one read: procfs answers from memory, never from a
 * disk under test, so a hung disk cannot hold this up.
 */
export function readDiskstats(file = '/proc/diskstats'): Map<string, DiskCounters> {
  return parseDiskstats(readFileSync(file, 'utf8'));
}
