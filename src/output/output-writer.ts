// The CLI's side of the output writer: spawns it, sends it what to write, and never waits on
// it: each request is a promise the caller bounds with withinDeadline. At the end of the run
// a writer still stuck on a hung disk is killed by PID; one in D state dies when its disk
// lets it, having renamed nothing into place, and the CLI has exited long before.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromWriter, ToWriter, WriterError } from './protocol.js';
import { PendingReplies } from '../common/pending-replies.js';
import { writeStderrLine } from '../common/visible-text.js';

// Both src/output and dist/output sit two levels below the package root.
const CHILD_PATH = fileURLToPath(new URL('../../dist/output/writer-child.js', import.meta.url));
/** libuv's threads run the file syscalls: enough for every output to have one stuck and still write the others. */
const THREADS = '16';

type Request = ToWriter extends infer M ? (M extends { id: number } ? Omit<M, 'id'> : never) : never;

/** At the end of a run: says on stderr which outputs were `notWritten` (nulls are those written). */
export function tellNotWritten(notWritten: readonly (string | null | undefined)[]): void {
  const unwritten = notWritten.filter((what) => typeof what === 'string');
  if (unwritten.length > 0) writeStderrLine(`not written: ${unwritten.join(', ')}`);
}

/** A write the writer reported failed (its message names the syscall, errno and path). */
export class OutputError extends Error {
  readonly code?: string;
  constructor(error: WriterError) {
    super(error.message);
    this.name = 'OutputError';
    this.code = error.code;
  }
}

export class OutputWriter {
  private readonly child: ChildProcess;
  private readonly pending = new PendingReplies();
  private readonly failures = new Map<string, (error: OutputError) => void>();
  private lost: string | null = null;

  constructor() {
    // Detached and unreferenced, as the prober: Ctrl-C reaches the CLI alone, and the CLI's
    // exit never waits for this process.
    this.child = fork(CHILD_PATH, [], {
      cwd: '/',
      detached: true,
      execArgv: [],
      env: { ...process.env, UV_THREADPOOL_SIZE: THREADS },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'advanced',
    });
    this.child.unref();
    this.child.channel?.unref();
    this.child.on('message', (message) => this.receive(message as FromWriter));
    this.child.on('error', (error) => this.lose(`the output writer could not run: ${error.message}`));
    this.child.on('exit', (code, signal) => this.lose(`the output writer (pid ${this.child.pid}) ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`));
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Sends a request; resolves with the writer's answer, rejects with an OutputError, or never settles if its disk hangs. */
  request<T = void>(message: Request): Promise<T> {
    if (this.lost === null && !this.child.connected) this.lost = 'the output writer is gone';
    if (this.lost !== null) return Promise.reject(new OutputError({ message: this.lost }));
    return this.pending.add<T>((id) => this.child.send({ ...message, id } as ToWriter));
  }

  /** Puts `text` at dir/name atomically (a textfile). */
  replaceFile(dir: string, name: string, text: string, mode: number): Promise<void> {
    return this.request({ type: 'replace', dir, name, text, mode });
  }

  /** More of a file made by a `create` request; `onFailure` hears of the first write error. */
  append(file: string, text: string): void {
    if (this.lost === null && this.child.connected) this.child.send({ type: 'append', file, text } satisfies ToWriter);
  }

  onFailure(file: string, listener: (error: OutputError) => void): void {
    this.failures.set(file, listener);
  }

  /**
   * At the end of the run: lets the writer go: it exits once disconnected; one with a request
   * still pending is stuck on a disk and is killed.
   */
  end(): void {
    if (this.pending.size > 0 && this.child.pid !== undefined && this.child.exitCode === null) {
      try {
        process.kill(this.child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    this.lost ??= 'the output writer was stopped';
    if (this.child.connected) this.child.disconnect();
  }

  private receive(message: FromWriter): void {
    if (message.type === 'failed') {
      this.failures.get(message.file)?.(new OutputError(message.error));
      return;
    }
    this.pending.settle(message.id, message.error ? new OutputError(message.error) : null, message.result);
  }

  private lose(reason: string): void {
    this.lost ??= reason;
    this.pending.failAll(new OutputError({ message: reason }));
  }
}
