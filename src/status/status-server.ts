// The service's side of `slowdisk status`: a Unix socket that, to each connection, writes the
// snapshot of the store as one JSON line and closes. It reads nothing a client sends, so a
// client can neither stop nor steer the service; the answer is made from memory and touches
// no disk; a client that does not read is dropped after a second, and at most a few are
// served at once, so a slow or hostile client cannot hold the service. The socket is bound
// under an unguessable name and renamed into place, so a stale socket of a dead service is
// replaced in one step; one that still answers is another service of the same store.
import { chmodSync, lstatSync, renameSync, unlinkSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { temporaryName } from '../common/exclusive-file.js';
import { socketPath, statusDir } from './status-socket.js';
import type { StatusSnapshot } from './status-snapshot.js';

/** A client is dropped this long after it connected, whatever it did. */
const CLIENT_DEADLINE_MS = 1000;
/** At most this many clients at once; more are refused by the kernel's backlog and our limit. */
const MAX_CLIENTS = 16;

/** Whether a service answers at `file` now (a live socket), within `ms`. */
function answers(file: string, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(file);
    const done = (live: boolean) => {
      socket.destroy();
      resolve(live);
    };
    socket.setTimeout(ms, () => done(true));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

export class StatusServer {
  private constructor(
    private readonly server: Server,
    private readonly file: string,
    private readonly inode: number,
  ) {}

  /** Binds the store's socket; rejects with one line when it cannot, or when a service of that store runs. */
  static async start(store: string, snapshot: () => StatusSnapshot, dir?: string): Promise<StatusServer> {
    const home = statusDir(dir);
    const file = socketPath(store, home);
    if (await answers(file, CLIENT_DEADLINE_MS)) throw new Error(`a slowdisk service already answers for the store '${store}' at ${file}`);
    const server = createServer((socket) => serve(socket, snapshot));
    server.maxConnections = MAX_CLIENTS;
    const temporary = path.join(home, temporaryName(store));
    await new Promise<void>((resolve, reject) => {
      server.once('error', (error: NodeJS.ErrnoException) => reject(new Error(`cannot serve the status at ${file}: ${error.code}: ${error.syscall} ${temporary}`)));
      server.listen(temporary, () => resolve());
    });
    try {
      chmodSync(temporary, 0o600);
      renameSync(temporary, file);
    } catch (error) {
      server.close();
      const { code, syscall } = error as NodeJS.ErrnoException;
      throw new Error(`cannot serve the status at ${file}: ${code}: ${syscall} ${temporary}`);
    }
    // A failed accept (EMFILE) fails that client, which is told it is not answered: the service goes on.
    server.on('error', () => {});
    return new StatusServer(server, file, lstatSync(file).ino);
  }

  /** Stops answering, and removes the socket unless another service has put its own there since. */
  close(): Promise<void> {
    try {
      if (lstatSync(this.file).ino === this.inode) unlinkSync(this.file);
    } catch {
      // Gone already.
    }
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function serve(socket: Socket, snapshot: () => StatusSnapshot): void {
  socket.on('error', () => socket.destroy());
  socket.setTimeout(CLIENT_DEADLINE_MS, () => socket.destroy());
  // Whatever the client sends is dropped unread.
  socket.on('data', () => {});
  let text: string;
  try {
    text = `${JSON.stringify(snapshot())}\n`;
  } catch {
    socket.destroy();
    return;
  }
  socket.end(text);
}
