// Reads a small file a user named in a short-lived child process, so that a file on a hung
// disk (a dead NFS server, a device that no longer answers) stalls that child and never the
// command: the command gives up after a deadline and goes on to say so.
import { spawn } from 'node:child_process';
import { pathBytes, withTextPath } from './path-text.js';

/** A file read this way is a configuration file: larger ones are refused. */
export const MAX_READ_BYTES = 1024 * 1024;

/** The read's failure, with the errno name, the syscall and the path where there are some. */
export class ReadElsewhereError extends Error {
  constructor(
    message: string,
    readonly code?: string,
    readonly syscall?: string,
    readonly path?: string,
  ) {
    super(message);
    this.name = 'ReadElsewhereError';
  }
}

// The child opens without following a FIFO's wait (O_NONBLOCK), refuses what is not a regular
// file or is too large, and writes the text to stdout; a failure goes to stderr as JSON. The
// path comes as the hex of its bytes: an argument would reach the child as UTF-8, a byte
// 0xff in it as U+FFFD, another file. It ignores SIGUSR1, as every slowdisk process does
// (src/common/debug-signal.ts).
const CHILD = `
process.on('SIGUSR1', () => {});
const fs = require('node:fs');
const [file, max] = [Buffer.from(process.argv[1], 'hex'), Number(process.argv[2])];
try {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  const stat = fs.fstatSync(fd);
  if (!stat.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'ENOTREG' });
  if (stat.size > max) throw Object.assign(new Error('larger than ' + max + ' bytes'), { code: 'EFBIG' });
  process.stdout.write(fs.readFileSync(fd));
} catch (error) {
  process.stderr.write(JSON.stringify({ code: error.code, syscall: error.syscall, path: error.path, message: error.message }));
  process.exitCode = 1;
}
`;

/** "ENOENT: open /etc/x (no such file or directory)", as slowdisk writes a syscall's error, from Node's "ENOENT: no such file or directory, open '/etc/x'". */
function shownMessage(failure: { code?: string; syscall?: string; path?: string; message?: string }): string {
  const reason = (failure.message ?? 'unreadable').replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/, '');
  if (failure.code && failure.syscall) return `${failure.code}: ${failure.syscall} ${failure.path} (${reason})`;
  return failure.code ? `${failure.code}: ${reason}` : reason;
}

/** The text of `file` (resolved against this process's working directory), read by a child within `deadlineMs`. */
export function readFileElsewhere(file: string, deadlineMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', CHILD, pathBytes(file).toString('hex'), String(MAX_READ_BYTES)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    const timer = setTimeout(() => {
      // A child in uninterruptible sleep dies only once its read returns: it is not waited for.
      child.kill('SIGKILL');
      child.unref();
      child.stdout.destroy();
      child.stderr.destroy();
      reject(new ReadElsewhereError(`not read within ${deadlineMs / 1000} s, its disk may hang`));
    }, deadlineMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new ReadElsewhereError(`cannot start a reader: ${error.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) return resolve(Buffer.concat(stdout).toString('utf8'));
      let failure: { code?: string; syscall?: string; path?: string; message?: string } = {};
      try {
        failure = JSON.parse(Buffer.concat(stderr).toString('utf8'));
      } catch {
        failure = { message: `the reader exited with ${code}` };
      }
      // The child names the path as Node decoded its bytes: named here as slowdisk holds it.
      withTextPath(failure, file);
      reject(new ReadElsewhereError(shownMessage(failure), failure.code, failure.syscall, failure.path));
    });
  });
}
