// What the predictor's shipped weights are made from, and a digest of it: the training script,
// every source file it loads (followed through their imports, the development code's and
// src/'s), and the recordings it reads. train.ts records the digest beside the weights' own
// when it writes the shipped weights; test/dev/shipped-weights.test.ts trains again only when
// either no longer matches, since training takes a minute of CPU.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from '../repo-root.js';

/** The training script, as the weights name it. */
export const TRAINING_SCRIPT = 'dev/predict/train.ts';
/** This file: train.ts loads it to record the digests, but nothing trained depends on it. */
const SELF = 'dev/predict/training-inputs.ts';
const RECORDINGS = 'data/predict/traces';
export const SHIPPED_WEIGHTS = 'src/early-warning/network-weights.json';
/** Where train.ts records the digests; not an input itself. */
export const RECORDED_DIGESTS = 'data/predict/network-weights.digests';

// Static imports and re-exports, dynamic imports and side-effect imports.
const IMPORT = /(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'([^']+)'/g;

/** The file a specifier names, relative to the root (a .js specifier names its .ts source); null for a package or node: module. */
function resolved(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  return path.relative(REPO_ROOT, path.resolve(REPO_ROOT, path.dirname(from), specifier)).replace(/\.js$/, '.ts');
}

/** The inputs, as paths relative to the repository's root, sorted. */
export function trainingInputs(): string[] {
  const files = new Set<string>();
  const pending = [TRAINING_SCRIPT];
  while (pending.length > 0) {
    const file = pending.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const [, specifier] of readFileSync(path.join(REPO_ROOT, file), 'utf8').matchAll(IMPORT)) {
      const target = resolved(file, specifier);
      if (target === null || target === SHIPPED_WEIGHTS || target === SELF) continue;
      if (!existsSync(path.join(REPO_ROOT, target))) throw new Error(`${file} imports ${specifier}, which is not ${target}`);
      pending.push(target);
    }
  }
  for (const name of readdirSync(path.join(REPO_ROOT, RECORDINGS))) if (/\.(jsonl\.gz|schedule)$/.test(name)) files.add(`${RECORDINGS}/${name}`);
  return [...files].sort();
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

/** The digests train.ts records: of the inputs (each path with its content's digest) and of the weights. */
export function currentDigests(): string {
  const inputs = trainingInputs().map((file) => `${file}\0${sha256(readFileSync(path.join(REPO_ROOT, file)))}\n`);
  return `inputs ${sha256(inputs.join(''))}\nweights ${sha256(readFileSync(path.join(REPO_ROOT, SHIPPED_WEIGHTS)))}\n`;
}
