// The C++ test programs, built once for what they are built from: a build whose compiler,
// command lines and input files are all as they were is taken from the cache, so that a second
// run of the tests compiles nothing. The cache lives in node_modules/.cache (outside git, and
// gone with a fresh `npm ci`), never under the world-writable /tmp: root runs what it holds.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CACHE = fileURLToPath(new URL('../../node_modules/.cache/slowdisk-test-programs/', import.meta.url));

export interface BuildRecipe {
  /** The compiler run; its --version is part of what the build is made from. */
  compiler: string;
  /** The files compiled or linked in, or included: their contents are. */
  inputs: string[];
  /** Whatever else decides the output (flags, defines, include directories). */
  settings: unknown;
}

/**
 * The directory holding the output of `build`, which writes it into the directory it is given:
 * the cached one when a build of the same recipe was made before, else a new one.
 */
export function cachedBuild(name: string, recipe: BuildRecipe, build: (dir: string) => void): string {
  const hash = createHash('sha256');
  hash.update(execFileSync(recipe.compiler, ['--version']));
  hash.update(JSON.stringify(recipe.settings));
  for (const file of [...recipe.inputs].sort()) hash.update(`\0${file}\0`).update(readFileSync(file));
  const dir = path.join(CACHE, `${name}-${hash.digest('hex').slice(0, 32)}`);
  if (existsSync(dir)) return dir;
  mkdirSync(CACHE, { recursive: true });
  // Built aside, then renamed into place whole: an interrupted build leaves no output that
  // looks complete, and of two made at once the first one in stays.
  const scratch = mkdtempSync(path.join(CACHE, `.${name}-`));
  try {
    build(scratch);
    renameSync(scratch, dir);
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}
