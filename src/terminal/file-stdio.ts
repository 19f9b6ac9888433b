// stdout and stderr that are regular files (`>> /var/log/slowdisk.log` from cron, systemd's
// `StandardOutput=append:`) are written by a `cat` of their own, fed through a pipe: a write
// to a file on a frozen or hung filesystem sleeps uninterruptibly, and Node writes files
// synchronously, on the main thread, so the command would hang past its duration and survive
// SIGKILL until the thaw. A pipe is written without blocking (what cat has not taken yet waits
// in memory), so the command ends on time and stays killable; the cat, in its own process
// group so that Ctrl-C on the terminal spares it, writes what it was given once the
// filesystem lets it, and exits. A cat that cannot write (a full disk) ends with the reason,
// which the stream gives as its error. A terminal, a pipe or a socket is written as before.
import { spawn } from 'node:child_process';
import { fstatSync, type Stats } from 'node:fs';
import type { Socket } from 'node:net';
import { getSystemErrorMap } from 'node:util';
import { Writable } from 'node:stream';

/** stdout and stderr each written by a cat when it is a regular file: one cat for both when they are the same file, so their lines keep their order. */
export function relayFileStdio(): void {
  const out = regularFile(1);
  const err = regularFile(2);
  if (!out && !err) return;
  const outRelay = out ? new RelayedFile(1) : null;
  const errRelay = err ? (out && out.dev === err.dev && out.ino === err.ino ? outRelay : new RelayedFile(2)) : null;
  if (outRelay) Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, value: outRelay });
  if (errRelay) Object.defineProperty(process, 'stderr', { configurable: true, enumerable: true, value: errRelay });
}

function regularFile(fd: number): Stats | null {
  try {
    const stats = fstatSync(fd);
    return stats.isFile() ? stats : null;
  } catch {
    return null;
  }
}

/** The error a cat's message names ("cat: write error: No space left on device"), with its errno's name. */
function catError(said: string, code: number | null, signal: NodeJS.Signals | null): NodeJS.ErrnoException {
  const reason = said.trim().split('\n').pop()?.replace(/^cat: (write error: )?/, '') ?? '';
  const lower = reason.toLowerCase();
  const errno = [...getSystemErrorMap().values()].find(([, message]) => message.toLowerCase() === lower);
  const how = signal ? `its writer (cat) was killed by ${signal}` : reason || `its writer (cat) exited with ${code}`;
  const error: NodeJS.ErrnoException = new Error(errno ? `${errno[0]}: ${reason}, write` : how);
  error.code = errno?.[0] ?? 'EIO';
  error.syscall = 'write';
  return error;
}

/**
 * Before exit: stdout written by a cat (and not shared with stderr, where a failure could not
 * be told) is closed, and its cat waited for, at most `capMs`: a write it could not make (a
 * full disk) is then stdout's error, told before exit; one stuck on a frozen filesystem is
 * left to finish after the thaw.
 */
export function relayedStdoutSettled(capMs: number): Promise<void> {
  const stdout = process.stdout as unknown;
  if (!(stdout instanceof RelayedFile) || stdout === (process.stderr as unknown) || stdout.writableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, capMs);
    stdout.once('closed-cat', () => {
      clearTimeout(timer);
      // Its error, if any, is emitted on the next tick.
      setImmediate(resolve);
    });
    stdout.end();
  });
}

class RelayedFile extends Writable {
  private readonly toCat: Socket;

  constructor(fd: number) {
    super({ decodeStrings: false });
    const cat = spawn('cat', [], { stdio: ['pipe', fd, 'pipe'], detached: true });
    this.toCat = cat.stdin as Socket;
    const said: Buffer[] = [];
    cat.stderr!.on('data', (chunk: Buffer) => said.push(chunk));
    // What cat has not taken yet holds the process only while a write waits (see _write).
    cat.unref();
    this.toCat.unref();
    (cat.stderr as Socket).unref();
    // A write into a cat that is gone fails with EPIPE: its exit says why, once.
    this.toCat.on('error', () => {});
    cat.on('error', (error) => this.destroy(error));
    cat.on('close', (code, signal) => {
      if (code !== 0) this.destroy(catError(Buffer.concat(said).toString(), code, signal));
      this.emit('closed-cat');
    });
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.toCat.end();
    callback();
  }

  override _write(chunk: string | Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    // A command that ends when nothing is left to do waits for its output; process.exit() does not.
    this.toCat.ref();
    this.toCat.write(chunk, encoding, () => {
      this.toCat.unref();
      callback();
    });
  }
}
