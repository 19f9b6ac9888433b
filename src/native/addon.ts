// Typed face of the native probe layer (the addon node-gyp-build picks, or SLOWDISK_ADDON).
// Each ProbeWorker owns one native thread; its requests run in order there,
// and a failed request rejects with a ProbeError.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { whyNotLoaded } from './addon-file.js';

export type SyncMode = 'fdatasync' | 'fsync';

export interface ResolveResult {
  mntId: number;
  devMajor: number;
  devMinor: number;
  fsMagic: number;
  /** The directory with every symlink resolved (realpath). */
  resolvedDir: string;
}

export interface PrepareOptions {
  ioSize: number;
  direct: boolean;
  /** Where the directory led at start: the file is made there only (else EDIRCHANGED). */
  resolvedDir?: string;
}

export interface ProbeFile {
  /** `resolvedDir` and `name`: where the file is, as outputs show it. */
  path: string;
  /** The directory as given, checked on every request to still lead to `resolvedDir`. */
  dir: string;
  resolvedDir: string;
  name: string;
  /** For display only (above 2^53 it loses precision); `identity` is what is compared. */
  ino: number;
  /**
   * Opaque, made by the native layer: the file's device, inode and birth time (or inode
   * generation), its header's random token, and its directory's identity and file handle.
   */
  identity: string;
  /** The filesystem the file was made on: inspect makes a missing file again only there. */
  devMajor: number;
  devMinor: number;
  ioSize: number;
  align: number;
  alignSource: 'statx' | 'logical-block-size' | 'default';
  blocks: number;
}

export interface PrepareResult extends ProbeFile {
  staleRemoved: string[];
}

type NativePrepareResult = Omit<PrepareResult, 'dir'>;

export interface InspectRequest {
  file: ProbeFile;
  block: number;
  direct: boolean;
  sync: SyncMode;
  /** Pattern seed; use a new one for every inspection so each write carries new data. */
  seed: number;
  /**
   * After the timed round trip, untimed: write one block to an unnamed file in the probe
   * file's directory (O_TMPFILE, gone on close), so that a filesystem that cannot allocate
   * a block (full, or a thin-provisioned disk out of space) fails the inspection; rewrites
   * of the probe file's own blocks never need one. Skipped when the probe file was made
   * again, which allocated it all, and on a filesystem without O_TMPFILE.
   */
  freshBlock?: boolean;
}

/** An inspection's phases, in ns: open, write, sync, read (and compare), close, and the whole. */
export interface PhaseNs {
  openNs: number;
  writeNs: number;
  syncNs: number;
  readNs: number;
  closeNs: number;
  totalNs: number;
}

export interface InspectResult extends PhaseNs {
  /** The probe file was missing and was re-created (inside openNs) under the same path. */
  created: boolean;
  /**
   * Another directory had taken the path's place on the same filesystem (the old one was
   * renamed or removed): the new file is in it, the old one wherever the old directory went.
   */
  dirReplaced: boolean;
  /** The probe file's inode and identity: new ones when `created`. */
  ino: number;
  identity: string;
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
}

/**
 * What a batch tells the prober to act on, beside its records' JSON (src/native/batch-records.ts),
 * which it passes on unread: a tick asked of JS, a directory resolved otherwise, a probe file
 * made again by the thread itself.
 */
export type LoopNotice =
  /** No probe file is armed (none yet): JS makes one and inspects the tick, then calls complete(). */
  | { kind: 'ask'; name: string; tick: number; freshBlock: boolean }
  /** The tick was lost (recorded so): the probe file's name was taken, and no fresh file is armed yet; JS makes one. */
  | { kind: 'lost'; name: string; tick: number; nameTaken: ErrorFields }
  /** The directory resolves otherwise than at the last round (or for the first time); no `resolution` when it failed. */
  | { kind: 'resolved'; name: string; resolution?: ResolveResult }
  /** The thread made the probe file again, or another directory took its place: it inspects this file now. */
  | { kind: 'file'; name: string; ino: number; identity: string };

/** A batch of every worker's records, in the order they were recorded (on CLOCK_MONOTONIC). */
export type RecordsListener = (coveredMs: number, recordsJson: string, notices: LoopNotice[]) => void;

/** The probe files a released worker leaves to remove: its armed one, and those whose directory was replaced. */
export interface ReleasedFiles {
  identity: string | null;
  replaced: string[];
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
 * - `ENOTOURS`: on remove, the probe file's name no longer holds this
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

interface NativeInspectRequest {
  dir: string;
  resolvedDir: string;
  name: string;
  identity: string;
  block: number;
  blocks: number;
  ioSize: number;
  align: number;
  direct: boolean;
  sync: SyncMode;
  seed: number;
  freshBlock: boolean;
}

interface NativeWorker {
  schedule(startMs: number, intervalMs: number, roundTicks: number, seedBase: number, resolveName: string, dir: string, pinned?: string): void;
  place(name: string, fromTick: number): void;
  arm(file: Omit<NativeInspectRequest, 'block' | 'seed' | 'freshBlock'>): void;
  complete(json: string, failed: boolean, lost?: ErrorFields): number;
  inFlightSince(): number | null;
  release(): Promise<ReleasedFiles>;
  resolve(dir: string, pinned?: string): Promise<ResolveResult>;
  prepare(dir: string, ioSize: number, direct: boolean, resolvedDir?: string): Promise<NativePrepareResult>;
  inspect(request: NativeInspectRequest): Promise<InspectResult>;
  remove(resolvedDir: string, name: string, identity: string): Promise<void>;
  removeStale(dir: string): Promise<string[]>;
  close(): void;
}

interface NativeAddon {
  ProbeWorker: new (name: string) => NativeWorker;
  listen(callback: RecordsListener): void;
  flushEvery(startMs: number, periodMs: number, slackMs: number): void;
  flushNow(): void;
}

// The package root is two levels up from src/native (vitest) and dist/native alike.
const PACKAGE_ROOT = fileURLToPath(new URL('../../', import.meta.url));

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
        'install slowdisk again, which builds one from source when no prebuilt one fits (or `npm run build` in a clone)',
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
   * Removes stale probe files in `dir`, then creates this process's probe
   * file there. `ioSize` is rounded up to the device's direct I/O alignment.
   */
  prepare(dir: string, opts: PrepareOptions): Promise<PrepareResult> {
    const args: [string, number, boolean, string?] = [
      requireString(dir, 'dir'),
      requireInteger(opts.ioSize, 'ioSize', MIN_IO_SIZE, MAX_IO_SIZE),
      requireBoolean(opts.direct, 'direct'),
    ];
    if (opts.resolvedDir !== undefined) args.push(requireString(opts.resolvedDir, 'resolvedDir'));
    return this.#native.prepare(...args).then((prepared) => ({ ...prepared, dir }), toProbeError);
  }

  /**
   * One timed open, write, sync, read-back and close of block `block % file.blocks`, through
   * the directory `file.dir` led to at start (else EDIRCHANGED). A missing probe file is made
   * again, on the filesystem it was made on only (else EOTHERFS); one whose name holds
   * something else is left alone (ENAMETAKEN).
   */
  inspect(req: InspectRequest): Promise<InspectResult> {
    const { file } = req;
    if (req.sync !== 'fdatasync' && req.sync !== 'fsync') {
      throw new TypeError(`sync must be 'fdatasync' or 'fsync', got ${String(req.sync)}`);
    }
    return this.#native
      .inspect({
        dir: requireString(file.dir, 'file.dir'),
        resolvedDir: requireString(file.resolvedDir, 'file.resolvedDir'),
        name: requireString(file.name, 'file.name'),
        identity: requireString(file.identity, 'file.identity'),
        block: requireInteger(req.block, 'block', 0, Number.MAX_SAFE_INTEGER),
        blocks: requireInteger(file.blocks, 'file.blocks', 1, 64),
        ioSize: requireInteger(file.ioSize, 'file.ioSize', 1, MAX_IO_SIZE),
        align: requireInteger(file.align, 'file.align', 1, MAX_IO_SIZE),
        direct: requireBoolean(req.direct, 'direct'),
        sync: req.sync,
        seed: requireInteger(req.seed, 'seed', 0, Number.MAX_SAFE_INTEGER),
        freshBlock: requireBoolean(req.freshBlock ?? false, 'freshBlock'),
      })
      .catch(toProbeError);
  }

  /**
   * Unlinks the probe file if its name still holds it (same identity), in its directory
   * wherever that was renamed to since; an already missing file is fine. Anything else under
   * that name fails with ENOTOURS.
   */
  remove(file: Pick<ProbeFile, 'resolvedDir' | 'name' | 'identity'>): Promise<void> {
    return this.#native
      .remove(
        requireString(file.resolvedDir, 'resolvedDir'),
        requireString(file.name, 'name'),
        requireString(file.identity, 'identity'),
      )
      .catch(toProbeError);
  }

  /**
   * Removes probe files in `dir` whose writers are provably gone: their header names the pid
   * in their file name, this host, and either an earlier boot, or this boot and PID namespace
   * with that process gone. Returns their paths.
   */
  removeStale(dir: string): Promise<string[]> {
    return this.#native.removeStale(requireString(dir, 'dir')).catch(toProbeError);
  }

  /**
   * From now on the worker's thread inspects on the schedule's deadlines by itself: no JS
   * call, and no JS wakeup, per tick. Its records go to listenForRecords().
   */
  schedule(loop: LoopSchedule): void {
    const args: Parameters<NativeWorker['schedule']> = [
      loop.startMs,
      loop.intervalMs,
      requireInteger(loop.roundTicks, 'roundTicks', 1, 1e6),
      requireInteger(loop.seedBase, 'seedBase', 0, Number.MAX_SAFE_INTEGER),
      requireString(loop.resolveName, 'resolveName'),
      requireString(loop.dir, 'dir'),
    ];
    if (loop.pinned !== undefined) args.push(requireString(loop.pinned, 'pinned'));
    this.#native.schedule(...args);
  }

  /** Inspects under `name` from tick `fromTick` on (one overdue runs at once). */
  place(name: string, fromTick: number): void {
    this.#native.place(requireString(name, 'name'), requireInteger(fromTick, 'fromTick', 1, Number.MAX_SAFE_INTEGER));
  }

  /** The probe file the scheduled ticks inspect. */
  arm(file: ProbeFile, direct: boolean, sync: SyncMode): void {
    this.#native.arm({
      dir: requireString(file.dir, 'file.dir'),
      resolvedDir: requireString(file.resolvedDir, 'file.resolvedDir'),
      name: requireString(file.name, 'file.name'),
      identity: requireString(file.identity, 'file.identity'),
      blocks: requireInteger(file.blocks, 'file.blocks', 1, 64),
      ioSize: requireInteger(file.ioSize, 'file.ioSize', 1, MAX_IO_SIZE),
      align: requireInteger(file.align, 'file.align', 1, MAX_IO_SIZE),
      direct: requireBoolean(direct, 'direct'),
      sync,
    });
  }

  /**
   * The tick an `ask` record asked for is done: `record` (if any) goes into the batch, and
   * the thread's next tick is the first due after now. Returns the time it was recorded.
   * `lost`: the probe file's name was taken; until a file is armed, the thread answers each
   * tick as lost itself (a `lost` notice), without asking JS.
   */
  complete(record: string | null, failed: boolean, lost?: ErrorFields): number {
    return lost ? this.#native.complete(record ?? '', failed, lost) : this.#native.complete(record ?? '', failed);
  }

  /** When the tick's inspection under way started (CLOCK_MONOTONIC ms), or null. */
  inFlightSince(): number | null {
    return this.#native.inFlightSince();
  }

  /** Stops inspecting, once the inspection under way is done, and hands over the files to remove. */
  release(): Promise<ReleasedFiles> {
    return this.#native.release();
  }

  /**
   * Queued requests still run and settle; new ones throw. Returns at once,
   * even while the thread is stuck in the kernel.
   */
  close(): void {
    this.#native.close();
  }
}

/**
 * Where every worker's records go, in batches: each holds every record made before `coveredMs`.
 * A result that changes what a user sees (a failure after successes, a new probe file, a new
 * resolution, a tick asked of JS) is sent at once; the others in the next batch.
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
