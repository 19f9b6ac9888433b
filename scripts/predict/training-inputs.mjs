// What the predictor's shipped weights are made from, and a digest of it: the training script,
// every source file it loads (followed through their imports, the development code's and
// src/'s), and the recordings it reads. train.mjs records the digest beside the weights'
// own when it writes the shipped weights; test/dev/shipped-weights.test.ts trains again only
// when either no longer matches, since training takes a minute of CPU.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ENTRY = 'scripts/predict/train.mjs';
/** This file: train.mjs loads it to record the digests, but nothing trained depends on it. */
const SELF = path.relative(ROOT, fileURLToPath(import.meta.url));
const RECORDINGS = 'data/predict/traces';
export const SHIPPED_WEIGHTS = 'src/early-warning/network-weights.json';
/** Where train.mjs records the digests; not an input itself. */
export const RECORDED_DIGESTS = 'data/predict/network-weights.digests';

// Static imports and re-exports, dynamic imports, side-effect imports, and the scripts'
// loads of dist-dev/ through their dev() helper, each compiled from the .ts file of the same path.
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+|\bdev\(\s*)'([^']+)'/g;

/** The file a specifier names, relative to the root; null for a package or node: module. */
function resolved(from, statement, specifier) {
  if (statement.startsWith('dev(')) return specifier.replace(/\.js$/, '.ts');
  if (!specifier.startsWith('.')) return null;
  const target = path.relative(ROOT, path.resolve(ROOT, path.dirname(from), specifier));
  return from.endsWith('.ts') ? target.replace(/\.js$/, '.ts') : target;
}

/** The inputs, as paths relative to the repository's root, sorted. */
export function trainingInputs() {
  const files = new Set();
  const pending = [ENTRY];
  while (pending.length > 0) {
    const file = pending.pop();
    if (files.has(file)) continue;
    files.add(file);
    for (const [statement, specifier] of readFileSync(path.join(ROOT, file), 'utf8').matchAll(IMPORT)) {
      const target = resolved(file, statement, specifier);
      if (target === null || target === SHIPPED_WEIGHTS || target === SELF) continue;
      if (!existsSync(path.join(ROOT, target))) throw new Error(`${file} imports ${specifier}, which is not ${target}`);
      pending.push(target);
    }
  }
  for (const name of readdirSync(path.join(ROOT, RECORDINGS))) if (/\.(jsonl\.gz|schedule)$/.test(name)) files.add(`${RECORDINGS}/${name}`);
  return [...files].sort();
}

const sha256 = (data) => createHash('sha256').update(data).digest('hex');

/** The digests train.mjs records: of the inputs (each path with its content's digest) and of the weights. */
export function currentDigests() {
  const inputs = trainingInputs().map((file) => `${file}\0${sha256(readFileSync(path.join(ROOT, file)))}\n`);
  return `inputs ${sha256(inputs.join(''))}\nweights ${sha256(readFileSync(path.join(ROOT, SHIPPED_WEIGHTS)))}\n`;
}
