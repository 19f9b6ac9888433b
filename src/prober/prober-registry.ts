// The registry of live probers, under /run/slowdisk: one entry per prober and probed path,
// naming the filesystem it probes and, once it is stuck there, since when. A prober left
// behind on a hung disk by an earlier run (a cron check every 5 minutes) is found here, so
// that a new run starts no second one on that filesystem: each would hold about 45 MB until
// the thaw. The prober writes its own entries (its writes never wait on the CLI); the CLI
// only reads them and removes those of dead probers. /run is a tmpfs: nothing here waits on
// a disk under test, and no path here is one a user names.
//
// A registry that cannot be used (/run read-only or full, or not root's) is no reason to
// start a second prober on a stuck filesystem: a stuck prober then also listens on an
// abstract Unix socket (no file, no space) whose name says where and since when it is stuck,
// and a run finds it in /proc/net/unix. Any user can bind any free abstract name, with any
// bytes in it (a newline and a whole forged line of /proc/net/unix): a name is believed only
// once the kernel says that the prober it names listens there, as root or as this user.
import { lstatSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { readRegularSync, replaceFileSync, temporaryName, writeNewSync } from '../common/exclusive-file.js';
import { processStartTime } from '../common/process-start-time.js';
import { randomHex } from '../common/random-hex.js';
import { abstractSocketListener } from '../native/addon.js';
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
  /** The entry's file, or the abstract socket's address (a NUL first), to see whether the prober is still stuck. */
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

const randomName = (prefix: string, suffix: string) => `${prefix}${randomHex(16)}${suffix}`;

const errorText = (error: unknown, file: string) => {
  const e = error as NodeJS.ErrnoException;
  return e.code && e.syscall ? `${e.code}: ${e.syscall} ${e.path ?? file}` : String((error as Error).message ?? error);
};

/**
 * Why the registry cannot be used, as a prober would use it (made if missing, an entry
 * written whole and removed); null when it can. For the one line a root run says about it.
 */
export function registryProblem(): string | null {
  try {
    mkdirSync(REGISTRY_DIR, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return errorText(error, REGISTRY_DIR);
  }
  if (registryDir(false) === null) return `${REGISTRY_DIR} is not a directory of this user's alone`;
  const probe = path.join(REGISTRY_DIR, temporaryName('check'));
  try {
    writeNewSync(probe, JSON.stringify({ check: true }));
    unlinkSync(probe);
  } catch (error) {
    return errorText(error, probe);
  }
  return null;
}

/** The abstract socket names of stuck probers: "slowdisk-stuck <device> <since ms> <pid> <start time> <random>". */
const SOCKET_PREFIX = 'slowdisk-stuck ';

/**
 * A line of /proc/net/unix naming a stuck prober's socket: the kernel's fields, then "@" and
 * the name, each NUL in it shown as "@" (Node pads a name with NULs to the address's full
 * length). Any field out of its format, or anything after the name, and the line is no one's.
 */
const SOCKET_LINE = new RegExp(String.raw`^[0-9a-f]+: [0-9A-F]{8} [0-9A-F]{8} [0-9A-F]{8} [0-9A-F]{4} [0-9A-F]{2} +\d+ @(${SOCKET_PREFIX}(\d{1,10}:\d{1,10}) (\d{1,15}) (\d{1,10}) (\d{1,20}) [0-9a-f]{16})(@*)$`);

/** Where the registry cannot take an entry: a stuck prober's abstract socket, for as long as it is stuck. */
class StuckSocket {
  private readonly server: Server;

  constructor(
    device: string,
    readonly sinceMs: number,
    startTime: string,
  ) {
    // A run that asks who listens here connects: each connection is closed at once.
    this.server = createServer((connection) => connection.destroy());
    this.server.on('error', () => {});
    this.server.listen({ path: `\0${SOCKET_PREFIX}${device} ${sinceMs} ${process.pid} ${startTime} ${randomHex(8)}` });
    this.server.unref();
  }

  close(): void {
    this.server.close();
  }
}
/** The prober's side: its own entries, one per probed path. */
export class ProberRegistration {
  private readonly dir = registryDir(true);
  private readonly startTime = processStartTime(process.pid)?.toString() ?? null;
  private readonly entries = new Map<string, { file: string; entry: RegistryEntry }>();
  /** Stuck disks the registry could not take, by name. */
  private readonly sockets = new Map<string, StuckSocket>();
  /** The last entry of each disk, written or not. */
  private readonly latest = new Map<string, RegistryEntry>();

  /** Records the filesystem the path is probed on; rewritten only when that changes. */
  probing(disk: string, device: string, mntId: number | null): void {
    const latest = this.latest.get(disk);
    if (latest && latest.device === device && latest.mnt_id === mntId) return;
    const entry: RegistryEntry = { pid: process.pid, start_time: this.startTime ?? '', disk, device, mnt_id: mntId, stuck_since: null };
    this.write(disk, entry, this.entries.get(disk)?.file);
  }

  /** The path's inspection started at `sinceMs` (wall clock) and has not come back; null: it came back. */
  stuck(disk: string, sinceMs: number | null): void {
    const latest = this.latest.get(disk);
    if (!latest || latest.stuck_since === sinceMs) return;
    this.write(disk, { ...latest, stuck_since: sinceMs }, this.entries.get(disk)?.file);
  }

  remove(disk: string): void {
    this.latest.delete(disk);
    this.sockets.get(disk)?.close();
    this.sockets.delete(disk);
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
    for (const disk of new Set([...this.entries.keys(), ...this.latest.keys()])) this.remove(disk);
  }

  /** A new entry is made whole under a name of its own, then renamed over the old one: a reader never sees half of one. */
  private write(disk: string, entry: RegistryEntry, existing: string | undefined): void {
    if (this.startTime === null) return;
    this.latest.set(disk, entry);
    let written = false;
    if (this.dir !== null) {
      const file = existing ?? path.join(this.dir, randomName('prober-', '.json'));
      try {
        if (existing === undefined) writeNewSync(file, JSON.stringify(entry));
        else replaceFileSync(this.dir, path.basename(file), JSON.stringify(entry));
        this.entries.set(disk, { file, entry });
        written = true;
      } catch {
        // Full or read-only: the socket below stands for the entry. A prober that cannot register still probes.
      }
    }
    const wanted = written ? null : entry.stuck_since;
    const socket = this.sockets.get(disk);
    if (socket && socket.sinceMs !== wanted) {
      socket.close();
      this.sockets.delete(disk);
    }
    if (wanted !== null && !this.sockets.has(disk)) this.sockets.set(disk, new StuckSocket(entry.device, wanted, this.startTime));
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

/** Whether prober `pid` itself listens on the abstract socket `address`, as root or as this user: the kernel says who listens, a name anyone may bind. */
function listensThere(address: string, pid: number): boolean {
  const listener = abstractSocketListener(address);
  return listener !== null && listener.pid === pid && (listener.uid === 0 || listener.uid === process.geteuid?.());
}

/** The stuck probers' abstract sockets on `device`, each believed once its named prober is found listening there. */
function stuckSocketsOn(device: string, ownPid: number | undefined): StuckProber[] {
  let table: string;
  try {
    table = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return [];
  }
  const found: StuckProber[] = [];
  for (const line of table.split('\n')) {
    const match = SOCKET_LINE.exec(line);
    if (!match) continue;
    const [, name, socketDevice, since, pidText, startTime, padding] = match as unknown as [string, string, string, string, string, string, string];
    const pid = Number(pidText);
    if (socketDevice !== device || pid === ownPid || !isLive(pid, startTime)) continue;
    const address = name + '\0'.repeat(padding.length);
    if (!listensThere(address, pid)) continue;
    found.push({ pid, stuckSinceMs: Number(since), file: `\0${address}`, startTime });
  }
  return found;
}

/**
 * The CLI's side: the live prober, other than `ownPid`, stuck longest on the filesystem
 * `device`, if any, found in the registry or by its socket. Entries of dead probers are removed on the way.
 */
export function stuckProberOn(device: string, ownPid: number | undefined): StuckProber | null {
  let found: StuckProber | null = null;
  for (const socket of stuckSocketsOn(device, ownPid)) if (!found || socket.stuckSinceMs < found.stuckSinceMs) found = socket;
  const dir = registryDir(false);
  if (dir === null) return found;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return found;
  }
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
  if (prober.file.startsWith('\0')) return listensThere(prober.file.slice(1), prober.pid);
  const entry = readEntry(prober.file);
  return entry !== null && entry.stuck_since !== null;
}
