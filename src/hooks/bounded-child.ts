// A child process the CLI never waits on past its deadline. At the deadline its whole
// process group is killed and the CLI goes on at once: a process stuck in the kernel on a
// hung disk cannot exit until the disk answers, and nothing here may wait for that.
import { spawn } from 'node:child_process';

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
  /** 'capture': stdout and stderr are returned; 'stderr': both go to this process's stderr. */
  output: 'capture' | 'stderr';
}

export interface BoundedChildResult {
  outcome: ChildOutcome;
  output: string;
}

const MAX_CAPTURED_CHARS = 64 * 1024;

export function runBounded(file: string, args: string[], options: BoundedChildOptions): Promise<BoundedChildResult> {
  return new Promise((resolve) => {
    // Its own process group, so that the deadline kills what it started too.
    const child = spawn(file, args, {
      detached: true,
      env: options.env,
      stdio: ['pipe', options.output === 'capture' ? 'pipe' : 2, options.output === 'capture' ? 'pipe' : 2],
    });
    let output = '';
    const capture = (chunk: Buffer) => {
      if (output.length < MAX_CAPTURED_CHARS) output += chunk.toString();
    };
    child.stdout?.on('data', capture);
    child.stderr?.on('data', capture);
    let settled = false;
    const settle = (outcome: ChildOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      resolve({ outcome, output });
    };
    const deadline = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
      // Whatever is left of it must not keep this process alive or waiting.
      child.unref();
      child.stdin?.destroy();
      child.stdout?.destroy();
      child.stderr?.destroy();
      settle({ kind: 'timed-out' });
    }, options.timeoutMs);
    child.on('error', (error) => settle({ kind: 'not-started', message: error.message }));
    // Captured output is complete only once the pipes close; otherwise the exit is enough.
    child.on(options.output === 'capture' ? 'close' : 'exit', (code, signal) =>
      settle(signal === null ? { kind: 'exited', code: code ?? 0 } : { kind: 'signalled', signal }),
    );
    // A child that does not read its stdin closes it: EPIPE here is no error of ours.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.stdin ?? '');
  });
}
