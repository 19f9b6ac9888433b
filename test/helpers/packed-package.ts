// The package as an operator gets it, and the node it is installed on. The tarball is what
// `npm pack` makes of the tree, both prebuilt addons in it; the node has no compiler, make or
// python3 (each hidden in a mount namespace) and no network. Packing builds both addons and
// dist/ anew, a minute of CPU, so the tarball is kept in node_modules/.cache under a digest of
// all it is made from, and made at most once even when several test files ask for it at once.
import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { constants, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { RootFacility } from './root-facilities.js';

const execFileAsync = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Where the tests keep what they fetch or make once: outside git, and never under the world-writable /tmp. */
export const TESTS_CACHE = path.join(ROOT, 'node_modules/.cache/slowdisk-tests');

/** What packing and the node without build tools need of the machine. */
export const PACKED_PACKAGE_NEEDS: RootFacility[] = ['unshare', 'cross-arm64'];

/** What the tree holds that is no source of the package: left out of the copy it is packed from. */
const NOT_SOURCES = new Set(['.git', 'node_modules', 'build', 'dist', 'dist-dev', 'prebuilds', 'man', 'completion', 'data', 'bench-results']);

/** What npm pack neither ships nor reads to build what it ships: no part of the tarball's digest. */
const NOT_PACKED = new Set(['test']);

/** What a build from source needs, hidden on the node the package is installed on. */
const BUILD_TOOLS = ['g++', 'gcc', 'c++', 'cc', 'make', 'python3', 'python'];

/** A shell command that prints `<tool> runs` for each of g++, make and python3 that runs, then `checked`. */
export const BUILD_TOOLS_THAT_RUN = 'for tool in g++ make python3; do "$tool" --version >/dev/null 2>&1 && echo "$tool runs"; done; echo checked';

/** How long a lock file with no packer's pid in it yet may be young: a packer writes its pid as it makes it. */
const UNWRITTEN_LOCK_MS = 10_000;

/** Every file under the tree's `entries`, relative to the root, sorted. */
function filesUnder(entries: string[]): string[] {
  return entries
    .flatMap((entry) =>
      statSync(path.join(ROOT, entry)).isDirectory()
        ? readdirSync(path.join(ROOT, entry), { recursive: true, withFileTypes: true })
            .filter((dirent) => dirent.isFile())
            .map((dirent) => path.relative(ROOT, path.join(dirent.parentPath, dirent.name)))
        : [entry],
    )
    .sort();
}

/** A digest of all the tarball is made from: every file packed from but the tests, the lock file among them, and the versions of Node, npm, both compilers and strip. */
async function sourcesDigest(entries: string[]): Promise<string> {
  const digest = createHash('sha256');
  for (const tool of ['npm', 'g++', 'aarch64-linux-gnu-g++', 'strip', 'aarch64-linux-gnu-strip']) digest.update((await execFileAsync(tool, ['--version'])).stdout);
  digest.update(process.version);
  for (const file of filesUnder(entries.filter((name) => !NOT_PACKED.has(name)))) digest.update(`\0${file}\0`).update(readFileSync(path.join(ROOT, file)));
  return digest.digest('hex').slice(0, 32);
}

/** Packs a copy of the tree's `entries` and puts the tarball at `cached`, whole or not at all. */
async function pack(entries: string[], cached: string): Promise<void> {
  // Packed from a copy: npm pack rebuilds the addons and dist/, which the tree's own tests use.
  // Not under node_modules, where TypeScript would not emit dist/'s JSON files.
  const work = mkdtempSync(path.join(tmpdir(), 'slowdisk-pack-'));
  try {
    const source = path.join(work, 'source');
    for (const entry of entries) cpSync(path.join(ROOT, entry), path.join(source, entry), { recursive: true });
    // A real tree, not a symlink to one: npm bundles a symlinked tree's direct dependencies only.
    mkdirSync(path.join(source, 'node_modules'));
    const modules = readdirSync(path.join(ROOT, 'node_modules')).filter((name) => name !== '.cache');
    const sources = modules.map((name) => path.join(ROOT, 'node_modules', name));
    // Hard links where the temp dir is on the tree's filesystem, else a copy.
    await execFileAsync('cp', ['-al', ...sources, path.join(source, 'node_modules')]).catch(() => execFileAsync('cp', ['-a', ...sources, path.join(source, 'node_modules')]));
    const { stdout } = await execFileAsync('npm', ['pack', '--json', '--pack-destination', work], { cwd: source, maxBuffer: 64 * 1024 * 1024 });
    const packed = path.join(work, (JSON.parse(stdout.slice(stdout.indexOf('['))) as { filename: string }[])[0]!.filename);
    // Copied in under a new name of its own, then renamed: a cached tarball is always a whole one.
    const partial = `${cached}.${randomBytes(8).toString('hex')}.partial`;
    try {
      copyFileSync(packed, partial, constants.COPYFILE_EXCL);
      renameSync(partial, cached);
    } finally {
      rmSync(partial, { force: true });
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Whether the packer that made `lock` is gone (a run killed while packing), so that the lock holds nothing back. */
function isStale(lock: string): boolean {
  try {
    const pid = Number.parseInt(readFileSync(lock, 'utf8'), 10);
    if (Number.isNaN(pid)) return Date.now() - statSync(lock).mtimeMs > UNWRITTEN_LOCK_MS;
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // ENOENT: the packer is done, and the caller looks again.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * The tarball `npm pack` makes of the tree, from the cache when the tree is unchanged since.
 * Of the test files that ask for it at once, the one that makes `<tarball>.lock` (O_EXCL, its
 * pid in it) packs, and the others wait for its tarball. Should two ever pack at once (a stale
 * lock removed by two waiters), each renames a whole tarball of the same sources into place.
 */
export async function packedTarball(): Promise<string> {
  const entries = readdirSync(ROOT).filter((name) => !NOT_SOURCES.has(name));
  mkdirSync(TESTS_CACHE, { recursive: true });
  const cached = path.join(TESTS_CACHE, `slowdisk-${await sourcesDigest(entries)}.tgz`);
  const lock = `${cached}.lock`;
  for (;;) {
    if (existsSync(cached)) return cached;
    try {
      writeFileSync(lock, `${process.pid}\n`, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (isStale(lock)) rmSync(lock, { force: true });
      else await sleep(1000);
      continue;
    }
    try {
      if (!existsSync(cached)) await pack(entries, cached);
    } finally {
      rmSync(lock, { force: true });
    }
  }
}

/**
 * Shell commands that hide every build tool in the mount namespace they run in: each file a
 * tool's name leads to on PATH bound over by an empty file made in `dir`, and the compiler's
 * own programs (cc1plus, ...) under a tmpfs.
 */
export function hideBuildTools(dir: string): string[] {
  const files = new Set<string>();
  for (const pathDir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    for (const tool of BUILD_TOOLS) {
      const file = path.join(pathDir, tool);
      if (existsSync(file)) files.add(realpathSync(file));
    }
  }
  const empty = path.join(mkdtempSync(path.join(dir, 'hidden-')), 'empty');
  writeFileSync(empty, '', { mode: 0o644, flag: 'wx' });
  const hide = [...files].map((file) => `mount --bind ${quote(empty)} ${quote(file)}`);
  if (existsSync('/usr/lib/gcc')) hide.push('mount -t tmpfs none /usr/lib/gcc');
  return hide;
}

const quote = (word: string): string => `'${word.replaceAll("'", "'\\''")}'`;
