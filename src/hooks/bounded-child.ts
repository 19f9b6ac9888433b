// A child process the CLI never waits on past its deadline. At the deadline its whole
// process group is ended and the CLI goes on at once: a process stuck in the kernel on a
// hung disk cannot exit until the disk answers, and nothing here may wait for that.
//
// What the child starts in the background must not outlive the run either, however the run
// ends (a SIGKILL too, which leaves the CLI no word). So the child runs in its own process
// group beside a guard: a shell that waits on a socket only the CLI holds the other end of.
// The kernel closes it when the CLI exits or dies, or the CLI closes it at the deadline; the
// guard then sends the group SIGTERM, and SIGKILL after a grace.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Socket } from 'node:net';

/** How long a child's group has between SIGTERM and SIGKILL. */
export const GROUP_KILL_GRACE_S = 2;

// The guard ignores SIGTERM so that it lives on to send SIGKILL; its stdout and stderr are
// not the child's, so that captured output ends when the child's does. fd 3 is the socket,
// which the child itself does not get.
const GUARDED = [
  `(trap '' TERM; read -r _ <&3; kill -TERM 0; sleep ${GROUP_KILL_GRACE_S}; kill -KILL 0) </dev/null >/dev/null 2>&1 &`,
  'exec 3<&-',
  'exec "$@"',
].join('\n');

export type ChildOutcome =
  | { kind: 'exited'; code: number }
  | { kind: 'signalled'; signal: NodeJS.Signals }
  | { kind: 'timed-out' }
  | { kind: 'not-started'; message: string };

export interface BoundedChildOptions {
  timeoutMs: number;
  /** Written to the child's stdin, which is then closed. */
  stdin?: string;
  env?: NodeJS.ProcessEnv;
  /**
   * 'capture': stdout and stderr are returned; 'stderr': both are relayed to this process's
   * stderr. Either way through pipes this process drains: a hook's write never waits on
   * where its output ends up (a log file on a frozen filesystem takes it through stderr's
   * own relay, terminal/file-stdio.ts, without blocking).
   */
  output: 'capture' | 'stderr';
}

export interface BoundedChildResult {
  outcome: ChildOutcome;
  output: string;
}

const MAX_CAPTURED_CHARS = 64 * 1024;

/** How long, after a hook exits, what it wrote is still read from its pipes when something it left running holds them. */
const RELAY_DRAIN_MS = 500;

export function runBounded(file: string, args: string[], options: BoundedChildOptions): Promise<BoundedChildResult> {
  return new Promise((resolve) => {
    // Its own process group, so that the deadline ends what it started too.
    const child = spawn('/bin/sh', ['-c', GUARDED, 'slowdisk-guard', file, ...args], {
      detached: true,
      env: options.env,
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    const guard = guardOf(child);
    let output = '';
    const capture = (chunk: Buffer) => {
      if (output.length < MAX_CAPTURED_CHARS) output += chunk.toString();
    };
    const take = options.output === 'capture' ? capture : (chunk: Buffer) => process.stderr.write(chunk);
    child.stdout!.on('data', take);
    child.stderr!.on('data', take);
    // Relayed output may come from what the hook leaves running: it must not keep the run alive.
    if (options.output === 'stderr') for (const stream of [child.stdout, child.stderr]) (stream as Socket).unref();
    let settled = false;
    const settle = (outcome: ChildOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ outcome, output });
    };
    const deadline = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // The group is gone already.
      }
      guard?.destroy();
      // Whatever is left of it must not keep this process alive or waiting.
      child.unref();
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      settle({ kind: 'timed-out' });
    }, options.timeoutMs);
    child.on('error', (error) => settle({ kind: 'not-started', message: error.message }));
    // Captured output is complete only once its pipes close; otherwise the exit is enough.
    // ('close' would wait for the guard's socket too, which stays open until the run ends.)
    // Relayed output is waited for a moment only: what the hook left running may hold its pipes.
    const outputClosed = Promise.all([child.stdout, child.stderr].map((stream) => new Promise((done) => stream!.once('close', done))));
    child.once('exit', (code, signal) => {
      const relayed = options.output === 'capture' ? outputClosed : Promise.race([outputClosed, new Promise((done) => setTimeout(done, RELAY_DRAIN_MS).unref())]);
      void relayed.then(() => settle(signal === null ? { kind: 'exited', code: code ?? 0 } : { kind: 'signalled', signal }));
    });
    // A child that does not read its stdin closes it: EPIPE here is no error of ours.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.stdin ?? '');
  });
}

/** The CLI's end of the guard's socket: open for the run, and no reason to keep it running. */
function guardOf(child: ChildProcess): Socket | undefined {
  const socket = child.stdio[3] as Socket | null | undefined;
  socket?.unref();
  socket?.on('error', () => {});
  return socket ?? undefined;
}
