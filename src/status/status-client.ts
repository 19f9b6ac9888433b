// `slowdisk status`'s side of the socket: asks the service of a store for its snapshot, and
// never waits more than a deadline for it. It checks that the directory and the socket are
// root's (only then can the answer be the service's own), and reads at most a bounded answer.
import { lstatSync } from 'node:fs';
import { connect } from 'node:net';
import { untrustedDir } from '../common/trusted-dir.js';
import { socketPath, STATUS_DIR, storesServed } from './status-socket.js';
import { parseSnapshot, type StatusSnapshot } from './status-snapshot.js';

/** How long status waits for the whole answer. */
export const ANSWER_DEADLINE_MS = 1000;
/** The longest answer read: some 4,000 disks. */
const MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export type StatusAnswer =
  | { kind: 'answered'; snapshot: StatusSnapshot }
  /** No service: no socket, or a stale one nobody listens on. */
  | { kind: 'not-running'; reason: string }
  /** A service is there, and did not answer within the deadline. */
  | { kind: 'not-answering'; reason: string }
  /** Nothing can be learned (several stores and none named, a directory or socket not root's, a garbled answer). */
  | { kind: 'unknown'; reason: string };

/**
 * Why no service answers for `store` (or for none named): a plain `watch` or `check` serves no
 * status, so the reason says what does, and which stores a service answers for here.
 */
function notRunning(store: string | undefined, dir: string): StatusAnswer {
  // A killed service's socket stays behind: its store is not one served.
  const stores = storesServed(dir).filter((each) => each !== store);
  const served = stores.length === 0 ? 'no store is served here' : `the stores served here: ${stores.join(', ')}`;
  const what = store === undefined ? 'slowdisk is not running as a service' : `slowdisk is not running for the store '${store}'`;
  return { kind: 'not-running', reason: `${what} (only \`slowdisk watch --store NAME\` answers status; ${served})` };
}

/** The store to ask: the one named, or the only one served. */
function storeToAsk(store: string | undefined, dir: string): { store: string } | StatusAnswer {
  if (store !== undefined) return { store };
  const stores = storesServed(dir);
  if (stores.length === 0) return notRunning(undefined, dir);
  if (stores.length > 1) return { kind: 'unknown', reason: `several stores are served (${stores.join(', ')}): name one with --store` };
  return { store: stores[0]! };
}

export async function askStatus(store: string | undefined, dir: string = STATUS_DIR, deadlineMs: number = ANSWER_DEADLINE_MS): Promise<StatusAnswer> {
  try {
    lstatSync(dir);
  } catch {
    return notRunning(store, dir);
  }
  const untrusted = untrustedDir(dir);
  if (untrusted) return { kind: 'unknown', reason: `refusing the status directory: ${untrusted}` };
  const asked = storeToAsk(store, dir);
  if ('kind' in asked) return asked;
  const file = socketPath(asked.store, dir);
  const named = `the store '${asked.store}'`;
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    return notRunning(asked.store, dir);
  }
  if (!stat.isSocket() || stat.uid !== process.geteuid?.()) return { kind: 'unknown', reason: `refusing ${file}: not a socket of uid ${process.geteuid?.()}` };
  return new Promise((resolve) => {
    const socket = connect(file);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (answer: StatusAnswer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => settle({ kind: 'not-answering', reason: `slowdisk is not answering for ${named} (nothing within ${deadlineMs / 1000}s)` }), deadlineMs);
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ENOENT') settle(notRunning(asked.store, dir));
      else settle({ kind: 'unknown', reason: `cannot ask the service of ${named}: ${error.code}: ${error.syscall} ${file}` });
    });
    socket.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_ANSWER_BYTES) settle({ kind: 'unknown', reason: `the service of ${named} answered more than ${MAX_ANSWER_BYTES} bytes` });
      else chunks.push(chunk);
    });
    socket.on('end', () => {
      try {
        settle({ kind: 'answered', snapshot: parseSnapshot(Buffer.concat(chunks).toString('utf8')) });
      } catch (error) {
        settle({ kind: 'unknown', reason: `the service of ${named} gave no answer slowdisk reads: ${(error as Error).message}` });
      }
    });
  });
}
