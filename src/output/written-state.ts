// The drive history through the output writer: the state directory's lock, reads and saves
// are that process's syscalls, so that a state directory on a hung disk stalls it, never the run.
import path from 'node:path';
import type { DriveHistory } from '../drives/history.js';
import { STATE_FILE, StateStoreError, type OpenedState, type StateStore } from '../drives/state-file.js';
import { OutputError, type OutputWriter } from './output-writer.js';
import { lockOwnerOf } from '../common/run-lock.js';

function stateError(error: unknown): StateStoreError {
  if (error instanceof OutputError) return new StateStoreError(error.message, error.code);
  return new StateStoreError((error as Error).message);
}

class WrittenStateStore implements StateStore {
  readonly file: string;
  private readonly owner = lockOwnerOf(process.pid);

  constructor(
    private readonly writer: OutputWriter,
    readonly dir: string,
  ) {
    this.file = path.join(dir, STATE_FILE);
  }

  async save(history: DriveHistory): Promise<void> {
    await this.writer.request({ type: 'state-save', dir: this.dir, owner: this.owner, history }).catch((error) => {
      throw stateError(error);
    });
  }

  async close(): Promise<void> {
    await this.writer.request({ type: 'state-close', dir: this.dir, owner: this.owner }).catch(() => {});
  }
}

/** Opens the state directory in the writer, its lock naming this (the CLI's) process. */
export function stateOpenerOf(writer: OutputWriter): (dir: string, now: () => number) => Promise<OpenedState> {
  return async (dir, now) => {
    const resolved = path.resolve(dir);
    const opened = await writer
      .request<{ history: DriveHistory; problems: string[] }>({ type: 'state-open', dir: resolved, owner: lockOwnerOf(process.pid), nowMs: now() })
      .catch((error) => {
        throw stateError(error);
      });
    return { store: new WrittenStateStore(writer, resolved), ...opened };
  };
}
