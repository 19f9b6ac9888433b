// The prober: the only process that makes syscalls on the disks under test. Each directory's
// native thread runs its inspections on the schedule's deadlines by itself (the addon's
// TickLoop), and their records come here in batches, about once a round, as JSON the addon
// wrote, passed on to the CLI unread. JS acts per inspection only when a probe file has to be
// made: at a disk's first tick, and when its name was taken. One hung disk holds its own
// thread only, and the prober outlives a stuck syscall only as long as the kernel makes it.
// The process may host more beside the probes (startProber's `host`): the outputs of a run,
// so that they take no process of their own.
import {
  AddonLoadError,
  loadAddonNow,
  ProbeError,
  ProbeWorker,
  flushRecordsEvery,
  flushRecordsNow,
  listenForRecords,
  type ErrorFields,
  type LoopNotice,
  type ProbeFile,
} from '../native/addon.js';
import type { ProbeParams } from './probe-params.js';
import { replaceFile } from '../common/exclusive-file.js';
import { wallOf } from '../common/monotonic-clock.js';
import { ProberRegistration } from './prober-registry.js';
import { EXIT_NO_ADDON, type FromProber, type InspectedRecord, type Placement, type ProberSchedule, type ProbeTarget, type SerializedProbeError, type ToProber } from './protocol.js';

/** What a prober process hosts beside the probes: it gets the CLI's `hosted` messages, even while the prober stops. */
export interface ProberHost {
  handle(message: unknown): void;
  /** Work is under way or open (a file the CLI has not closed): after a stop the CLI asked for, the process stays until the CLI lets it go. */
  busy(): boolean;
}

/** A directory, probed by its own thread under whichever of its names is placed. */
interface ProbedDir {
  /** Its first target: the name it is resolved under, and where it led at start. */
  target: ProbeTarget;
  names: string[];
  worker: ProbeWorker;
  placed: Placement | null;
  file: ProbeFile | null;
  /**
   * Files let go so far. One let go while another filesystem was mounted over it was out
   * of reach then, and may be back by the time the prober exits, which removes it.
   */
  released: ProbeFile[];
  /** A let-go or a placement under way: the next waits for it. */
  busy: Promise<void>;
  /** The mount id of its filesystem, from its last resolution. */
  mntId: number | null;
  /** Recorded in the registry as stuck since then (wall clock), if it is. */
  stuckSinceMs: number | null;
  /**
   * Once its probe file's name is taken, the thread answers each tick as lost itself,
   * neither counted nor charged, until a fresh file is armed. One is made at most once a
   * round (from `retryTick`), so that whoever takes each one cannot make the prober write
   * 260 KiB a tick into the directory; the thread says contested when one is taken before
   * it was ever inspected.
   */
  retryTick: number;
  making: boolean;
}

const dirs: ProbedDir[] = [];
const dirOfName = new Map<string, ProbedDir>();
let probe: ProbeParams | null = null;
let roundTicks = 1;
let stopping = false;
let host: ProberHost | null = null;
const registration = new ProberRegistration();
// Distinct data on every inspection, and across restarts, so a stale read cannot pass.
const seedBase = Math.floor(Math.random() * 2 ** 20) * 2 ** 32;

function send(message: FromProber): void {
  if (process.connected) process.send?.(message);
}

function serialize(error: unknown): SerializedProbeError {
  if (error instanceof ProbeError || isErrorFields(error)) {
    const { code, errno, syscall, path, message, offset } = error;
    return { code, errno, syscall, path, message, ...(offset === undefined ? {} : { offset }) };
  }
  return { code: 'EPROBER', errno: 0, syscall: '', path: '', message: String(error) };
}

function isErrorFields(error: unknown): error is ErrorFields {
  return typeof error === 'object' && error !== null && typeof (error as ErrorFields).code === 'string' && typeof (error as ErrorFields).syscall === 'string';
}

const nsToMs = (ns: number): number => ns / 1e6;

/**
 * Makes the directory's probe file, after removing those that dead runs left behind; only on
 * the filesystem `device` it is placed on, as an inspection re-creates one only on its own.
 */
async function prepare(dir: ProbedDir, params: ProbeParams, device: string | undefined): Promise<{ file: ProbeFile; staleRemoved: string[] }> {
  const { target } = dir;
  if (device !== undefined) {
    const { devMajor, devMinor } = await dir.worker.resolve(target.dir, target.resolvedDir);
    const actual = `${devMajor}:${devMinor}`;
    if (actual !== device) {
      const detail = `is on another filesystem (${actual}) than the one it is placed on (${device}); no probe file made there`;
      throw new ProbeError(`EOTHERFS: statx ${target.dir} ${detail}`, { code: 'EOTHERFS', errno: 0, syscall: 'statx', path: target.dir });
    }
  }
  const { staleRemoved, ...file } = await dir.worker.prepare(target.dir, {
    ioSize: params.ioSize,
    direct: params.direct,
    ...(target.resolvedDir === undefined ? {} : { resolvedDir: target.resolvedDir }),
  });
  target.resolvedDir ??= file.resolvedDir;
  return { file, staleRemoved };
}

/** A name race: something was put at a probe file's name (ENAMETAKEN), or made there first (EEXIST). */
function isNameLost(error: unknown): error is ProbeError {
  return error instanceof ProbeError && (error.code === 'ENAMETAKEN' || error.code === 'EEXIST');
}

/**
 * A fresh probe file for a directory whose file's name was taken, made beside the ticks
 * (each answered as lost by the thread meanwhile) and armed once made: the thread inspects it from the next
 * tick on, natively. Taken in its turn, it is noticed at that tick.
 */
async function makeFresh(dir: ProbedDir, params: ProbeParams, name: string, tick: number): Promise<void> {
  dir.making = true;
  dir.retryTick = tick + roundTicks;
  try {
    const { file } = await prepare(dir, params, dir.placed?.device);
    if (dir.placed?.name !== name || stopping || dir.file) {
      dir.released.push(file);
      await dir.worker.remove(file).catch(() => {});
      return;
    }
    dir.file = file;
    dir.worker.arm(file, params.direct, params.sync);
  } catch (error) {
    // Failing to make one (a full disk) is the disk's: the next tick is asked of JS, which
    // tries inline and says so.
    if (!isNameLost(error) && dir.placed?.name === name && !stopping) dir.worker.place(name, 0);
  } finally {
    dir.making = false;
  }
}

/**
 * The tick a thread asked of JS: a probe file is made (a path gets one as part of its first
 * inspection, so that a disk that hangs at start is scored like any other hang) and
 * inspected, and the thread inspects it from the next tick on. One whose name is taken
 * before it is inspected makes the tick lost, and a fresh file is made beside the ticks.
 */
async function inspectAsked(dir: ProbedDir, params: ProbeParams, ask: LoopNotice & { kind: 'ask' }): Promise<void> {
  const { name, tick } = ask;
  // Stamped with the time it is recorded at by the addon.
  let record: Omit<InspectedRecord, 'atMs'>;
  let prepared: Awaited<ReturnType<typeof prepare>> | null = null;
  try {
    prepared = dir.file ? null : await prepare(dir, params, dir.placed?.device);
    const file = prepared?.file ?? dir.file!;
    const result = await dir.worker.inspect({
      file,
      block: tick,
      direct: params.direct,
      sync: params.sync,
      seed: seedBase + tick,
      // A file made just now has just been given all its blocks.
      freshBlock: ask.freshBlock && !prepared,
    });
    // The old file is removed at exit, wherever its directory went.
    if (result.dirReplaced) dir.released.push(file);
    dir.file = result.created ? { ...file, ino: result.ino, identity: result.identity } : file;
    const staleRemoved = prepared?.staleRemoved ?? [];
    record = {
      kind: 'inspected',
      name,
      tick,
      created: result.created,
      ...(staleRemoved.length > 0 ? { staleRemoved } : {}),
      timings: {
        openMs: nsToMs(result.openNs),
        writeMs: nsToMs(result.writeNs),
        syncMs: nsToMs(result.syncNs),
        readMs: nsToMs(result.readNs),
        closeMs: nsToMs(result.closeNs),
        totalMs: nsToMs(result.totalNs),
      },
    };
  } catch (error) {
    if (!isNameLost(error)) {
      record = { kind: 'inspected', name, tick, error: serialize(error) };
    } else {
      // Taken between its making and its inspection: ours wherever it was put, removed at
      // exit if it is back under its name. The thread answers the next ticks as lost.
      if (prepared) dir.released.push(prepared.file);
      dir.file = null;
      record = { kind: 'inspected', name, tick, lost: serialize(error) };
      if (!dir.making) void makeFresh(dir, params, name, tick);
    }
  }
  // Let go meanwhile: the file made is removed, and the thread is handed back idle.
  if (dir.placed?.name !== name) {
    dir.worker.complete(null, false);
    const made = dir.file;
    dir.file = null;
    if (made) {
      // Removed now if it can be, else at exit with the others let go.
      dir.released.push(made);
      await dir.worker.remove(made).catch(() => {});
    }
    return;
  }
  if (dir.file) dir.worker.arm(dir.file, params.direct, params.sync);
  dir.worker.complete(JSON.stringify(record), record.error !== undefined, !dir.file && record.lost ? record.lost : undefined);
}

/**
 * Runs `work` after the directory's earlier let-go, placement or asked tick, whatever became
 * of it: one that failed must not leave the next undone (an asked tick not done keeps the
 * thread from ever inspecting again).
 */
function after(dir: ProbedDir, work: () => Promise<void>): void {
  dir.busy = dir.busy.catch(() => {}).then(work);
}

/** Stops inspecting the directory, once its inspection under way is done, and removes its probe files. */
async function letGo(dir: ProbedDir): Promise<void> {
  const { identity, replaced } = await dir.worker.release();
  const file = dir.file;
  dir.file = null;
  if (!file) return;
  // The thread's own view of the file: it made it again, or a new directory took its place.
  const files = [...replaced.map((id) => ({ ...file, identity: id })), identity === null ? file : { ...file, identity }];
  dir.released.push(...files);
  await Promise.all(files.map((each) => dir.worker.remove(each)));
}

function place(message: { disks: Placement[]; fromTick: number }): void {
  const wanted = new Map(message.disks.map((disk) => [disk.name, disk]));
  for (const dir of dirs) {
    const name = dir.names.find((each) => wanted.has(each));
    const next = name === undefined ? null : wanted.get(name)!;
    const same = dir.placed !== null && next !== null && dir.placed.name === next.name && dir.placed.device === next.device;
    if (same || (dir.placed === null && next === null)) continue;
    const left = dir.placed;
    dir.placed = next;
    after(dir, async () => {
      if (left) {
        await letGo(dir).then(
          () => send({ type: 'released', name: left.name }),
          (error) => send({ type: 'released', name: left.name, error: serialize(error) }),
        );
        registration.remove(left.name);
        dir.stuckSinceMs = null;
      }
      // Placed again meanwhile: the later placement is the one that stands.
      if (!next || dir.placed !== next || stopping) return;
      if (next.device !== undefined) registration.probing(next.name, next.device, dir.mntId);
      dir.worker.place(next.name, message.fromTick);
    });
  }
}

/** A batch of every thread's records, passed on as one message, as the addon wrote it. */
function onRecords(coveredMs: number, recordsJson: string, notices: LoopNotice[]): void {
  if (stopping || !probe) return;
  for (const notice of notices) act(notice, probe);
  noteStuck(coveredMs);
  send({ type: 'batch', coveredMs, recordsJson });
}

function act(notice: LoopNotice, params: ProbeParams): void {
  const dir = dirOfName.get(notice.name);
  if (!dir) return;
  switch (notice.kind) {
    case 'ask':
      after(dir, () => inspectAsked(dir, params, notice));
      return;
    case 'file':
      if (dir.file) dir.file = { ...dir.file, ino: notice.ino, identity: notice.identity };
      return;
    case 'lost':
      // Someone else's file, link or anything else at our name is theirs: left alone, and a
      // fresh file made beside the ticks. The old one is still ours to remove if it comes back.
      // A tick lost before the fresh file was armed says nothing of that one.
      if (dir.file && dir.file.path !== notice.nameTaken.path) return;
      if (dir.file) dir.released.push(dir.file);
      dir.file = null;
      if (!dir.making && notice.tick >= dir.retryTick && dir.placed?.name === notice.name) void makeFresh(dir, params, notice.name, notice.tick);
      return;
    case 'resolved':
      if (!notice.resolution) return;
      dir.target.resolvedDir ??= notice.resolution.resolvedDir;
      dir.mntId = notice.resolution.mntId;
      if (dir.placed?.device !== undefined) registration.probing(dir.placed.name, dir.placed.device, dir.mntId);
      return;
  }
}

/**
 * Keeps the registry's entry of each placed disk: once its inspection has been in flight for
 * hangAfterMs, since when it is stuck, so that no later run starts a second prober there.
 * Batches come at least once a second even while every thread is stuck.
 */
function noteStuck(nowMs: number): void {
  for (const dir of dirs) {
    if (!dir.placed) continue;
    const since = dir.worker.inFlightSince();
    const stuck = since !== null && nowMs - since >= probe!.hangAfterMs ? Math.round(wallOf(since)) : null;
    if ((stuck === null) === (dir.stuckSinceMs === null)) continue;
    dir.stuckSinceMs = stuck;
    registration.stuck(dir.placed.name, stuck);
  }
}

function schedule(plan: ProberSchedule): void {
  roundTicks = plan.roundTicks;
  for (const dir of dirs) {
    dir.worker.schedule({
      startMs: plan.startMs,
      intervalMs: plan.intervalMs,
      roundTicks: plan.roundTicks,
      seedBase,
      resolveName: dir.target.name,
      dir: dir.target.dir,
      ...(dir.target.resolvedDir === undefined ? {} : { pinned: dir.target.resolvedDir }),
    });
  }
  flushRecordsEvery(plan.startMs, plan.flushPeriodMs, plan.flushSlackMs);
}

function resolve(dir: ProbedDir): void {
  const { target } = dir;
  dir.worker.resolve(target.dir, target.resolvedDir).then(
    (resolution) => {
      target.resolvedDir ??= resolution.resolvedDir;
      dir.mntId = resolution.mntId;
      send({ type: 'resolved', name: target.name, resolution });
    },
    (error) => send({ type: 'resolved', name: target.name, error: serialize(error) }),
  );
}

/**
 * Removes every probe file, each after its directory's pending I/O, saying so path by path
 * (a CLI leaving a hung disk behind waits for the others only), then exits. The paths in
 * `leaving` (all those with an inspection in flight, when the CLI is gone unannounced) are
 * recorded as stuck at once: this prober stays there until the disk lets it go. A stop the
 * CLI asked for leaves a busy host its channel until the CLI lets go of it.
 */
async function shutdown(leaving: readonly string[] | 'in-flight'): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const dir of dirs) {
    const name = dir.placed?.name;
    const since = dir.worker.inFlightSince();
    if (name === undefined || since === null) continue;
    if (leaving === 'in-flight' || leaving.includes(name)) registration.stuck(name, Math.round(wallOf(since)));
  }
  send({ type: 'stopping' });
  await Promise.allSettled(
    dirs.map(async (dir) => {
      const name = dir.placed?.name ?? dir.target.name;
      await dir.busy.catch(() => {});
      await letGo(dir).catch(() => {});
      registration.remove(name);
      // remove() leaves alone whatever is not this very file, and a file already gone.
      await Promise.allSettled(dir.released.map((file) => dir.worker.remove(file)));
      for (const each of dir.names) send({ type: 'released', name: each });
    }),
  );
  for (const dir of dirs) dir.worker.close();
  registration.removeAll();
  send({ type: 'stopped' });
  if (leaving === 'in-flight' || !host?.busy() || !process.connected) process.exit(0);
  process.once('disconnect', () => process.exit(0));
}

function configure(targets: ProbeTarget[]): void {
  // A native thread per directory, not per name: names for one directory are one disk
  // (one of them inspected), and 2,000 of them would be 2,000 threads.
  const byDir = new Map<string, ProbedDir>();
  for (const target of targets) {
    let dir = byDir.get(target.dir);
    if (!dir) {
      dir = { target, names: [], worker: new ProbeWorker(target.name), placed: null, file: null, released: [], busy: Promise.resolve(), mntId: null, stuckSinceMs: null, retryTick: 0, making: false };
      byDir.set(target.dir, dir);
      dirs.push(dir);
    }
    dir.names.push(target.name);
    dirOfName.set(target.name, dir);
  }
  listenForRecords(onRecords);
}

/**
 * Puts an output file in place for the CLI, which makes no syscall on an output's path: on
 * libuv's threads, so that a directory on a hung disk holds one of them, never the probes.
 * The CLI keeps one write of a file in flight, and stops waiting for it after a deadline.
 */
function replace(message: ToProber & { type: 'replace' }): void {
  const { id, dir, name, text, mode } = message;
  replaceFile(dir, name, text, { mode }).then(
    () => send({ type: 'replaced', id }),
    (error: NodeJS.ErrnoException) => send({ type: 'replaced', id, error: { message: error.message, ...(error.code === undefined ? {} : { code: error.code }) } }),
  );
}

function handle(message: ToProber): void {
  if (message.type === 'hosted') {
    host?.handle(message.message);
    return;
  }
  if (message.type === 'replace') {
    if (stopping) send({ type: 'replaced', id: message.id, error: { message: 'the prober is stopping' } });
    else replace(message);
    return;
  }
  if (stopping) return;
  switch (message.type) {
    case 'configure':
      probe = message.probe;
      configure(message.targets);
      return;
    case 'stop':
      void shutdown(message.leaving ?? []);
      return;
    case 'schedule':
      schedule(message.schedule);
      return;
    case 'place':
      place(message);
      return;
    case 'resolve':
      for (const name of message.names) {
        const dir = dirOfName.get(name);
        if (dir) resolve(dir);
      }
      return;
    case 'flush':
      flushRecordsNow();
      return;
  }
}

/** Runs this process as the prober, hosting `hosted` beside the probes; returns how the host answers the CLI. */
export function startProber(hosted: ProberHost | null = null): (message: unknown) => void {
  try {
    loadAddonNow();
  } catch (error) {
    if (!(error instanceof AddonLoadError)) throw error;
    // One line, which the CLI shows as it is (a write to a pipe is synchronous on Linux).
    process.stderr.write(`${error.message}\n`);
    process.exit(EXIT_NO_ADDON);
  }
  host = hosted;
  // A working directory on a probed filesystem would keep it busy for umount.
  process.chdir('/');
  process.on('message', (message) => handle(message as ToProber));
  // The CLI is gone (it exited, or was killed): clean up and leave.
  process.on('disconnect', () => void shutdown('in-flight'));
  process.on('SIGTERM', () => void shutdown('in-flight'));
  process.on('SIGINT', () => void shutdown('in-flight'));
  // Whatever ends the process, no entry is left to name it.
  process.on('exit', () => registration.removeAll());
  send({ type: 'started' });
  return (message) => send({ type: 'hosted', message });
}
