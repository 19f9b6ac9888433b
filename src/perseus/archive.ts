// Unpacks a published series archive (.tar.xz) once into a cache under the temp directory,
// keyed by the archive's name, size and mtime, so repeated tests and benchmarks are fast. The
// archive is read in place and nothing is written next to it.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const COMPLETE = '.complete';

const complete = (dir: string) => existsSync(path.join(dir, COMPLETE));

/**
 * The directory the archive unpacks into (its members under it as in the archive), unpacking
 * it first unless a complete cache exists. With `members`, only those paths are unpacked (a
 * complete unpack of the whole archive serves too). Concurrent callers are safe: each unpacks
 * into its own temporary directory and renames it into place; the loser uses the winner's.
 */
export function cachedUnpack(archive: string, members: readonly string[] = [], cacheRoot = path.join(os.tmpdir(), `slowdisk-perseus-cache-${process.getuid?.() ?? 'user'}`)): string {
  const info = statSync(archive);
  const name = path.basename(archive).replace(/[^A-Za-z0-9_.-]/g, '_');
  const key = `${name}-${info.size}-${Math.floor(info.mtimeMs)}`;
  const whole = path.join(cacheRoot, key);
  if (complete(whole)) return whole;
  const wanted = [...new Set(members)].sort();
  const dir = wanted.length === 0 ? whole : `${whole}-${createHash('sha256').update(wanted.join('\n')).digest('hex').slice(0, 12)}`;
  if (complete(dir)) return dir;
  mkdirSync(cacheRoot, { recursive: true });
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
  // An archive replaced or touched gets a new key: its older unpacks would stay in the temp
  // directory for good.
  for (const entry of readdirSync(cacheRoot)) {
    if (entry.startsWith(`${name}-`) && !entry.startsWith(key) && /^\d+-\d+(-[0-9a-f]{12})?$/.test(entry.slice(name.length + 1))) {
      rmSync(path.join(cacheRoot, entry), { recursive: true, force: true });
    }
  }
  return dir;
}
