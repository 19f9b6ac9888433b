// @ts-check
// Builds the native addon from the sources in the package (binding.gyp, native/) into
// build/Release, with node-gyp and the running Node's own headers: never a download, so that
// an air-gapped node builds as well as any. Used by the install step when no prebuilt addon
// loads, and by `npm run prebuild` (which cross-compiles with `arch` and `env`).
import { spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The folder above that holds package.json: walked up to, not counted, because the module also
 * runs compiled beside the development scripts (dist-dev/scripts/install/, for `npm run prebuild`).
 * @param {string} start
 * @returns {string}
 */
function rootAbove(start) {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const PACKAGE_ROOT = rootAbove(path.dirname(fileURLToPath(import.meta.url)));

/** The installation prefix of the running Node, whose include/node holds its headers (node-gyp's --nodedir). */
export const NODE_DIR = path.resolve(process.execPath, '../..');

const HEADERS = path.join(NODE_DIR, 'include/node');

/** @param {string} command */
function onPath(command) {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    try {
      accessSync(path.join(dir, command), constants.X_OK);
      return true;
    } catch {
      // not in this directory
    }
  }
  return false;
}

/** The program node-gyp's makefiles compile and link with: $CXX, or make's default. */
const compiler = (/** @type {NodeJS.ProcessEnv} */ env) => (env.CXX ?? 'g++').split(' ')[0];

/**
 * What a build would lack here, each as a user would install it: the compiler, make, python3, Node's headers.
 * @returns {string[]}
 */
export function missingForBuild(env = process.env) {
  /** @type {string[]} */
  const missing = [];
  const cxx = compiler(env);
  if (!(cxx.includes('/') ? existsSync(cxx) : onPath(cxx))) missing.push(`a C++ compiler (${cxx})`);
  if (!onPath('make')) missing.push('make');
  const python = env.PYTHON ?? env.npm_config_python;
  if (!(python ? existsSync(python) || onPath(python) : onPath('python3'))) missing.push('python3');
  if (!existsSync(path.join(HEADERS, 'node_api.h')) || !existsSync(path.join(HEADERS, 'common.gypi'))) missing.push(`Node's headers (${HEADERS})`);
  return missing;
}

/**
 * How to get what is missing, on Debian (and Red Hat) and the like.
 * @param {string[]} missing what missingForBuild found
 */
export function howToGet(missing) {
  const packages = [];
  if (missing.some((what) => what.startsWith('a C++ compiler'))) packages.push('g++');
  if (missing.includes('make')) packages.push('make');
  if (missing.includes('python3')) packages.push('python3');
  const steps = [];
  if (packages.length > 0) steps.push(`apt-get install ${packages.join(' ')} (or dnf install ${packages.join(' ').replace('g++', 'gcc-c++')})`);
  if (missing.some((what) => what.startsWith("Node's headers"))) steps.push(`use a Node from nodejs.org, which has its headers (or apt-get install libnode-dev)`);
  return steps.join(', and ');
}

/**
 * node-gyp: the package's own (a clone), else the one npm runs install scripts with, else one on PATH.
 * @returns {[string, ...string[]]} the command and its first arguments
 */
function nodeGyp() {
  try {
    return [process.execPath, createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js')];
  } catch {
    const bundled = process.env.npm_config_node_gyp;
    return bundled ? [process.execPath, bundled] : ['node-gyp'];
  }
}

/**
 * Runs `node-gyp rebuild` in the package for `arch` (the running Node's by default), with
 * `env` added to the environment (CC, CXX for a cross-compiler). Returns null when it built,
 * else the first line of what the build said went wrong.
 * @param {{ arch?: string, env?: Record<string, string> }} [target]
 * @returns {string | null}
 */
export function buildAddon({ arch = process.arch, env = {} } = {}) {
  const [command, ...args] = nodeGyp();
  const result = spawnSync(command, [...args, 'rebuild', `--arch=${arch}`, `--nodedir=${NODE_DIR}`], {
    cwd: PACKAGE_ROOT,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) return `${command}: ${result.error.message}`;
  if (result.status === 0) return null;
  const output = `${result.stderr}\n${result.stdout}`.split('\n');
  const first = output.find((line) => /\berror\b/i.test(line) && !/^gyp ERR! (stack|System|command|cwd|node -v|node-gyp -v|not ok)/.test(line));
  return (first ?? output.find((line) => line.trim() !== '') ?? `node-gyp exited with code ${result.status}`).trim();
}
