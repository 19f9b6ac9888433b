// Typed face of the native probe layer (the addon node-gyp-build picks, or SLOWDISK_ADDON).
// Each ProbeWorker owns one native thread, which keeps a directory's ticks and its probe
// files; its requests run in order there, and a failed request rejects with a ProbeError.
import { createRequire } from 'node:module';
import path from 'node:path';
import { whyNotLoaded } from './addon-file.js';
import { PACKAGE_ROOT } from '../common/package-root.js';

export type SyncMode = 'fdatasync' | 'fsync';

export interface ResolveResult {
  mntId: number;
  devMajor: number;
  devMinor: number;
  fsMagic: number;
  /** The directory with every symlink resolved (realpath). */
  resolvedDir: string;
}

/** A failure as a batch record carries it: a ProbeError's fields. */
export interface ErrorFields {
  code: string;
  errno: number;
  syscall: string;
  path: string;
  message: string;
  offset?: number;
}

/** When a worker's ticks are due: tick k at startMs + k * intervalMs, on CLOCK_MONOTONIC in ms (src/common/monotonic-clock.ts). */
export interface LoopSchedule {
  startMs: number;
  intervalMs: number;
  /** Every this many ticks, from tick 1, opens a round: a block is allocated, and the directory resolved. */
  roundTicks: number;
  /** Tick k writes the pattern of seed seedBase + k. */
  seedBase: number;
  /** The name a resolution record carries. */
  resolveName: string;
  dir: string;
  /** Where `dir` led at start (else EDIRCHANGED). */
  pinned?: string;
  /** The probe file's block size, rounded up to the device's direct I/O alignment when it is made. */
  ioSize: number;
  direct: boolean;
  sync: SyncMode;
}

/** A directory that resolves otherwise than at the last round (or for the first time); no `resolution` when it failed. The prober acts on it, beside passing the batch's JSON on unread. */
export interface LoopNotice {
  kind: 'resolved';
  name: string;
  resolution?: ResolveResult;
}

/** A batch of every worker's records, in the order they were recorded (on CLOCK_MONOTONIC). */
export type RecordsListener = (coveredMs: number, recordsJson: string, notices: LoopNotice[]) => void;

/** When the inspection under way began: on CLOCK_MONOTONIC, and on the wall clock (ms since the epoch). */
export interface InFlight {
  sinceMs: number;
  wallMs: number;
}

/** Filesystems whose "disk" is memory: timing them says nothing about a device. */
export const MEMORY_FS_MAGICS: ReadonlySet<number> = new Set([
  0x01021994, // tmpfs
  0x858458f6, // ramfs
]);

/**
 * A failed probe syscall. `code` is the errno name (`errno` its number), or
 * one of slowdisk's own codes, which have `errno` 0:
 * - `ECORRUPT`: the block read back differs from what was written; `offset`
 *   is the file offset of the first differing byte.
 * - `ENOTOURS`: on release, the probe file's name no longer holds this
 *   prober's file, so nothing was removed.
 * - `EOTHERFS`: the probe file (`path`) is missing and its directory is now on
 *   another filesystem than the one the file was made on, so no file was made
 *   there: the filesystem was unmounted from under the directory, or another
 *   one was mounted onto it.
 * - `EDIRCHANGED`: the directory (`path`) leads through a symlink somewhere
 *   else than where it led at start; nothing is probed there.
 * - `ENAMETAKEN`: the probe file's name (`path`) holds something that is not
 *   this prober's file (a symlink, a hard link, a file made after ours was
 *   removed, even one with its inode number); the message says what, and it
 *   is left untouched.
 * - `EPROBER`: a fault of the prober itself, not of the disk.
 */
export class ProbeError extends Error {
  readonly code: string;
  readonly errno: number;
  readonly syscall: string;
  readonly path: string;
  readonly offset?: number;

  constructor(
    message: string,
    fields: { code: string; errno: number; syscall: string; path: string; offset?: number },
  ) {
    super(message);
    this.name = 'ProbeError';
    this.code = fields.code;
    this.errno = fields.errno;
    this.syscall = fields.syscall;
    this.path = fields.path;
    if (fields.offset !== undefined) this.offset = fields.offset;
  }
}

interface NativeWorker {
  resolve(dir: string, pinned?: string): Promise<ResolveResult>;
  schedule(loop: LoopSchedule): void;
  place(name: string, fromTick: number, device?: string): void;
  inFlightSince(): InFlight | null;
  release(): Promise<void>;
  stop(): Promise<void>;
}

interface NativeAddon {
  ProbeWorker: new (name: string) => NativeWorker;
  listen(callback: RecordsListener): void;
  flushEvery(startMs: number, periodMs: number, slackMs: number): void;
  flushNow(): void;
  /** Absent from an addon older than the package's JS. */
  abstractSocketListener?(name: string): SocketListener | null;
}

/** Who listens on an abstract Unix socket: the pid and effective uid of the process that called listen() on it. */
export interface SocketListener {
  pid: number;
  uid: number;
}

const requireHere = createRequire(import.meta.url);

/** The addon could not be loaded: its message is one line naming the file tried and why. */
export class AddonLoadError extends Error {
  override readonly name = 'AddonLoadError';
}

/** The addon file node-gyp-build picks: build/Release (a build from source), else the prebuild for this platform. */
function addonFile(): string {
  const override = process.env['SLOWDISK_ADDON'];
  if (override) return override;
  try {
    return (requireHere('node-gyp-build') as { path(dir: string): string }).path(PACKAGE_ROOT);
  } catch {
    throw new AddonLoadError(
      `no native addon for linux-${process.arch} in ${path.join(PACKAGE_ROOT, 'build/Release')} or ${path.join(PACKAGE_ROOT, 'prebuilds', `linux-${process.arch}`)}: ` +
        'install slowdisk again (npm rebuild -g slowdisk), which builds one from source when no prebuilt one fits; in a clone, `node scripts/install/install.mjs` builds one for this machine',
    );
  }
}

let addon: NativeAddon | undefined;

// Loaded on first use, so that code which never probes (--help, config checks) works without one.
function loadAddon(): NativeAddon {
  if (addon === undefined) {
    const file = addonFile();
    // dlopen whatever the file's name: require would run a .js, or parse a .json.
    const module = { exports: {} as Partial<NativeAddon> };
    try {
      process.dlopen(module, file);
    } catch (cause) {
      throw new AddonLoadError(`cannot load the native addon ${file}: ${whyNotLoaded(file, cause as Error)}`, { cause });
    }
    if (typeof module.exports.ProbeWorker !== 'function') throw new AddonLoadError(`cannot load the native addon ${file}: it is not slowdisk's (no ProbeWorker)`);
    addon = module.exports as NativeAddon;
  }
  return addon;
}

/** Loads the addon now rather than at first use; throws an AddonLoadError. */
export function loadAddonNow(): void {
  loadAddon();
}

function isNativeFailure(e: unknown): e is Error & ConstructorParameters<typeof ProbeError>[1] {
  return (
    e instanceof Error &&
    typeof (e as { code?: unknown }).code === 'string' &&
    typeof (e as { syscall?: unknown }).syscall === 'string'
  );
}

function toProbeError(e: unknown): never {
  if (!isNativeFailure(e)) throw e;
  throw new ProbeError(e.message, e);
}

// Programmer errors throw synchronously, before anything is queued.
function requireString(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') {
    throw new TypeError(`${name} must be a non-empty string`);
  }
  return value;
}

function requireInteger(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw new RangeError(`${name} must be an integer from ${min} to ${max}, got ${String(value)}`);
  }
  return value;
}

function requireBoolean(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`${name} must be a boolean`);
  return value;
}

// The header has to fit in one block; the file is 65 blocks.
const MIN_IO_SIZE = 512;
const MAX_IO_SIZE = 64 * 1024 * 1024;

export class ProbeWorker {
  readonly #native: NativeWorker;

  /** `name` labels the native thread (first 15 characters) and error messages. */
  constructor(name: string) {
    this.#native = new (loadAddon().ProbeWorker)(requireString(name, 'name'));
  }

  /**
   * Which mount and device `dir` lives on, and where it leads; fails with ENOTDIR for a
   * non-directory, and with EDIRCHANGED when it no longer leads to `pinned`.
   */
  resolve(dir: string, pinned?: string): Promise<ResolveResult> {
    const args: [string, string?] = [requireString(dir, 'dir')];
    if (pinned !== undefined) args.push(requireString(pinned, 'pinned'));
    return this.#native.resolve(...args).catch(toProbeError);
  }

  /**
   * From now on the worker's thread inspects on the schedule's deadlines by itself: no JS
   * call, and no JS wakeup, per tick. Its records go to listenForRecords().
   */
  schedule(loop: LoopSchedule): void {
    if (loop.sync !== 'fdatasync' && loop.sync !== 'fsync') {
      throw new TypeError(`sync must be 'fdatasync' or 'fsync', got ${String(loop.sync)}`);
    }
    this.#native.schedule({
      startMs: loop.startMs,
      intervalMs: loop.intervalMs,
      roundTicks: requireInteger(loop.roundTicks, 'roundTicks', 1, 1e6),
      seedBase: requireInteger(loop.seedBase, 'seedBase', 0, Number.MAX_SAFE_INTEGER),
      resolveName: requireString(loop.resolveName, 'resolveName'),
      dir: requireString(loop.dir, 'dir'),
      ...(loop.pinned === undefined ? {} : { pinned: requireString(loop.pinned, 'pinned') }),
      ioSize: requireInteger(loop.ioSize, 'ioSize', MIN_IO_SIZE, MAX_IO_SIZE),
      direct: requireBoolean(loop.direct, 'direct'),
      sync: loop.sync,
    });
  }

  /**
   * Inspects under `name` from tick `fromTick` on (one overdue runs at once). The thread makes
   * the probe file itself, as part of the first tick's inspection (after removing those that
   * dead runs left behind), under a new unpredictable name (O_EXCL|O_NOFOLLOW), and only on
   * the filesystem `device` (MAJ:MIN) if given (else the tick fails with EOTHERFS); it makes
   * the file again when it is missing, and a fresh one, at most once a round, when its name
   * was taken (those ticks are recorded as lost).
   */
  place(name: string, fromTick: number, device?: string): void {
    const args: [string, number, string?] = [requireString(name, 'name'), requireInteger(fromTick, 'fromTick', 1, Number.MAX_SAFE_INTEGER)];
    if (device !== undefined) args.push(requireString(device, 'device'));
    this.#native.place(...args);
  }

  /** When the tick's inspection under way began, or null. */
  inFlightSince(): InFlight | null {
    return this.#native.inFlightSince();
  }

  /**
   * Stops inspecting, once the inspection under way is done, and removes the probe files (each
   * only if its name still holds it, in its directory wherever that went); fails with the first
   * removal that failed, which stop() tries again.
   */
  release(): Promise<void> {
    return this.#native.release().catch(toProbeError);
  }

  /**
   * Stops inspecting, once the inspection under way is done, removes every probe file the
   * thread made that is still there, and ends the thread: later calls throw. Never settles
   * while the thread is stuck in the kernel.
   */
  stop(): Promise<void> {
    return this.#native.stop().catch(toProbeError);
  }
}

/**
 * Where every worker's records go, in batches: each holds every record made before `coveredMs`.
 * A result that changes what a user sees (a failure after successes, a new probe file, a new
 * resolution, a lost tick) is sent at once; the others in the next batch.
 */
export function listenForRecords(callback: RecordsListener): void {
  loadAddon().listen(callback);
}

/** Batches are sent at startMs + n * periodMs + slackMs, empty or not, and at once for an urgent record. */
export function flushRecordsEvery(startMs: number, periodMs: number, slackMs: number): void {
  loadAddon().flushEvery(startMs, periodMs, slackMs);
}

export function flushRecordsNow(): void {
  loadAddon().flushNow();
}

/**
 * Who listens on the abstract Unix socket `name` (its bytes after the leading NUL, trailing
 * NULs included), as the kernel says it (SO_PEERCRED on a connection, closed at once); null
 * when nothing does, or no addon can say. Waits on no disk.
 */
export function abstractSocketListener(name: string): SocketListener | null {
  try {
    return loadAddon().abstractSocketListener?.(name) ?? null;
  } catch (error) {
    if (error instanceof AddonLoadError) return null;
    throw error;
  }
}
