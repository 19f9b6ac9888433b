// What writes the outputs the user names (--record, --state-dir, the drives' textfile): the
// CLI's requests, answered in its own time. Each output's requests run in order, and the
// outputs side by side on libuv's threads (widened for it: OUTPUT_THREADS, output-params.ts), so that one on a
// hung disk holds up neither the others nor the CLI, which stops waiting after a deadline. It
// runs in the prober of a probe run, and in a process of its own for the drives alone.
import { AppendedFile } from './appended-file.js';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { readRegular, replaceFile } from '../common/exclusive-file.js';
import { fsPath, withTextPath } from '../common/path-text.js';
import { untrustedPath } from '../common/trusted-dir.js';
import type { FileStateStore } from '../drives/state-file.js';
import type { LockOwner } from '../common/run-lock.js';
import type { FromWriter, ToWriter, WriterError } from './writer-protocol.js';

function serialize(error: unknown): WriterError {
  const e = error as NodeJS.ErrnoException;
  return { message: e?.message ?? String(error), ...(e?.code === undefined ? {} : { code: e.code }) };
}

export class OutputService {
  private readonly created = new Map<string, Promise<AppendedFile>>();
  private readonly stores = new Map<string, Promise<FileStateStore>>();
  /** Each output's last request: the next one runs after it. */
  private readonly queues = new Map<string, Promise<unknown>>();
  private running = 0;

  constructor(private readonly send: (message: FromWriter) => void) {}

  /** A request under way, or a trace or state directory the CLI has not closed. */
  busy(): boolean {
    return this.running > 0 || this.created.size > 0 || this.stores.size > 0;
  }

  handle(message: ToWriter): void {
    switch (message.type) {
      case 'replace':
        this.inOrder(`${message.dir}/${message.name}`, message.id, () => replaceFile(message.dir, message.name, message.text, { mode: message.mode }));
        return;
      case 'read':
        this.inOrder(`${message.dir}/${message.name}`, message.id, async () => {
          await mkdir(fsPath(message.dir), { recursive: true, mode: 0o700 }).catch((error: unknown) => {
            throw withTextPath(error, message.dir);
          });
          // What another user could have written there is no memory of ours.
          const untrusted = untrustedPath(message.dir, 'writable');
          if (untrusted !== null) throw new Error(`refusing the state directory ${message.dir}: ${untrusted}`);
          return readRegular(path.join(message.dir, message.name));
        });
        return;
      case 'create': {
        const onError = (error: Error) => this.send({ type: 'failed', file: message.file, error: serialize(error) });
        const file = AppendedFile.create(message.file, message.mode, onError).then((opened) => {
          opened.write(message.text);
          return opened;
        });
        file.catch(() => this.created.delete(message.file));
        this.created.set(message.file, file);
        this.inOrder(message.file, message.id, () => file.then(() => undefined));
        return;
      }
      case 'append':
        void this.created.get(message.file)?.then(
          (file) => file.write(message.text),
          () => {},
        );
        return;
      case 'close': {
        const file = this.created.get(message.file);
        // Done with, closed or failed: either way nothing more is written to it.
        this.inOrder(message.file, message.id, async () => {
          try {
            await (await file)?.close();
          } finally {
            this.created.delete(message.file);
          }
        });
        return;
      }
      case 'state-open': {
        // Loaded with the first state directory: a trace alone takes none of its memory.
        const opened = import('../drives/state-file.js').then(({ FileStateStore }) => FileStateStore.open(message.dir, () => message.nowMs, message.owner));
        const store = opened.then((state) => state.store);
        store.catch(() => this.stores.delete(message.dir));
        this.stores.set(message.dir, store);
        this.inOrder(message.dir, message.id, () => opened.then(({ history, problems }) => ({ history, problems })));
        return;
      }
      case 'state-save':
        this.inOrder(message.dir, message.id, async () => (await this.storeOf(message.dir, message.owner)).save(message.history));
        return;
      case 'state-close':
        this.inOrder(message.dir, message.id, async () => {
          try {
            await (await this.storeOf(message.dir, message.owner)).close();
          } finally {
            this.stores.delete(message.dir);
          }
        });
        return;
    }
  }

  /** Runs `work` after the output's earlier requests, and answers request `id` with its outcome. */
  private inOrder(output: string, id: number, work: () => Promise<unknown>): void {
    this.running++;
    const run = (this.queues.get(output) ?? Promise.resolve()).then(work);
    this.queues.set(output, run.catch(() => {}));
    run
      .then(
        (result) => this.send({ type: 'done', id, ...(result === undefined ? {} : { result }) }),
        (error) => this.send({ type: 'done', id, error: serialize(error) }),
      )
      .finally(() => this.running--);
  }

  /** The store `owner` opened here, or, in a writer that took over from a dead one, adopted. */
  private async storeOf(dir: string, owner: LockOwner): Promise<FileStateStore> {
    let store = this.stores.get(dir);
    if (!store) {
      store = import('../drives/state-file.js').then(({ FileStateStore }) => FileStateStore.adopt(dir, owner));
      store.catch(() => this.stores.delete(dir));
      this.stores.set(dir, store);
    }
    return store;
  }
}
