// Whether a directory slowdisk keeps its own files in (the status sockets, the state
// directory) can be trusted: a directory of this user, that no other user can write to, so
// that nobody else can plant, replace or grow a file there. A symlink is refused: whoever owns
// it chooses where it leads.
import { lstatSync } from 'node:fs';
import { fsPath } from './path-text.js';

/** What other users must not be able to do in the directory: enter it at all (the status sockets, secret), or write to it (the state). */
export type ClosedTo = 'open' | 'writable';

const REFUSED: Readonly<Record<ClosedTo, { bits: number; said: string }>> = {
  open: { bits: 0o077, said: 'open to others' },
  writable: { bits: 0o022, said: 'writable by others' },
};

/** Why the directory cannot be trusted, or null when it can: this user's, a directory, and not `closedTo` others. */
export function untrustedDir(dir: string, closedTo: ClosedTo = 'open'): string | null {
  let stat;
  try {
    stat = lstatSync(fsPath(dir));
  } catch (error) {
    const { code, syscall } = error as NodeJS.ErrnoException;
    return `${code}: ${syscall} ${dir}`;
  }
  if (!stat.isDirectory()) return `${dir} is not a directory`;
  if (stat.uid !== process.geteuid?.()) return `${dir} belongs to uid ${stat.uid}, not to uid ${process.geteuid?.()}`;
  const refused = REFUSED[closedTo];
  if ((stat.mode & refused.bits) !== 0) return `${dir} is ${refused.said} (mode ${(stat.mode & 0o777).toString(8)})`;
  return null;
}
