// The drive history on disk: one file in the state directory, replaced atomically (written
// under an unguessable temporary name and fsynced, renamed over the old one, the directory
// fsynced), so that a crash or a full disk leaves either the old file or the new one, never a
// mix. The file carries its version and a SHA-256 of its body: a file that fails either, or
// does not parse, is reported, renamed aside (never deleted, never silently reset) and a new
// history begun; an entry that is not a regular file (a FIFO, a symlink) is refused. A lock
// file keeps two runs (a cron check and a watch) from interleaving their writes. This runs in
// the output writer (../output/: in the prober's process, or its own), never in the CLI's.
import { mkdir, readdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { nodeCrypto } from '../common/node-crypto.js';
import { fsPath, withTextPath } from '../common/path-text.js';
import { isTemporaryOf, RefusedFileError, readRegular, replaceFile } from '../common/exclusive-file.js';
import { untrustedPath } from '../common/trusted-dir.js';
import { isLockOf, LockHeldError, lockOwnerOf, releaseLock, takeLock, type LockOwner } from '../common/run-lock.js';
import { emptyHistory, HISTORY_VERSION, type DriveHistory } from './history.js';

export const STATE_FILE = 'drives.state';
const LOCK_FILE = 'drives.lock';

// node:crypto at the first history written or read: the bundle puts this module beside others
// every run loads.
const sha256Hex = (body: string): string => nodeCrypto().createHash('sha256').update(body).digest('hex');

// Temporary files of slowdisk versions that named them by PID.
const OLD_TEMP_PREFIX = `.${STATE_FILE}.tmp-`;
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

/** `what: ENOSPC (write /path)`; replaceFile gives write and fsync errors the path of their file. */
function syscallError(what: string, error: unknown): StateStoreError {
  const e = error as NodeJS.ErrnoException;
  if (e.code === undefined) return new StateStoreError(`${what}: ${e.message}`);
  const where = [e.syscall, e.path].filter((part) => part !== undefined).join(' ');
  return new StateStoreError(`${what}: ${e.code}${where === '' ? '' : ` (${where})`}`, e.code);
}

/** The file's text: a header line with version, checksum and body length, then the JSON body. */
export function encodeHistory(history: DriveHistory): string {
  // NaN (a drive not observed on a day) is not JSON: JSON.stringify writes it as null, read
  // back as NaN. No replacer: one takes V8 off its fast path, at twice the time.
  const body = JSON.stringify(history);
  const sum = sha256Hex(body);
  return `${MAGIC} ${HISTORY_VERSION} sha256:${sum} ${Buffer.byteLength(body)}\n${body}`;
}

/**
 * The ratios written as null read back as NaN, at any depth: a walk after the parse, which
 * took a sixth of the time of JSON.parse's reviver on a month's history.
 */
function nullRatiosToNaN(value: unknown): unknown {
  if (typeof value !== 'object' || value === null) return value;
  // An array has no ratio of its own: only its objects are walked, not the numbers of every
  // bucket (the bulk of the file).
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const item: unknown = value[i];
      if (typeof item === 'object' && item !== null) nullRatiosToNaN(item);
    }
    return value;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const field = record[key];
    if (field === null) {
      if (key === 'ratio' || key === 'loadRatio') record[key] = NaN;
    } else if (typeof field === 'object') {
      nullRatiosToNaN(field);
    }
  }
  return value;
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
  if (sha256Hex(body) !== header[2]) throw new Error('checksum mismatch');
  let parsed: unknown;
  try {
    parsed = nullRatiosToNaN(JSON.parse(body));
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

/** The drive history's file, as a run saves it: in this process, or through the output writer. */
export interface StateStore {
  readonly file: string;
  readonly dir: string;
  /** Rejects with a StateStoreError; the previous file is kept. */
  save(history: DriveHistory): Promise<void>;
  /** Releases the lock. */
  close(): Promise<void>;
}

export interface OpenedState {
  store: StateStore;
  history: DriveHistory;
  /** What was wrong with the file found, already dealt with (set aside): for stderr. */
  problems: string[];
}

export interface OpenedStore extends OpenedState {
  store: FileStateStore;
}

export class FileStateStore implements StateStore {
  readonly file: string;
  private readonly lock: string;
  private closed = false;

  private constructor(
    readonly dir: string,
    private readonly owner: LockOwner,
  ) {
    this.file = path.join(dir, STATE_FILE);
    this.lock = path.join(dir, LOCK_FILE);
  }

  /**
   * Takes the directory's lock for `owner` (this process by default; the CLI's when the output
   * writer opens it), the directory made if missing; clears the temp files of a write a crash
   * interrupted, and reads the history: a missing file is a new history, a corrupt one is
   * renamed to `drives.state.corrupt-<time>` and reported in `problems`.
   */
  static async open(dir: string, now: () => number = Date.now, owner: LockOwner = lockOwnerOf(process.pid)): Promise<OpenedStore> {
    const store = new FileStateStore(path.resolve(dir), owner);
    try {
      await mkdir(fsPath(store.dir), { recursive: true, mode: 0o700 }).catch((error: unknown) => {
        throw withTextPath(error, store.dir);
      });
    } catch (error) {
      throw syscallError(`cannot make the state directory ${store.dir}`, error);
    }
    // A lock or a history another user could have planted would stop or steer this run.
    const untrusted = untrustedPath(store.dir, 'writable');
    if (untrusted !== null) throw new StateStoreError(`refusing the state directory ${store.dir}: ${untrusted}; give one that only this user can write to`);
    try {
      await takeLock(store.lock, owner);
    } catch (error) {
      if (error instanceof LockHeldError) {
        throw new StateStoreError(`the state directory ${store.dir} is in use by process ${error.holder} (${store.lock}); use another --state-dir or wait for it`);
      }
      if (error instanceof RefusedFileError) throw new StateStoreError(`cannot lock the state directory ${store.dir}: ${error.message}`, error.code);
      throw syscallError(`cannot lock the state directory ${store.dir}`, error);
    }
    try {
      for (const entry of await readdir(fsPath(store.dir))) {
        if (isTemporaryOf(entry, STATE_FILE) || entry.startsWith(OLD_TEMP_PREFIX)) await unlink(fsPath(path.join(store.dir, entry)));
      }
      const problems: string[] = [];
      return { store, history: await store.read(now, problems), problems };
    } catch (error) {
      await store.close();
      throw error instanceof StateStoreError ? error : syscallError(`cannot read the state directory ${store.dir}`, error);
    }
  }

  /**
   * The directory `owner` opened through an output writer that died since: its lock, still
   * `owner`'s, is not taken again, and the history is not read again (the run holds it).
   */
  static async adopt(dir: string, owner: LockOwner): Promise<FileStateStore> {
    const store = new FileStateStore(path.resolve(dir), owner);
    if (!(await isLockOf(store.lock, owner))) throw new StateStoreError(`the state directory ${store.dir} is no longer locked by this run (${store.lock})`);
    return store;
  }

  private async read(now: () => number, problems: string[]): Promise<DriveHistory> {
    let text: string | null;
    try {
      text = await readRegular(this.file);
    } catch (error) {
      if (error instanceof RefusedFileError) throw new StateStoreError(`cannot read the drive history: ${error.message}`, error.code);
      throw syscallError(`cannot read the drive history ${this.file}`, error);
    }
    if (text === null) return emptyHistory();
    try {
      return decodeHistory(text);
    } catch (error) {
      const aside = `${this.file}.corrupt-${new Date(now()).toISOString().replace(/[:.]/g, '-')}`;
      try {
        await rename(fsPath(this.file), fsPath(aside));
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
   * write goes on.
   */
  async save(history: DriveHistory): Promise<void> {
    if (this.closed) throw new StateStoreError(`the drive history ${this.file} is closed`);
    const data = Buffer.from(encodeHistory(history));
    try {
      await replaceFile(this.dir, STATE_FILE, data, { mode: 0o600, durable: true });
    } catch (error) {
      const e = error as NodeJS.ErrnoException;
      const renamed = e.syscall === 'fsync' && e.path === this.dir;
      throw syscallError(renamed ? `saved the drive history ${this.file}, but its directory could not be synced` : `cannot save the drive history ${this.file}, the previous one is kept`, error);
    }
  }

  /** Releases the lock (left alone if another run has taken it over). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await releaseLock(this.lock, this.owner);
  }
}
