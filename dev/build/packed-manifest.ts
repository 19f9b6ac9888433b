// The package.json the package ships: `npm pack` runs `strip` last in prepack and `restore` in
// postpack. An installed package runs only its install step; the development scripts
// (prepare, test, bench ...) would make `npm install -g` list them among the scripts it warns
// about, and they name files the package does not hold. The tree's own package.json is kept
// beside it while the tarball is made, and put back after.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_ROOT } from '../repo-root.js';

const MANIFEST = path.join(REPO_ROOT, 'package.json');
/** Outside the package's "files": never packed. */
const KEPT = path.join(REPO_ROOT, 'package.json.development');

/** The scripts an installed package runs. */
const SHIPPED_SCRIPTS = ['install'];

/** A package.json: its scripts, and the rest kept as it is. */
interface Manifest {
  scripts?: Record<string, string>;
  [field: string]: unknown;
}

export function packedManifest(manifest: Manifest): Manifest {
  const scripts = Object.fromEntries(Object.entries(manifest.scripts ?? {}).filter(([name]) => SHIPPED_SCRIPTS.includes(name)));
  // "imports" maps the benchmarks' `#dist/` specifiers onto the build and its sources: development only.
  const { imports: _developmentImports, ...shipped } = manifest;
  return { ...shipped, scripts };
}

const mode = process.argv[2];
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (mode === 'strip') {
    if (existsSync(KEPT)) throw new Error(`${KEPT} is there: a pack was cut short; put it back as package.json first`);
    const text = readFileSync(MANIFEST, 'utf8');
    writeFileSync(KEPT, text, { flag: 'wx' });
    writeFileSync(MANIFEST, `${JSON.stringify(packedManifest(JSON.parse(text) as Manifest), null, 2)}\n`);
  } else if (mode === 'restore') {
    if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
  } else {
    throw new Error('usage: packed-manifest.js strip|restore');
  }
}
