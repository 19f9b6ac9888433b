// The prober: the only process that makes syscalls on the disks under test. It runs each
// path's I/O on that path's own native thread, so one hung disk never holds up another,
// and it outlives a stuck syscall only as long as the kernel makes it.
import { ProbeError, ProbeWorker, type ProbeFile } from '../native/addon.js';
import type { ProbeParams } from '../params.js';
import type { FromProber, ProbeTarget, SerializedProbeError, ToProber } from './protocol.js';

interface ProbedPath {
  target: ProbeTarget;
  worker: ProbeWorker;
  file: ProbeFile | null;
  /** The inspection under way: its probe file may only exist once it returns. */
  busy: Promise<void>;
}

// A working directory on a probed filesystem would keep it busy for umount.
process.chdir('/');

const paths = new Map<string, ProbedPath>();
let probe: ProbeParams | null = null;
let stopping = false;
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

/** Makes the path's probe file, after removing those that dead runs left behind. */
async function prepare(path: ProbedPath, params: ProbeParams): Promise<{ file: ProbeFile; staleRemoved: string[] }> {
  const { staleRemoved, ...file } = await path.worker.prepare(path.target.dir, { ioSize: params.ioSize, direct: params.direct });
  path.file = file;
  return { file, staleRemoved };
}

async function inspect(path: ProbedPath, params: ProbeParams, tick: number): Promise<void> {
  try {
    // A path that has no probe file yet gets one as part of its inspection, so that a disk
    // that hangs at start is scored like any other hang.
    const { file, staleRemoved } = path.file ? { file: path.file, staleRemoved: [] } : await prepare(path, params);
    const result = await path.worker.inspect({
      file,
      block: tick,
      direct: params.direct,
      sync: params.sync,
      seed: seedBase + tick,
    });
    if (result.created) path.file = { ...file, ino: result.ino };
    send({
      type: 'inspected',
      name: path.target.name,
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
    });
  } catch (error) {
    send({ type: 'inspected', name: path.target.name, tick, error: serialize(error) });
  }
}

async function release(path: ProbedPath): Promise<void> {
  const file = path.file;
  path.file = null;
  if (file) await path.worker.remove(file);
}

/** Removes every probe file (each after its path's pending I/O), then exits. */
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await Promise.allSettled(
    [...paths.values()].map(async (path) => {
      await path.busy;
      await release(path);
    }),
  );
  for (const path of paths.values()) path.worker.close();
  send({ type: 'stopped' });
  process.exit(0);
}

function handle(message: ToProber): void {
  if (stopping) return;
  if (message.type === 'configure') {
    probe = message.probe;
    for (const target of message.targets) {
      paths.set(target.name, { target, worker: new ProbeWorker(target.name), file: null, busy: Promise.resolve() });
    }
    return;
  }
  if (message.type === 'stop') {
    void shutdown();
    return;
  }
  const path = paths.get(message.name);
  if (!path || !probe) return;
  switch (message.type) {
    case 'resolve':
      path.worker.resolve(path.target.dir).then(
        (resolution) => send({ type: 'resolved', name: path.target.name, resolution }),
        (error) => send({ type: 'resolved', name: path.target.name, error: serialize(error) }),
      );
      return;
    case 'inspect':
      path.busy = inspect(path, probe, message.tick);
      return;
    case 'release':
      release(path).then(
        () => send({ type: 'released', name: path.target.name }),
        (error) => send({ type: 'released', name: path.target.name, error: serialize(error) }),
      );
      return;
  }
}

process.on('message', (message) => handle(message as ToProber));
// The CLI is gone (it exited, or was killed): clean up and leave.
process.on('disconnect', () => void shutdown());
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
