// The I/O limits of the cgroup slowdisk runs in (the prober is started in it, and its probes
// are charged to it), and the I/O it did against them: what tells a disk held by a limit above
// its device (a throttle) from a slow one. A throttle holds requests before the device's queue,
// so the device's own counters show fewer requests, each as fast as ever; only the cgroup's
// counters show them pinned at the limit. Both hierarchies: v1's blkio.throttle.* files of the
// blkio controller's group and its ancestors, whose limits apply too, and v2's io.max and
// io.stat. Small files, read once a round.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A limit's kinds, per second: requests (bios) and bytes, read and write. */
export const LIMIT_KINDS = ['readIops', 'writeIops', 'readBps', 'writeBps'] as const;
export type LimitKind = (typeof LIMIT_KINDS)[number];

/** A group's directory, and per device ("MAJ:MIN"): the limits set, and the counts the same kinds are measured in. */
export interface CgroupLevel {
  dir: string;
  limits: Map<string, Partial<Record<LimitKind, number>>>;
  /** Since the group was made: read and write requests, read and written bytes. */
  done: Map<string, Record<LimitKind, number>>;
}

const zeroDone = (): Record<LimitKind, number> => ({ readIops: 0, writeIops: 0, readBps: 0, writeBps: 0 });

/** v1 blkio.throttle.*_device: "MAJ:MIN VALUE" a line. */
export function parseV1Limits(files: Record<LimitKind, string>): CgroupLevel['limits'] {
  const limits: CgroupLevel['limits'] = new Map();
  for (const kind of LIMIT_KINDS) {
    for (const line of files[kind].split('\n')) {
      const [device, value] = line.trim().split(/\s+/);
      const limit = Number(value);
      if (!device || !/^\d+:\d+$/.test(device) || !(limit > 0)) continue;
      limits.set(device, { ...limits.get(device), [kind]: limit });
    }
  }
  return limits;
}

/** v1 blkio.throttle.io_serviced and io_service_bytes: "MAJ:MIN Read N", "MAJ:MIN Write N" ... a line. */
export function parseV1Done(serviced: string, bytes: string): CgroupLevel['done'] {
  const done: CgroupLevel['done'] = new Map();
  const add = (text: string, read: LimitKind, write: LimitKind) => {
    for (const line of text.split('\n')) {
      const [device, op, value] = line.trim().split(/\s+/);
      if (!device || !/^\d+:\d+$/.test(device) || (op !== 'Read' && op !== 'Write')) continue;
      let counts = done.get(device);
      if (!counts) done.set(device, (counts = zeroDone()));
      counts[op === 'Read' ? read : write] = Number(value) || 0;
    }
  };
  add(serviced, 'readIops', 'writeIops');
  add(bytes, 'readBps', 'writeBps');
  return done;
}

const V2_LIMIT_KEYS: Record<string, LimitKind> = { riops: 'readIops', wiops: 'writeIops', rbps: 'readBps', wbps: 'writeBps' };
const V2_DONE_KEYS: Record<string, LimitKind> = { rios: 'readIops', wios: 'writeIops', rbytes: 'readBps', wbytes: 'writeBps' };

/** "MAJ:MIN key=value ..." a line, each value through `value`. */
function v2Lines(text: string, keys: Record<string, LimitKind>, each: (device: string, kind: LimitKind, value: string) => void): void {
  for (const line of text.split('\n')) {
    const [device, ...pairs] = line.trim().split(/\s+/);
    if (!device || !/^\d+:\d+$/.test(device)) continue;
    for (const pair of pairs) {
      const [key, value] = pair.split('=');
      const kind = keys[key ?? ''];
      if (kind && value !== undefined) each(device, kind, value);
    }
  }
}

/** v2 io.max and io.stat. */
export function parseV2(max: string, stat: string): Omit<CgroupLevel, 'dir'> {
  const limits: CgroupLevel['limits'] = new Map();
  v2Lines(max, V2_LIMIT_KEYS, (device, kind, value) => {
    const limit = Number(value);
    if (value !== 'max' && limit > 0) limits.set(device, { ...limits.get(device), [kind]: limit });
  });
  const done: CgroupLevel['done'] = new Map();
  v2Lines(stat, V2_DONE_KEYS, (device, kind, value) => {
    let counts = done.get(device);
    if (!counts) done.set(device, (counts = zeroDone()));
    counts[kind] = Number(value) || 0;
  });
  return { limits, done };
}

/** The cgroup directories whose I/O limits apply to a process: its own, then each ancestor up to the hierarchy's root. */
export function limitingGroups(procCgroup: string, v1Root = '/sys/fs/cgroup/blkio', v2Root = '/sys/fs/cgroup'): { version: 1 | 2; dirs: string[] } | null {
  const lines = procCgroup.split('\n');
  // "ID:controllers:path": v1's blkio line, or v2's single "0::path".
  const v1 = lines.map((line) => line.split(':')).find((parts) => parts.length >= 3 && parts[1]!.split(',').includes('blkio'));
  const v2 = lines.find((line) => line.startsWith('0::'));
  const [version, root, own] = v1 ? ([1, v1Root, v1.slice(2).join(':')] as const) : v2 ? ([2, v2Root, v2.slice(3)] as const) : [null, '', ''];
  if (version === null) return null;
  const dirs: string[] = [];
  for (let group = path.posix.normalize(own || '/'); ; group = path.posix.dirname(group)) {
    dirs.push(path.posix.join(root, group));
    if (group === '/' || group === '.') break;
  }
  return { version, dirs };
}

const readOrEmpty = (file: string): string => {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
};

/** Each group's limits and counts, the process's own first; a group without a limit is left out. */
export function readCgroupIo(procCgroupFile = '/proc/self/cgroup'): CgroupLevel[] {
  const groups = limitingGroups(readOrEmpty(procCgroupFile));
  if (!groups) return [];
  const levels: CgroupLevel[] = [];
  for (const dir of groups.dirs) {
    let level: CgroupLevel;
    if (groups.version === 1) {
      const file = (name: string) => readOrEmpty(path.join(dir, `blkio.throttle.${name}`));
      const limits = parseV1Limits({ readIops: file('read_iops_device'), writeIops: file('write_iops_device'), readBps: file('read_bps_device'), writeBps: file('write_bps_device') });
      // The counts only where a limit is: most groups of most hosts have none.
      if (limits.size === 0) continue;
      level = { dir, limits, done: parseV1Done(file('io_serviced'), file('io_service_bytes')) };
    } else {
      const max = readOrEmpty(path.join(dir, 'io.max'));
      if (max.trim() === '') continue;
      level = { dir, ...parseV2(max, readOrEmpty(path.join(dir, 'io.stat'))) };
      if (level.limits.size === 0) continue;
    }
    levels.push(level);
  }
  return levels;
}

/**
 * For each device with a limit, the largest share of one of its limits that a group's I/O
 * used between two readings `elapsedMs` apart (1: pinned at the limit). A group, or a
 * device's counts, missing from either reading says nothing.
 */
export function limitUse(before: readonly CgroupLevel[], after: readonly CgroupLevel[], elapsedMs: number): Map<string, number> {
  const use = new Map<string, number>();
  if (!(elapsedMs > 0)) return use;
  for (const { dir, limits, done } of after) {
    const earlier = before.find((level) => level.dir === dir);
    if (!earlier) continue;
    for (const [device, deviceLimits] of limits) {
      const now = done.get(device);
      const then = earlier.done.get(device);
      if (!now || !then) continue;
      for (const kind of LIMIT_KINDS) {
        const limit = deviceLimits[kind];
        if (limit === undefined) continue;
        const rate = ((now[kind] - then[kind]) * 1000) / elapsedMs;
        if (rate >= 0) use.set(device, Math.max(use.get(device) ?? 0, rate / limit));
      }
    }
  }
  return use;
}
