// Unpacks a published series archive (.tar.xz) once into a private cache, keyed by the
// archive's name and content, so repeated tests and benchmarks are fast. The archive is read
// in place and nothing is written next to it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const COMPLETE = '.complete';

const complete = (dir: string) => existsSync(path.join(dir, COMPLETE));

/**
 * The user's own cache directory: never a shared, predictable name under the temp directory,
 * where another user could have put a directory or a symlink of theirs first and have root
 * unpack into it, or read series planted there.
 */
export function defaultCacheRoot(): string {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'slowdisk', 'archives');
}

function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = lstatSync(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory()) throw new Error(`archive cache ${dir} is not a directory (a symlink or another file is in its place)`);
  if (uid !== undefined && info.uid !== uid) throw new Error(`archive cache ${dir} belongs to uid ${info.uid}, not to this user (${uid})`);
  if ((info.mode & 0o022) !== 0) throw new Error(`archive cache ${dir} can be written by others (mode ${(info.mode & 0o777).toString(8)})`);
}

const contentKey = (archive: string) => createHash('sha256').update(readFileSync(archive)).digest('hex').slice(0, 16);

/**
 * The directory the archive unpacks into (its members under it as in the archive), unpacking
 * it first unless a complete cache exists. With `members`, only those paths are unpacked (a
 * complete unpack of the whole archive serves too). Concurrent callers are safe: each unpacks
 * into its own temporary directory and renames it into place; the loser uses the winner's.
 */
export function cachedUnpack(archive: string, members: readonly string[] = [], cacheRoot = defaultCacheRoot()): string {
  const name = path.basename(archive).replace(/[^A-Za-z0-9_.-]/g, '_');
  // By content, not mtime: two checkouts of one archive share one unpack, and neither takes
  // the other's for an older version.
  const key = `${name}-${contentKey(archive)}`;
  const whole = path.join(cacheRoot, key);
  if (complete(whole)) return whole;
  const wanted = [...new Set(members)].sort();
  const dir = wanted.length === 0 ? whole : `${whole}-${createHash('sha256').update(wanted.join('\n')).digest('hex').slice(0, 12)}`;
  if (complete(dir)) return dir;
  ensurePrivateDir(cacheRoot);
  const temp = mkdtempSync(path.join(cacheRoot, '.unpack-'));
  try {
    execFileSync('tar', ['-xJf', path.resolve(archive), '-C', temp, ...wanted], { stdio: ['ignore', 'ignore', 'pipe'] });
    writeFileSync(path.join(temp, COMPLETE), `${archive}\n`);
    try {
      renameSync(temp, dir);
    } catch (error) {
      if (!complete(dir)) throw error;
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  // An archive replaced by another version gets a new key: its older unpacks would stay in
  // the cache for good.
  for (const entry of readdirSync(cacheRoot)) {
    if (entry.startsWith(`${name}-`) && !entry.startsWith(key) && /^[0-9a-f]{16}(-[0-9a-f]{12})?$/.test(entry.slice(name.length + 1))) {
      rmSync(path.join(cacheRoot, entry), { recursive: true, force: true });
    }
  }
  return dir;
}
