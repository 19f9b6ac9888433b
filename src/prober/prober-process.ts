// The prober: the only process that makes syscalls on the disks under test. Each directory's
// native thread runs its inspections on the schedule's deadlines by itself (the addon's
// TickLoop), making, keeping and removing its probe files itself, and their records come here
// in batches, about once a round, as JSON the addon wrote, passed on to the CLI unread. JS
// acts on placements, resolutions and the registry only. One hung disk holds its own thread
// only, and the prober outlives a stuck syscall only as long as the kernel makes it.
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
  type LoopNotice,
} from '../native/addon.js';
import type { ProbeParams } from '../probe/probe-params.js';
import { ProberRegistration } from './prober-registry.js';
import { EXIT_NO_ADDON, type FromProber, type Placement, type ProberSchedule, type ProbeTarget, type SerializedProbeError, type ToProber } from '../probe/prober-protocol.js';

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
  /** A let-go or a placement under way: the next waits for it. */
  busy: Promise<void>;
  /** The mount id of its filesystem, from its last resolution. */
  mntId: number | null;
}

const dirs: ProbedDir[] = [];
const dirOfName = new Map<string, ProbedDir>();
let probe: ProbeParams | null = null;
let stopping = false;
let host: ProberHost | null = null;
const registration = new ProberRegistration();
// Distinct data on every inspection, and across restarts, so a stale read cannot pass.
const seedBase = Math.floor(Math.random() * 2 ** 20) * 2 ** 32;

function send(message: FromProber): void {
  if (process.connected) process.send?.(message);
}

function serialize(error: unknown): SerializedProbeError {
  if (error instanceof ProbeError) {
    const { code, errno, syscall, path, message, offset } = error;
    return { code, errno, syscall, path, message, ...(offset === undefined ? {} : { offset }) };
  }
  return { code: 'EPROBER', errno: 0, syscall: '', path: '', message: String(error) };
}

/**
 * Runs `work` after the directory's earlier let-go or placement, whatever became of it: one
 * that failed must not leave the next undone.
 */
function after(dir: ProbedDir, work: () => Promise<void>): void {
  dir.busy = dir.busy.catch(() => {}).then(work);
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
        await dir.worker.release().then(
          () => send({ type: 'released', name: left.name }),
          (error) => send({ type: 'released', name: left.name, error: serialize(error) }),
        );
        registration.remove(left.name);
      }
      // Placed again meanwhile: the later placement is the one that stands.
      if (!next || dir.placed !== next || stopping) return;
      if (next.device !== undefined) registration.probing(next.name, next.device, dir.mntId);
      dir.worker.place(next.name, message.fromTick, next.device);
    });
  }
}

/** A batch of every thread's records, passed on as one message, as the addon wrote it. */
function onRecords(coveredMs: number, recordsJson: string, notices: LoopNotice[]): void {
  if (stopping || !probe) return;
  for (const notice of notices) act(notice);
  noteStuck(coveredMs);
  send({ type: 'batch', coveredMs, recordsJson });
}

function act(notice: LoopNotice): void {
  const dir = dirOfName.get(notice.name);
  if (!dir || !notice.resolution) return;
  dir.target.resolvedDir ??= notice.resolution.resolvedDir;
  dir.mntId = notice.resolution.mntId;
  if (dir.placed?.device !== undefined) registration.probing(dir.placed.name, dir.placed.device, dir.mntId);
}

/**
 * Keeps the registry's entry of each placed disk: once its inspection has been in flight for
 * hangAfterMs, since when it is stuck, so that no later run starts a second prober there.
 * Batches come at least once a second even while every thread is stuck.
 */
function noteStuck(nowMs: number): void {
  for (const dir of dirs) {
    if (!dir.placed) continue;
    const inFlight = dir.worker.inFlightSince();
    registration.stuck(dir.placed.name, inFlight !== null && nowMs - inFlight.sinceMs >= probe!.hangAfterMs ? Math.round(inFlight.wallMs) : null);
  }
}

function schedule(plan: ProberSchedule, params: ProbeParams): void {
  for (const dir of dirs) {
    dir.worker.schedule({
      startMs: plan.startMs,
      intervalMs: plan.intervalMs,
      roundTicks: plan.roundTicks,
      seedBase,
      resolveName: dir.target.name,
      dir: dir.target.dir,
      ...(dir.target.resolvedDir === undefined ? {} : { pinned: dir.target.resolvedDir }),
      ioSize: params.ioSize,
      direct: params.direct,
      sync: params.sync,
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

/** Records the paths in `leaving` that have an inspection in flight as stuck since it started. */
function recordLeft(leaving: readonly string[] | 'in-flight'): void {
  for (const dir of dirs) {
    const name = dir.placed?.name;
    const inFlight = dir.worker.inFlightSince();
    if (name === undefined || inFlight === null) continue;
    if (leaving === 'in-flight' || leaving.includes(name)) registration.stuck(name, Math.round(inFlight.wallMs));
  }
}

/**
 * Removes every probe file, each after its directory's pending I/O, saying so path by path
 * (a CLI leaving a hung disk behind waits for the others only), then exits. The paths in
 * `leaving` (all those with an inspection in flight, when the CLI is gone unannounced) are
 * recorded as stuck at once: this prober stays there until the disk lets it go. A CLI that
 * goes while a stop it asked for still waits on a path leaves that path behind too: it is
 * recorded then, not only once its inspection has been in flight for hangAfterMs, so that a
 * run started meanwhile finds it. A stop the CLI asked for leaves a busy host its channel
 * until the CLI lets go of it.
 */
async function shutdown(leaving: readonly string[] | 'in-flight'): Promise<void> {
  recordLeft(leaving);
  if (stopping) return;
  stopping = true;
  send({ type: 'stopping' });
  await Promise.allSettled(
    dirs.map(async (dir) => {
      const name = dir.placed?.name ?? dir.target.name;
      await dir.busy.catch(() => {});
      await dir.worker.stop().catch(() => {});
      registration.remove(name);
      for (const each of dir.names) send({ type: 'released', name: each });
    }),
  );
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
      dir = { target, names: [], worker: new ProbeWorker(target.name), placed: null, busy: Promise.resolve(), mntId: null };
      byDir.set(target.dir, dir);
      dirs.push(dir);
    }
    dir.names.push(target.name);
    dirOfName.set(target.name, dir);
  }
  listenForRecords(onRecords);
}

function handle(message: ToProber): void {
  if (message.type === 'hosted') {
    host?.handle(message.message);
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
      if (probe) schedule(message.schedule, probe);
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
