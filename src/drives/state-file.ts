// The drive history on disk: one file in the state directory, replaced atomically (a temp
// file written and fsynced, renamed over the old one, the directory fsynced), so that a crash
// or a full disk leaves either the old file or the new one, never a mix. The file carries its
// version and a SHA-256 of its body: a file that fails either, or does not parse, is reported,
// renamed aside (never deleted, never silently reset) and a new history begun. A lock file
// keeps two runs (a cron check and a watch) from interleaving their writes.
import { createHash } from 'node:crypto';
import { closeSync, constants, mkdirSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { emptyHistory, HISTORY_VERSION, type DriveHistory } from './history.js';

export const STATE_FILE = 'drives.state';
const LOCK_FILE = 'drives.lock';
const TEMP_PREFIX = `.${STATE_FILE}.tmp-`;
const MAGIC = 'slowdisk-drive-history';

/** A state directory or file that cannot be used; the message names the syscall, errno and path. */
export class StateStoreError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'StateStoreError';
  }
}

/** `what: ENOSPC (write /path)`; the path of the file at hand when the error has none (write and fsync name no path). */
function syscallError(what: string, error: unknown, file?: string): StateStoreError {
  const e = error as NodeJS.ErrnoException;
  if (e.code === undefined) return new StateStoreError(`${what}: ${e.message}`);
  const where = [e.syscall, e.path ?? file].filter((part) => part !== undefined).join(' ');
  return new StateStoreError(`${what}: ${e.code}${where === '' ? '' : ` (${where})`}`, e.code);
}

/** The file's text: a header line with version, checksum and body length, then the JSON body. */
export function encodeHistory(history: DriveHistory): string {
  // NaN (a drive not observed on a day) is not JSON: written as null, read back as NaN.
  const body = JSON.stringify(history, (_key, value: unknown) => (typeof value === 'number' && Number.isNaN(value) ? null : value));
  const sum = createHash('sha256').update(body).digest('hex');
  return `${MAGIC} ${HISTORY_VERSION} sha256:${sum} ${Buffer.byteLength(body)}\n${body}`;
}

const HEADER = new RegExp(`^${MAGIC} (\\d+) sha256:([0-9a-f]{64}) (\\d+)$`);

/** Reads a file's text back; throws an Error saying what is wrong with it. */
export function decodeHistory(text: string): DriveHistory {
  const newline = text.indexOf('\n');
  const header = HEADER.exec(newline < 0 ? text : text.slice(0, newline));
  if (!header) throw new Error('no slowdisk drive history header');
  if (Number(header[1]) !== HISTORY_VERSION) throw new Error(`version ${header[1]}, this slowdisk reads version ${HISTORY_VERSION}`);
  const body = text.slice(newline + 1);
  if (Buffer.byteLength(body) !== Number(header[3])) throw new Error(`${Buffer.byteLength(body)} bytes of body, the header says ${header[3]}`);
  if (createHash('sha256').update(body).digest('hex') !== header[2]) throw new Error('checksum mismatch');
  let parsed: unknown;
  try {
    parsed = JSON.parse(body, (key, value: unknown) => ((key === 'ratio' || key === 'loadRatio') && value === null ? NaN : value));
  } catch (error) {
    throw new Error(`unparsable: ${(error as Error).message}`);
  }
  const history = parsed as DriveHistory;
  const isObject = (value: unknown) => typeof value === 'object' && value !== null && !Array.isArray(value);
  if (!isObject(history) || history.version !== HISTORY_VERSION || !isObject(history.names) || !isObject(history.open) || !Array.isArray(history.judged) || (history.last !== null && !isObject(history.last))) {
    throw new Error('not a drive history');
  }
  return history;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface OpenedStore {
  store: FileStateStore;
  history: DriveHistory;
  /** What was wrong with the file found, already dealt with (set aside): for stderr. */
  problems: string[];
}

export class FileStateStore {
  readonly file: string;
  private readonly lock: string;
  private closed = false;

  private constructor(readonly dir: string) {
    this.file = path.join(dir, STATE_FILE);
    this.lock = path.join(dir, LOCK_FILE);
  }

  /**
   * Takes the directory's lock (made with the directory if missing), clears the temp files of
   * a write a crash interrupted, and reads the history: a missing file is a new history, a
   * corrupt one is renamed to `drives.state.corrupt-<time>` and reported in `problems`.
   */
  static open(dir: string, now: () => number = Date.now): OpenedStore {
    const store = new FileStateStore(path.resolve(dir));
    try {
      mkdirSync(store.dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw syscallError(`cannot make the state directory ${store.dir}`, error);
    }
    store.takeLock();
    try {
      for (const entry of readdirSync(store.dir)) if (entry.startsWith(TEMP_PREFIX)) unlinkSync(path.join(store.dir, entry));
      const problems: string[] = [];
      return { store, history: store.read(now, problems), problems };
    } catch (error) {
      store.close();
      throw error instanceof StateStoreError ? error : syscallError(`cannot read the state directory ${store.dir}`, error);
    }
  }

  private takeLock(): void {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        const fd = openSync(this.lock, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
        writeSync(fd, `${process.pid}\n`);
        closeSync(fd);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw syscallError(`cannot lock the state directory ${this.dir}`, error);
      }
      const holder = Number.parseInt(readFileSync(this.lock, 'utf8'), 10);
      if (Number.isInteger(holder) && holder > 0 && alive(holder)) {
        throw new StateStoreError(`the state directory ${this.dir} is in use by process ${holder} (${this.lock}); use another --state-dir or wait for it`);
      }
      // Left by a run that was killed: its process is gone.
      unlinkSync(this.lock);
    }
    throw new StateStoreError(`cannot lock the state directory ${this.dir}: ${this.lock} keeps coming back`);
  }

  private read(now: () => number, problems: string[]): DriveHistory {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyHistory();
      throw syscallError(`cannot read the drive history ${this.file}`, error);
    }
    try {
      return decodeHistory(text);
    } catch (error) {
      const aside = `${this.file}.corrupt-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
      try {
        renameSync(this.file, aside);
      } catch (renameError) {
        throw syscallError(`the drive history ${this.file} is corrupt (${(error as Error).message}) and cannot be set aside`, renameError);
      }
      problems.push(`the drive history ${this.file} is corrupt (${(error as Error).message}): set aside as ${aside}, starting a new history`);
      return emptyHistory();
    }
  }

  /**
   * Replaces the file atomically; on failure (ENOSPC...) the previous file is left as it was
   * and a StateStoreError thrown. The history is encoded at once, so it may change while the
   * write goes on; the write itself is asynchronous, so that a state directory on a hung disk
   * holds up no sampling or probing, only the next save.
   */
  async save(history: DriveHistory): Promise<void> {
    if (this.closed) throw new StateStoreError(`the drive history ${this.file} is closed`);
    const data = Buffer.from(encodeHistory(history));
    const temp = path.join(this.dir, `${TEMP_PREFIX}${process.pid}`);
    let handle: FileHandle | null = null;
    try {
      handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o600);
      await handle.writeFile(data);
      await handle.sync();
      await handle.close();
      handle = null;
      await rename(temp, this.file);
    } catch (error) {
      await handle?.close().catch(() => {});
      await rm(temp, { force: true }).catch(() => {});
      throw syscallError(`cannot save the drive history ${this.file}, the previous one is kept`, error, temp);
    }
    try {
      const dir = await open(this.dir, constants.O_RDONLY | constants.O_DIRECTORY);
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch (error) {
      throw syscallError(`saved the drive history ${this.file}, but its directory could not be synced`, error, this.dir);
    }
  }

  /** Releases the lock. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      unlinkSync(this.lock);
    } catch {
      // Removed by hand: nothing to release.
    }
  }
}
