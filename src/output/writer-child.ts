// The output writer: the only process that makes syscalls on the outputs the user names
// (--textfile, --record, --state-dir). Each output's requests run in order, and the outputs
// side by side (libuv's thread pool is widened for it by the CLI), so that one on a hung disk
// holds up neither the others nor the CLI, which stops waiting for it after a deadline.
import { FileStateStore, StateStoreError } from '../drives/state-file.js';
import { AppendedFile } from './appended-file.js';
import { replaceFile } from '../common/exclusive-file.js';
import type { FromWriter, ToWriter, WriterError } from './protocol.js';

// A working directory on an output's filesystem would keep it busy for umount.
process.chdir('/');

const created = new Map<string, Promise<AppendedFile>>();
const stores = new Map<string, Promise<FileStateStore>>();
/** Each output's last request: the next one runs after it. */
const queues = new Map<string, Promise<unknown>>();

function send(message: FromWriter): void {
  if (process.connected) process.send?.(message);
}

function serialize(error: unknown): WriterError {
  const e = error as NodeJS.ErrnoException;
  return { message: e?.message ?? String(error), ...(e?.code === undefined ? {} : { code: e.code }) };
}

/** Runs `work` after the output's earlier requests, and answers request `id` with its outcome. */
function inOrder(output: string, id: number, work: () => Promise<unknown>): void {
  const run = (queues.get(output) ?? Promise.resolve()).then(work);
  queues.set(output, run.catch(() => {}));
  run.then(
    (result) => send({ type: 'done', id, ...(result === undefined ? {} : { result }) }),
    (error) => send({ type: 'done', id, error: serialize(error) }),
  );
}

function storeOf(dir: string): Promise<FileStateStore> {
  const store = stores.get(dir);
  if (!store) return Promise.reject(new StateStoreError(`the state directory ${dir} is not open`));
  return store;
}

function handle(message: ToWriter): void {
  switch (message.type) {
    case 'replace':
      inOrder(`${message.dir}/${message.name}`, message.id, () => replaceFile(message.dir, message.name, message.text, { mode: message.mode }));
      return;
    case 'create': {
      const onError = (error: Error) => send({ type: 'failed', file: message.file, error: serialize(error) });
      const file = AppendedFile.create(message.file, message.mode, onError).then((opened) => {
        opened.write(message.text);
        return opened;
      });
      created.set(message.file, file);
      inOrder(message.file, message.id, () => file.then(() => undefined));
      return;
    }
    case 'append':
      void created.get(message.file)?.then(
        (file) => file.write(message.text),
        () => {},
      );
      return;
    case 'close':
      inOrder(message.file, message.id, async () => (await created.get(message.file))?.close());
      return;
    case 'state-open': {
      const opened = FileStateStore.open(message.dir, () => message.nowMs, message.owner);
      const store = opened.then((state) => state.store);
      store.catch(() => {});
      stores.set(message.dir, store);
      inOrder(message.dir, message.id, () => opened.then(({ history, problems }) => ({ history, problems })));
      return;
    }
    case 'state-save':
      inOrder(message.dir, message.id, async () => (await storeOf(message.dir)).save(message.history));
      return;
    case 'state-close':
      inOrder(message.dir, message.id, async () => (await storeOf(message.dir)).close());
      return;
  }
}

process.on('message', (message) => handle(message as ToWriter));
// The CLI is done with us (or gone): a request still stuck on a hung disk is abandoned.
process.on('disconnect', () => process.exit(0));
