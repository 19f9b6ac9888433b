// Where a running service answers `slowdisk status`: a Unix socket per store, in a directory
// that is root's alone. Only root can connect, and only root can put a socket there, so an
// unprivileged user can neither read the verdict nor plant a socket that answers for the
// service; the directory is refused if it is a symlink, someone else's or open to others.
// /run is a tmpfs: no syscall here waits on a disk under test.
import { mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { untrustedDir } from '../common/trusted-dir.js';

export const STATUS_DIR = '/run/slowdisk-status';

const SUFFIX = '.sock';

/** A store's name: a file name of its own, safe in a path and on one line. */
export const STORE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

export function socketPath(store: string, dir: string = STATUS_DIR): string {
  return path.join(dir, `${store}${SUFFIX}`);
}

/** The service's side: the directory, made if missing (0700); throws one line when it cannot be trusted. */
export function statusDir(dir: string = STATUS_DIR): string {
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code !== 'EEXIST') throw new Error(`cannot make the status directory: ${code}: mkdir ${dir}`);
  }
  const why = untrustedDir(dir);
  if (why) throw new Error(`refusing the status directory: ${why}`);
  return dir;
}

/** The stores with a socket in the directory, sorted; none when it cannot be read. */
export function storesServed(dir: string = STATUS_DIR): string[] {
  try {
    return readdirSync(dir)
      .filter((entry) => entry.endsWith(SUFFIX) && STORE_NAME.test(entry.slice(0, -SUFFIX.length)))
      .map((entry) => entry.slice(0, -SUFFIX.length))
      .sort();
  } catch {
    return [];
  }
}
