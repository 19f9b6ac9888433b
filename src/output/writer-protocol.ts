// Messages between the CLI process and the output writer (Node IPC, advanced serialization:
// a drive history holds NaN). Each request names its output; the writer answers each with
// `done`, in its own time: the CLI never waits past OUTPUT_DEADLINE_MS for one.
import type { DriveHistory } from '../drives/history.js';
import type { LockOwner } from '../common/run-lock.js';

export type ToWriter =
  /** Replace dir/name atomically (the textfiles). */
  | { type: 'replace'; id: number; dir: string; name: string; text: string; mode: number }
  /** Create `file`, which must not exist, and write `text` (a trace and its header). */
  | { type: 'create'; id: number; file: string; text: string; mode: number }
  /** More of a created file, written in order; only a failure is answered (`failed`). */
  | { type: 'append'; file: string; text: string }
  /** Flush and close a created file. */
  | { type: 'close'; id: number; file: string }
  /** The text of dir/name (null: no such file), dir made (0700) if missing and refused unless only this user can write to it: a state file read at start. */
  | { type: 'read'; id: number; dir: string; name: string }
  | { type: 'state-open'; id: number; dir: string; owner: LockOwner; nowMs: number }
  /** `owner`: whose lock the directory holds, for a writer that took over from a dead one. */
  | { type: 'state-save'; id: number; dir: string; owner: LockOwner; history: DriveHistory }
  | { type: 'state-close'; id: number; dir: string; owner: LockOwner };

/** What failed: the message names the syscall, errno and path (a StateStoreError's is the whole line to show). */
export interface WriterError {
  message: string;
  code?: string;
}

export type FromWriter =
  | { type: 'done'; id: number; result?: unknown; error?: WriterError }
  /** An append to `file` failed (ENOSPC, EIO): told once, the later ones are dropped. */
  | { type: 'failed'; file: string; error: WriterError };

/** How the CLI reaches the process that writes: its own child (writer-process.ts), or the prober that hosts the writer. */
export interface WriterLink {
  /** False when no writer is there to take it. */
  send(message: ToWriter): boolean;
  onReply(listener: (message: FromWriter) => void): void;
  /** The writing process ended: what it had under way or open is lost with it. `replacedBy`: the pid of the one that takes the later requests. */
  onEnded(listener: (reason: string, replacedBy?: number) => void): void;
  /** The run is done with it; `stuck`: requests are still pending (a hung disk). */
  end(stuck: boolean): void;
}
