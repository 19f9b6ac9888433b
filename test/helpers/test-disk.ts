import { execFile, execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { MountTable, deviceOf } from '../../src/mounts/mount-table.js';

const execFileAsync = promisify(execFile);
const kitDir = fileURLToPath(new URL('../../scripts/fault/', import.meta.url));

export interface TestDiskOptions {
  /** Mount it here (made if missing), e.g. on a directory of another test disk; default: a fresh temp dir. */
  dir?: string;
  fs?: 'ext4' | 'xfs';
  sizeMiB?: number;
  /** Needed for writeErrors(): see scripts/fault/make-disk --help. */
  backingTmpfs?: boolean;
  /** The same, seen through the kit's delay layer: needed by slowTail(). */
  backingDelayed?: boolean;
  /** The backing file in this directory instead of /dev/shm: on another test disk, whose faults are then the storage's under this one. */
  backingDir?: string;
  /** The backing file on a media disk of its own, in memory, which slow() slows: needed by slow(). */
  media?: boolean;
}

export interface IopsLimits {
  readIops?: number;
  writeIops?: number;
}

const iopsArgs = ({ readIops, writeIops }: IopsLimits) => [
  ...(readIops === undefined ? [] : ['--read-iops', String(readIops)]),
  ...(writeIops === undefined ? [] : ['--write-iops', String(writeIops)]),
];

/** A loop disk made by scripts/fault/make-disk; each method runs the kit script of that name and resolves to what it printed. */
export interface TestDisk {
  dir: string;
  /** The loop device, such as /dev/loop3. */
  device: string;
  majMin: string;
  /** Its own device serves slowly: its media's I/O capped (a disk made with `media`). */
  slow(limits: IopsLimits): Promise<string>;
  unslow(): Promise<string>;
  /** Its own device's I/O held at a cap above the device, as a cgroup's limit holds it. */
  throttle(limits: IopsLimits): Promise<string>;
  unthrottle(): Promise<string>;
  /** A share of its flushes, in percent, each wait `delayMs` more (a disk made with `backingDelayed`). */
  slowTail(sharePercent: number, delayMs: number): Promise<string>;
  unslowTail(): Promise<string>;
  /** Busy with others' I/O: `writers` processes writing 1 MiB direct, over and over. */
  load(writers?: number): Promise<string>;
  unload(): Promise<string>;
  hang(): Promise<string>;
  thaw(): Promise<string>;
  readonly(): Promise<string>;
  readwrite(): Promise<string>;
  writeErrors(): Promise<string>;
  healWriteErrors(): Promise<string>;
  fill(): Promise<string>;
  free(): Promise<string>;
  vanish(): Promise<string>;
  restore(): Promise<string>;
  remove(): Promise<string>;
}

// Directories of disks not removed yet. A disk left behind would keep a loop
// device, a mount and maybe a throttle or a frozen filesystem on the machine,
// so every disk is listed here from before it is made until it is gone.
const liveDisks = new Set<string>();

/** Runs one fault-kit script; a failure carries the script's own stderr. */
export async function runKit(script: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await execFileAsync(join(kitDir, script), args);
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim();
    throw new Error(`${script} ${args.join(' ')} failed: ${stderr || String(error)}`, { cause: error });
  }
}

async function removeTestDisk(dir: string): Promise<string> {
  const said = await runKit('remove-disk', [dir]);
  // Only now is dir a plain directory again; a vanished disk's writes may have
  // landed in it.
  await rm(dir, { recursive: true, force: true });
  liveDisks.delete(dir);
  return said;
}

/** Makes a disk mounted on `opts.dir`, or on a fresh directory under the system temp dir. */
export async function makeTestDisk(opts: TestDiskOptions = {}): Promise<TestDisk> {
  // Made first and so removed last: the disk's backing file is on it.
  const media = opts.media ? await makeTestDisk({ backingTmpfs: true, sizeMiB: Math.ceil((opts.sizeMiB ?? (opts.fs === 'xfs' ? 300 : 64)) * 1.25) + 32 }) : undefined;
  const dir = opts.dir ?? (await mkdtemp(join(tmpdir(), 'slowdisk-test-disk-')));
  liveDisks.add(dir);
  const args = [dir];
  if (opts.fs) args.push('--fs', opts.fs);
  if (opts.sizeMiB !== undefined) args.push('--size-mib', String(opts.sizeMiB));
  if (opts.backingDelayed) args.push('--backing-delayed');
  else if (opts.backingTmpfs) args.push('--backing-tmpfs');
  // The backing file lives in memory: a journal commit or a neighbour on the
  // machine's own disk could otherwise make a healthy test disk slow.
  else args.push('--backing-dir', media?.dir ?? opts.backingDir ?? '/dev/shm');
  await runKit('make-disk', args);

  const mount = MountTable.read().topmostAt(dir);
  if (!mount) throw new Error(`make-disk ${dir} succeeded but nothing is mounted there`);
  const kit = (script: string) => () => runKit(script, [dir]);
  return {
    dir,
    device: mount.source,
    majMin: deviceOf(mount),
    slow: (limits) => runKit('slow', [dir, ...iopsArgs(limits)]),
    unslow: kit('unslow'),
    throttle: (limits) => runKit('throttle', [dir, ...iopsArgs(limits)]),
    unthrottle: kit('unthrottle'),
    slowTail: (sharePercent, delayMs) => runKit('slow-tail', [dir, '--share', String(sharePercent), '--delay-ms', String(delayMs)]),
    unslowTail: kit('unslow-tail'),
    load: (writers) => runKit('load', [dir, ...(writers === undefined ? [] : ['--writers', String(writers)])]),
    unload: kit('unload'),
    hang: kit('hang'),
    thaw: kit('thaw'),
    readonly: kit('readonly'),
    readwrite: kit('readwrite'),
    writeErrors: kit('write-errors'),
    healWriteErrors: kit('heal-write-errors'),
    fill: kit('fill'),
    free: kit('free'),
    vanish: kit('vanish'),
    restore: kit('restore'),
    remove: async () => {
      const said = await removeTestDisk(dir);
      if (media) await media.remove();
      return said;
    },
  };
}

/**
 * Removes every disk not removed yet, whatever faults it has (remove-disk
 * thaws, unthrottles and heals before it unmounts, detaches and deletes).
 * For afterAll/afterEach; tries every disk before reporting any failure.
 */
export async function removeAllTestDisks(): Promise<void> {
  const failures: unknown[] = [];
  // Newest first: a disk made on another one's directory has to go before it.
  for (const dir of [...liveDisks].reverse()) {
    try {
      await removeTestDisk(dir);
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, `could not remove ${failures.length} test disk(s)`);
}

// For a run that ends before its afterAll hooks: nothing can be reported any
// more and the listeners must be synchronous, so this only tries.
function removeLeftoverDisksSync(): void {
  for (const dir of [...liveDisks].reverse()) {
    try {
      execFileSync(join(kitDir, 'remove-disk'), [dir], { stdio: 'ignore' });
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Best effort: the disk stays behind, as it would without this fallback.
    }
  }
}

process.on('exit', removeLeftoverDisksSync);
// A signal ends the process without 'exit', and a vitest worker is stopped
// with SIGTERM. Once the listener is gone, the signal raised again ends the
// process as it would have.
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  process.once(signal, () => {
    removeLeftoverDisksSync();
    process.kill(process.pid, signal);
  });
}
