// What a directory tree holds, for before/after comparisons: every entry's type, mode and
// content (a file's SHA-256, a symlink's target), without following symlinks.
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

export function digestTree(root: string): Map<string, string> {
  const digest = new Map<string, string>();
  const visit = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = path.join(dir, name);
      const st = lstatSync(full);
      const mode = (st.mode & 0o7777).toString(8);
      const key = path.relative(root, full);
      if (st.isSymbolicLink()) digest.set(key, `symlink ${mode} -> ${readlinkSync(full)}`);
      else if (st.isDirectory()) {
        digest.set(key, `dir ${mode}`);
        visit(full);
      } else digest.set(key, `file ${mode} ${createHash('sha256').update(readFileSync(full)).digest('hex')}`);
    }
  };
  visit(root);
  return digest;
}
