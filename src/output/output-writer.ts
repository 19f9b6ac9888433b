// The CLI's side of the output writer: sends it what to write, and never waits on it: each
// request is a promise the caller bounds with withinDeadline. The writer is the prober of a
// probe run (prober-with-outputs.ts), or a process of its own for the drives alone
// (writer-child.ts); either way the CLI makes no syscall on an output's path.
import type { FromWriter, ToWriter, WriterError, WriterLink } from './writer-protocol.js';
import { PendingReplies } from '../common/pending-replies.js';
import { writeStderrLine } from '../common/visible-text.js';
import { WriterProcess } from './writer-process.js';

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

/**
 * The channel to what the session's prober process hosts beside the probes. A prober that
 * dies takes what it hosted with it; the one that replaces it hosts anew from its first message.
 */
export interface HostedChannel {
  /** False when no prober is there to take it. */
  send(message: unknown): boolean;
  onMessage(listener: (message: unknown) => void): void;
  /** A prober process ended (its reason names its pid and how). */
  onEnded(listener: (reason: string) => void): void;
}

export class OutputWriter {
  private readonly pending = new PendingReplies();
  private readonly failures = new Map<string, (error: OutputError) => void>();
  private ended: string | null = null;

  private constructor(private readonly link: WriterLink) {
    link.onReply((message) => this.receive(message));
    link.onEnded((reason, replacedBy) => this.lose(reason, replacedBy));
  }

  /** A process of its own (a run without probes). */
  static inProcess(): OutputWriter {
    return new OutputWriter(new WriterProcess());
  }

  /** Hosted by the session's prober: a prober that dies takes what it had open with it, and its replacement takes the later requests. */
  static hostedBy(channel: HostedChannel): OutputWriter {
    return new OutputWriter({
      send: (message) => channel.send(message),
      onReply: (listener) => channel.onMessage((message) => listener(message as FromWriter)),
      onEnded: (listener) => channel.onEnded(listener),
      end: () => {},
    });
  }

  /** Sends a request; resolves with the writer's answer, rejects with an OutputError, or never settles if its disk hangs. */
  request<T = void>(message: Request): Promise<T> {
    return this.pending.add<T>((id) => {
      if (!this.link.send({ ...message, id } as ToWriter)) this.pending.settle(id, new OutputError({ message: this.ended ?? 'the output writer is gone' }));
    });
  }

  /** Puts `text` at dir/name atomically (a textfile). */
  replaceFile(dir: string, name: string, text: string, mode: number): Promise<void> {
    return this.request({ type: 'replace', dir, name, text, mode });
  }

  /** The text of dir/name, or null when there is none; dir is made if missing. */
  readFile(dir: string, name: string): Promise<string | null> {
    return this.request<string | null>({ type: 'read', dir, name });
  }

  /** More of a file made by a `create` request; `onFailure` hears of the first write error. */
  append(file: string, text: string): void {
    this.link.send({ type: 'append', file, text });
  }

  /** Flushes and closes a file made by a `create` request: from then on, its writer's end is not its failure. */
  async closeFile(file: string): Promise<void> {
    await this.request({ type: 'close', file });
    this.failures.delete(file);
  }

  /** `listener` hears once that `file` is written no further: a write failed, or its writer ended. */
  onFailure(file: string, listener: (error: OutputError) => void): void {
    this.failures.set(file, listener);
  }

  /** At the end of the run: lets the writer go; one with a request still pending is stuck on a disk. */
  end(): void {
    this.link.end(this.pending.size > 0);
  }

  private receive(message: FromWriter): void {
    if (message.type === 'failed') {
      this.fail(message.file, new OutputError(message.error));
      return;
    }
    this.pending.settle(message.id, message.error ? new OutputError(message.error) : null, message.result);
  }

  private fail(file: string, error: OutputError): void {
    const listener = this.failures.get(file);
    this.failures.delete(file);
    listener?.(error);
  }

  private lose(reason: string, replacedBy?: number): void {
    this.ended = reason;
    if (replacedBy !== undefined) {
      // Each output that had a write under way says so itself, naming this reason.
      const lost = this.pending.size + this.failures.size;
      writeStderrLine(`${reason}; started a new one (pid ${replacedBy}); ${lost === 0 ? 'no write was under way' : `lost: ${lost} write${lost === 1 ? '' : 's'} under way`}`);
    }
    const error = new OutputError({ message: reason });
    this.pending.failAll(error);
    for (const file of [...this.failures.keys()]) this.fail(file, error);
  }
}
