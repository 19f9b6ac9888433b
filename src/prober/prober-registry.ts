// The registry of live probers, under /run/slowdisk: one entry per prober and probed path,
// naming the filesystem it probes and, once it is stuck there, since when. A prober left
// behind on a hung disk by an earlier run (a cron check every 5 minutes) is found here, so
// that a new run starts no second one on that filesystem: each would hold about 45 MB until
// the thaw. The prober writes its own entries (its writes never wait on the CLI); the CLI
// only reads them and removes those of dead probers. /run is a tmpfs: nothing here waits on
// a disk under test, and no path here is one a user names.
import { randomBytes } from 'node:crypto';
import { lstatSync, mkdirSync, readdirSync, unlinkSync } from 'node:fs';
import { readRegularSync, replaceFileSync, writeNewSync } from '../common/exclusive-file.js';
import { processStartTime } from '../common/process-start-time.js';
import path from 'node:path';

export const REGISTRY_DIR = '/run/slowdisk';

const ENTRY = /^prober-[0-9a-f]{32}\.json$/;

export interface RegistryEntry {
  pid: number;
  /** The prober's start time in clock ticks since boot (/proc/PID/stat), so that a reused pid is not taken for it. */
  start_time: string;
  /** The probed path's name in its run. */
  disk: string;
  /** MAJ:MIN of the filesystem probed. */
  device: string;
  mnt_id: number | null;
  /** Wall-clock ms since the epoch at which the inspection that got stuck started; null while none is. */
  stuck_since: number | null;
}

/** A live prober of an earlier run stuck on a filesystem. */
export interface StuckProber {
  pid: number;
  stuckSinceMs: number;
  /** The entry's file, to see whether the prober is still there. */
  file: string;
  startTime: string;
}

/** Whether the prober that made an entry is still the process under its pid. */
export function isLive(pid: number, startTime: string): boolean {
  return String(processStartTime(pid)) === startTime;
}

/**
 * The registry directory, made if missing when `create` (by a prober: the CLI only reads):
 * root's alone (0700), and refused when it is a symlink, not a directory, someone else's or
 * open to others. null when it cannot be used (not root, say): then no prober registers and
 * none is found, and each run probes on its own.
 */
function registryDir(create: boolean): string | null {
  if (create) {
    try {
      mkdirSync(REGISTRY_DIR, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return null;
    }
  }
  try {
    const stat = lstatSync(REGISTRY_DIR);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.() || (stat.mode & 0o077) !== 0) return null;
  } catch {
    return null;
  }
  return REGISTRY_DIR;
}

const randomName = (prefix: string, suffix: string) => `${prefix}${randomBytes(16).toString('hex')}${suffix}`;

/** The prober's side: its own entries, one per probed path. */
export class ProberRegistration {
  private readonly dir = registryDir(true);
  private readonly startTime = processStartTime(process.pid)?.toString() ?? null;
  private readonly entries = new Map<string, { file: string; entry: RegistryEntry }>();

  /** Records the filesystem the path is probed on; rewritten only when that changes. */
  probing(disk: string, device: string, mntId: number | null): void {
    const known = this.entries.get(disk);
    if (known && known.entry.device === device && known.entry.mnt_id === mntId) return;
    const entry: RegistryEntry = { pid: process.pid, start_time: this.startTime ?? '', disk, device, mnt_id: mntId, stuck_since: null };
    this.write(disk, entry, known?.file);
  }

  /** The path's inspection started at `sinceMs` (wall clock) and has not come back; null: it came back. */
  stuck(disk: string, sinceMs: number | null): void {
    const known = this.entries.get(disk);
    if (!known || known.entry.stuck_since === sinceMs) return;
    this.write(disk, { ...known.entry, stuck_since: sinceMs }, known.file);
  }

  remove(disk: string): void {
    const known = this.entries.get(disk);
    if (!known) return;
    this.entries.delete(disk);
    try {
      unlinkSync(known.file);
    } catch {
      // Already removed by a run that took this prober for dead.
    }
  }

  removeAll(): void {
    for (const disk of [...this.entries.keys()]) this.remove(disk);
  }

  /** A new entry is made whole under a name of its own, then renamed over the old one: a reader never sees half of one. */
  private write(disk: string, entry: RegistryEntry, existing: string | undefined): void {
    if (this.dir === null || this.startTime === null) return;
    const file = existing ?? path.join(this.dir, randomName('prober-', '.json'));
    try {
      if (existing === undefined) writeNewSync(file, JSON.stringify(entry));
      else replaceFileSync(this.dir, path.basename(file), JSON.stringify(entry));
      this.entries.set(disk, { file, entry });
    } catch {
      // The registry is an aid: a prober that cannot register still probes.
    }
  }
}

function readEntry(file: string): RegistryEntry | null {
  try {
    const entry = JSON.parse(readRegularSync(file) ?? 'null') as RegistryEntry | null;
    return entry !== null && Number.isInteger(entry.pid) && typeof entry.start_time === 'string' && typeof entry.device === 'string' ? entry : null;
  } catch {
    return null;
  }
}

/**
 * The CLI's side: the live prober, other than `ownPid`, stuck longest on the filesystem
 * `device`, if any. Entries of dead probers are removed on the way.
 */
export function stuckProberOn(device: string, ownPid: number | undefined): StuckProber | null {
  const dir = registryDir(false);
  if (dir === null) return null;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  let found: StuckProber | null = null;
  for (const name of names) {
    if (!ENTRY.test(name)) continue;
    const file = path.join(dir, name);
    const entry = readEntry(file);
    if (!entry) continue;
    if (!isLive(entry.pid, entry.start_time)) {
      try {
        unlinkSync(file);
      } catch {
        // Removed meanwhile.
      }
      continue;
    }
    if (entry.pid === ownPid || entry.device !== device || entry.stuck_since === null) continue;
    if (!found || entry.stuck_since < found.stuckSinceMs) {
      found = { pid: entry.pid, stuckSinceMs: entry.stuck_since, file, startTime: entry.start_time };
    }
  }
  return found;
}

/** Whether a prober found by stuckProberOn is still alive and stuck (its entry still there). */
export function stillStuck(prober: StuckProber): boolean {
  if (!isLive(prober.pid, prober.startTime)) return false;
  const entry = readEntry(prober.file);
  return entry !== null && entry.stuck_since !== null;
}
