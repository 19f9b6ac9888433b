// How slowdisk makes and reads its own files (textfile, trace, drive history, lock, prober
// registry entries) in a directory that someone else may be able to write to. A file is always created new, with
// O_CREAT|O_EXCL|O_NOFOLLOW, so that nothing planted at its name (a symlink to /etc/shadow, a
// FIFO) is ever opened; a file replaced in place is written under a name nobody can guess
// and then renamed over the old one: rename(2) replaces the directory entry itself, a symlink
// included, and never follows it. Existing files are opened with O_NOFOLLOW|O_NONBLOCK and
// refused unless regular, so a FIFO or a device at a name cannot hang or feed the reader.
import { closeSync, constants, fstatSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { fsPath, withTextPath } from './path-text.js';
import { randomHex } from './random-hex.js';

const CREATE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** A name for a temporary file of `name`: hidden, and 96 random bits nobody can plant ahead of. */
export function temporaryName(name: string): string {
  return `.${name}.${randomHex(12)}.tmp`;
}

/** Whether `entry` is a name temporaryName(name) gives. */
export function isTemporaryOf(entry: string, name: string): boolean {
  return entry.startsWith(`.${name}.`) && entry.endsWith('.tmp') && /^[0-9a-f]{24}$/.test(entry.slice(name.length + 2, -4));
}

/**
 * Creates `file`, which must not exist under any form (EEXIST for a file, a symlink, a FIFO
 * alike), with exactly `mode`: open(2) takes the umask off it, and a umask of 077 would keep
 * a textfile from node_exporter, which runs as its own user.
 */
export async function createExclusive(file: string, mode: number): Promise<FileHandle> {
  const handle = await open(fsPath(file), CREATE_FLAGS, mode).catch((error: unknown) => {
    throw withTextPath(error, file);
  });
  try {
    await handle.chmod(mode);
  } catch (error) {
    await handle.close().catch(() => {});
    await rm(fsPath(file), { force: true }).catch(() => {});
    throw error;
  }
  return handle;
}

/**
 * Creates `file` as createExclusive does and writes `text` to it, synchronously (0600). A
 * file that cannot be written whole (ENOSPC on a full /run) is removed, not left empty.
 */
export function writeNewSync(file: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(fsPath(file), CREATE_FLAGS, 0o600);
  } catch (error) {
    throw withTextPath(error, file);
  }
  try {
    writeSync(fd, text);
  } catch (error) {
    closeSync(fd);
    rmSync(fsPath(file), { force: true });
    throw error;
  }
  closeSync(fd);
}

/** replaceFile, synchronously and without fsync (0600): for files on tmpfs, such as the prober registry's. */
export function replaceFileSync(dir: string, name: string, text: string): void {
  const temp = path.join(dir, temporaryName(name));
  try {
    writeNewSync(temp, text);
    renameSync(fsPath(temp), fsPath(path.join(dir, name)));
  } catch (error) {
    // Only our own temporary can be there: its name was made exclusively, just now.
    rmSync(fsPath(temp), { force: true });
    throw withPath(error, temp);
  }
}

export interface ReplaceOptions {
  mode: number;
  /** fsync the file before the rename and the directory after it: the new content survives a crash. */
  durable?: boolean;
}

/**
 * Replaces `dir/name` with `data` atomically: a reader sees the old file or the new one,
 * never a partial one; on failure the old file is left as it was and the temporary removed.
 */
export async function replaceFile(dir: string, name: string, data: string | Buffer, options: ReplaceOptions): Promise<void> {
  const temp = path.join(dir, temporaryName(name));
  let handle: FileHandle | null = null;
  try {
    handle = await createExclusive(temp, options.mode);
    await handle.writeFile(data);
    if (options.durable) await handle.sync();
    await handle.close();
    handle = null;
    await rename(fsPath(temp), fsPath(path.join(dir, name)));
  } catch (error) {
    await handle?.close().catch(() => {});
    // Only our own temporary can be there: its name was made exclusively, just now.
    await rm(fsPath(temp), { force: true }).catch(() => {});
    throw withPath(error, temp);
  }
  if (options.durable) {
    try {
      const directory = await open(fsPath(dir), constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        await directory.sync();
      } finally {
        await directory.close();
      }
    } catch (error) {
      throw withPath(error, dir);
    }
  }
}

/**
 * The largest file slowdisk reads back of its own (the largest, a drive history, keeps 30
 * days): a larger one was grown by someone else, and is refused unread, so that a planted
 * file (a sparse one of 1 GiB) costs nothing.
 */
export const MAX_OWN_FILE_BYTES = 16 * 1024 * 1024;

/** An existing entry that slowdisk refuses to read: a symlink, a FIFO, a device, a directory, a file too large to be its own. */
export class RefusedFileError extends Error {
  constructor(
    readonly path: string,
    what: string,
    readonly code: 'ENOTREG' | 'EFBIG' = 'ENOTREG',
  ) {
    super(`${path} is ${what}${code === 'ENOTREG' ? ', not a regular file' : ''}: refused (move it away)`);
    this.name = 'RefusedFileError';
  }
}

/** Refuses what is not a regular file, or is larger than MAX_OWN_FILE_BYTES, before a byte of it is read. */
function checkReadable(file: string, stat: import('node:fs').Stats): void {
  if (!stat.isFile()) throw new RefusedFileError(file, kindOf(stat));
  if (stat.size > MAX_OWN_FILE_BYTES) throw new RefusedFileError(file, `${stat.size} bytes, larger than any file of slowdisk's (${MAX_OWN_FILE_BYTES})`, 'EFBIG');
}

/** A failed open for reading: null when there is no file; a symlink at the name is refused; any other error stands. */
function noFileOrRefused(error: unknown, file: string): null {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return null;
  if (code === 'ELOOP') throw new RefusedFileError(file, 'a symbolic link');
  throw error;
}

/** The text of the regular file `file`, or null when there is none; one too large is refused (RefusedFileError, EFBIG). */
export async function readRegular(file: string): Promise<string | null> {
  let handle: FileHandle;
  try {
    handle = await open(fsPath(file), READ_FLAGS);
  } catch (error) {
    return noFileOrRefused(withTextPath(error, file), file);
  }
  try {
    checkReadable(file, await handle.stat());
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/** readRegular, synchronously. */
export function readRegularSync(file: string): string | null {
  let fd: number;
  try {
    fd = openSync(fsPath(file), READ_FLAGS);
  } catch (error) {
    return noFileOrRefused(withTextPath(error, file), file);
  }
  try {
    checkReadable(file, fstatSync(fd));
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

function kindOf(stat: import('node:fs').Stats): string {
  if (stat.isFIFO()) return 'a FIFO';
  if (stat.isSocket()) return 'a socket';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'of another kind';
}

/** write and fsync errors name no path: the file at hand is given; one given as bytes is named as slowdisk holds it. */
function withPath(error: unknown, file: string): unknown {
  const e = error as NodeJS.ErrnoException;
  if (e && typeof e === 'object' && e.code !== undefined && e.path === undefined) e.path = file;
  return withTextPath(error, file);
}
