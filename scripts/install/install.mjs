// @ts-check
// The package's install step. A prebuilt addon that loads here (prebuilds/, as node-gyp-build
// picks it) needs nothing more: no compiler, no network. Otherwise the addon is built from
// the package's sources with the running Node's headers, and when that cannot be done, one
// line says what is missing and how to get it.
import { createRequire } from 'node:module';
import { buildAddon, howToGet, missingForBuild, PACKAGE_ROOT } from './build-addon.mjs';

const nodeGypBuild = /** @type {(root: string) => unknown} */ (createRequire(import.meta.url)('node-gyp-build'));

/** Why no addon loads (null when one does): the loader's or the dynamic linker's first line. */
function whyNoAddon() {
  try {
    nodeGypBuild(PACKAGE_ROOT);
    return null;
  } catch (error) {
    const first = String(/** @type {Error} */ (error).message).split('\n')[0];
    return first.startsWith('No native build was found') ? 'none in prebuilds/ is for it' : first;
  }
}

/**
 * @param {string} line
 * @returns {never}
 */
function fail(line) {
  process.stderr.write(`slowdisk: ${line}\n`);
  process.exit(1);
}

const why = whyNoAddon();
if (why !== null) {
  const target = `linux-${process.arch}`;
  const missing = missingForBuild();
  if (missing.length > 0) {
    fail(`no prebuilt addon loads on ${target} (${why}), and building one from source needs ${missing.join(', ')}: ${howToGet(missing)}, then install slowdisk again`);
  }
  const failure = buildAddon();
  if (failure !== null) fail(`no prebuilt addon loads on ${target} (${why}), and building one from source failed: ${failure}`);
  const still = whyNoAddon();
  if (still !== null) fail(`the addon built from source does not load: ${still}`);
}
