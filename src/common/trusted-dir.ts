// Whether a directory slowdisk keeps its own files in (the status sockets, the state
// directory) can be trusted: a directory of this user, that no other user can write to, so
// that nobody else can plant, replace or grow a file there. A symlink is refused: whoever owns
// it chooses where it leads.
import { lstatSync, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import { fsPath } from './path-text.js';

/** What other users must not be able to do in the directory: enter it at all (the status sockets, secret), or write to it (the state). */
export type ClosedTo = 'open' | 'writable';

const REFUSED: Readonly<Record<ClosedTo, { bits: number; said: string }>> = {
  open: { bits: 0o077, said: 'open to others' },
  writable: { bits: 0o022, said: 'writable by others' },
};

/** The entry's status, or why there is none: "ENOENT: lstat /x". */
function statusOf(entry: string, stat: (file: string | Buffer) => Stats): Stats | string {
  try {
    return stat(fsPath(entry));
  } catch (error) {
    const { code, syscall } = error as NodeJS.ErrnoException;
    return `${code}: ${syscall} ${entry}`;
  }
}

/** Why the directory cannot be trusted, or null when it can: this user's, a directory, and not `closedTo` others. */
export function untrustedDir(dir: string, closedTo: ClosedTo = 'open'): string | null {
  const stat = statusOf(dir, lstatSync);
  if (typeof stat === 'string') return stat;
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (stat.uid !== process.geteuid?.()) return `${dir} belongs to uid ${stat.uid}, not to uid ${process.geteuid?.()}`;
  const refused = REFUSED[closedTo];
  if ((stat.mode & refused.bits) !== 0) return `${dir} is ${refused.said} (mode ${(stat.mode & 0o777).toString(8)})`;
  return null;
}

/**
 * untrustedDir, and the directories above it too: whoever can write to a parent can rename
 * the directory away and put one of theirs in its place between a check and a read. A parent
 * must be root's or this user's, and closed to others' writes unless sticky (/tmp), where
 * nobody but its owner can rename an entry.
 */
export function untrustedPath(dir: string, closedTo: ClosedTo): string | null {
  const own = untrustedDir(dir, closedTo);
  if (own !== null) return own;
  for (let at = path.dirname(dir); ; at = path.dirname(at)) {
    // Followed: a symlink above (/var/run) is judged by the directory it leads to.
    const stat = statusOf(at, statSync);
    if (typeof stat === 'string') return stat;
    if (stat.uid !== 0 && stat.uid !== process.geteuid?.()) return `${at}, above ${dir}, belongs to uid ${stat.uid}, who can put another directory in its place`;
    if ((stat.mode & 0o022) !== 0 && (stat.mode & 0o1000) === 0) return `${at}, above ${dir}, is writable by others (mode ${(stat.mode & 0o777).toString(8)}): they can put another directory in its place`;
    if (at === path.dirname(at)) return null;
  }
}
