// The prober: the only process that makes syscalls on the disks under test. It runs each
// path's I/O on that path's own native thread, so one hung disk never holds up another,
// and it outlives a stuck syscall only as long as the kernel makes it.
import { ProbeError, ProbeWorker, type ProbeFile } from '../native/addon.js';
import type { ProbeParams } from './probe-params.js';
import { ProberRegistration } from './prober-registry.js';
import type { FromProber, InspectOrder, ProbeTarget, SerializedProbeError, ToProber } from './protocol.js';

interface ProbedPath {
  target: ProbeTarget;
  worker: ProbeWorker;
  file: ProbeFile | null;
  /**
   * Files released so far. One released while another filesystem was mounted over it was
   * out of reach then, and may be back by the time the prober exits, which removes it.
   */
  released: ProbeFile[];
  /** The inspection under way: its probe file may only exist once it returns. */
  busy: Promise<void>;
  /** Wall-clock start of the inspection under way, if one is. */
  inFlightSinceMs: number | null;
  /** The mount id of the path's filesystem, from its last resolution. */
  mntId: number | null;
}

// A working directory on a probed filesystem would keep it busy for umount.
process.chdir('/');

const paths = new Map<string, ProbedPath>();
let probe: ProbeParams | null = null;
let stopping = false;
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

const nsToMs = (ns: number): number => ns / 1e6;

/**
 * Makes the path's probe file, after removing those that dead runs left behind; only on the
 * filesystem `device` the path is placed on, as inspect re-creates one only on its own.
 */
async function prepare(
  path: ProbedPath,
  params: ProbeParams,
  device: string | undefined,
): Promise<{ file: ProbeFile; staleRemoved: string[] }> {
  const { target } = path;
  const { dir } = target;
  if (device !== undefined) {
    const { devMajor, devMinor } = await path.worker.resolve(dir, target.resolvedDir);
    const actual = `${devMajor}:${devMinor}`;
    if (actual !== device) {
      const detail = `is on another filesystem (${actual}) than the one it is placed on (${device}); no probe file made there`;
      throw new ProbeError(`EOTHERFS: statx ${dir} ${detail}`, { code: 'EOTHERFS', errno: 0, syscall: 'statx', path: dir });
    }
  }
  const { staleRemoved, ...file } = await path.worker.prepare(dir, {
    ioSize: params.ioSize,
    direct: params.direct,
    ...(target.resolvedDir === undefined ? {} : { resolvedDir: target.resolvedDir }),
  });
  target.resolvedDir ??= file.resolvedDir;
  path.file = file;
  return { file, staleRemoved };
}

/**
 * Keeps the registry's entry of the path: the filesystem it is on, and, once its inspection
 * has been in flight for hangAfterMs, since when it is stuck, so that no later run starts a
 * second prober there.
 */
async function inspect(path: ProbedPath, params: ProbeParams, tick: number, order: InspectOrder): Promise<void> {
  const name = path.target.name;
  const sinceMs = Date.now();
  path.inFlightSinceMs = sinceMs;
  if (order.device !== undefined) registration.probing(name, order.device, path.mntId);
  const stuckTimer = setTimeout(() => registration.stuck(name, sinceMs), params.hangAfterMs);
  try {
    await inspectOnce(path, params, tick, order);
  } finally {
    clearTimeout(stuckTimer);
    path.inFlightSinceMs = null;
    if (!stopping) registration.stuck(name, null);
  }
}

async function inspectOnce(path: ProbedPath, params: ProbeParams, tick: number, order: InspectOrder): Promise<void> {
  const { freshBlock } = order;
  try {
    // A path that has no probe file yet gets one as part of its inspection, so that a disk
    // that hangs at start is scored like any other hang.
    let prepared = path.file ? null : await prepare(path, params, order.device);
    let { file, staleRemoved } = prepared ?? { file: path.file!, staleRemoved: [] };
    const inspectFile = () =>
      path.worker.inspect({
        file,
        block: tick,
        direct: params.direct,
        sync: params.sync,
        seed: seedBase + tick,
        // A file made just now has just been given all its blocks.
        freshBlock: freshBlock && !prepared,
      });
    let nameTaken: SerializedProbeError | undefined;
    const result = await inspectFile().catch(async (error: unknown) => {
      if (!(error instanceof ProbeError && error.code === 'ENAMETAKEN')) throw error;
      // Someone else's file, link or anything else at our name is theirs: it is left alone,
      // and the disk is probed under a fresh name, so that whoever can write to the directory
      // cannot make a healthy disk look hung.
      nameTaken = serialize(error);
      path.file = null;
      prepared = await prepare(path, params, order.device);
      ({ file, staleRemoved } = prepared);
      return inspectFile();
    });
    // The old file is removed at exit, wherever its directory went.
    if (result.dirReplaced) path.released.push(file);
    if (result.created) path.file = { ...file, ino: result.ino, identity: result.identity };
    send({
      type: 'inspected',
      name: path.target.name,
      tick,
      created: result.created,
      ...(staleRemoved.length > 0 ? { staleRemoved } : {}),
      ...(nameTaken ? { nameTaken } : {}),
      timings: {
        openMs: nsToMs(result.openNs),
        writeMs: nsToMs(result.writeNs),
        syncMs: nsToMs(result.syncNs),
        readMs: nsToMs(result.readNs),
        closeMs: nsToMs(result.closeNs),
        totalMs: nsToMs(result.totalNs),
      },
    });
  } catch (error) {
    send({ type: 'inspected', name: path.target.name, tick, error: serialize(error) });
  }
}

function resolve(path: ProbedPath): void {
  const { target } = path;
  path.worker.resolve(target.dir, target.resolvedDir).then(
    (resolution) => {
      target.resolvedDir ??= resolution.resolvedDir;
      path.mntId = resolution.mntId;
      send({ type: 'resolved', name: target.name, resolution });
    },
    (error) => send({ type: 'resolved', name: path.target.name, error: serialize(error) }),
  );
}

async function release(path: ProbedPath): Promise<void> {
  const file = path.file;
  path.file = null;
  if (!file) return;
  path.released.push(file);
  await path.worker.remove(file);
}

/**
 * Removes every probe file, each after its path's pending I/O, saying so path by path (a CLI
 * leaving a hung disk behind waits for the others only), then exits. The paths in `leaving`
 * (all those with an inspection in flight, when the CLI is gone unannounced) are recorded as
 * stuck at once: this prober stays there until the disk lets it go.
 */
async function shutdown(leaving: readonly string[] | 'in-flight'): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const path of paths.values()) {
    const left = leaving === 'in-flight' || leaving.includes(path.target.name);
    if (left && path.inFlightSinceMs !== null) registration.stuck(path.target.name, path.inFlightSinceMs);
  }
  send({ type: 'stopping' });
  await Promise.allSettled(
    [...paths.values()].map(async (path) => {
      await path.busy;
      registration.remove(path.target.name);
      await release(path).catch(() => {});
      // remove() leaves alone whatever is not this very file, and a file already gone.
      await Promise.allSettled(path.released.map((file) => path.worker.remove(file)));
      send({ type: 'released', name: path.target.name });
    }),
  );
  for (const worker of new Set([...paths.values()].map((path) => path.worker))) worker.close();
  registration.removeAll();
  send({ type: 'stopped' });
  process.exit(0);
}

function handle(message: ToProber): void {
  if (stopping) return;
  if (message.type === 'configure') {
    probe = message.probe;
    // A native thread per directory, not per name: names for one directory are one disk
    // (one of them inspected), and 2,000 of them would be 2,000 threads.
    const workers = new Map<string, ProbeWorker>();
    for (const target of message.targets) {
      let worker = workers.get(target.dir);
      if (!worker) workers.set(target.dir, (worker = new ProbeWorker(target.name)));
      paths.set(target.name, {
        target,
        worker,
        file: null,
        released: [],
        busy: Promise.resolve(),
        inFlightSinceMs: null,
        mntId: null,
      });
    }
    return;
  }
  if (message.type === 'stop') {
    void shutdown(message.leaving ?? []);
    return;
  }
  if (!probe) return;
  switch (message.type) {
    case 'resolve':
      for (const name of message.names) {
        const path = paths.get(name);
        if (path) resolve(path);
      }
      return;
    case 'inspect':
      for (const order of message.disks) {
        const path = paths.get(order.name);
        if (path) path.busy = inspect(path, probe, message.tick, order);
      }
      return;
    case 'release': {
      const path = paths.get(message.name);
      if (!path) return;
      release(path).then(
        () => send({ type: 'released', name: path.target.name }),
        (error) => send({ type: 'released', name: path.target.name, error: serialize(error) }),
      );
      return;
    }
  }
}

process.on('message', (message) => handle(message as ToProber));
// The CLI is gone (it exited, or was killed): clean up and leave.
process.on('disconnect', () => void shutdown('in-flight'));
process.on('SIGTERM', () => void shutdown('in-flight'));
process.on('SIGINT', () => void shutdown('in-flight'));
// Whatever ends the process, no entry is left to name it.
process.on('exit', () => registration.removeAll());
