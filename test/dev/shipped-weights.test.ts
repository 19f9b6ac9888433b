// The early warning's shipped weights are what `npm run train:predict` makes from the
// repository's corpus: training is deterministic, and nobody ships weights trained on
// anything else. Training takes a minute of CPU, so it runs only when the digests train.ts
// recorded (of its inputs, of the weights) no longer match the repository.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { currentDigests, RECORDED_DIGESTS, SHIPPED_WEIGHTS } from '../../dev/predict/training-inputs.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** The weights training gives now (needs dist-dev/ built: it runs the compiled train.ts). */
function trainedWeights(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'slowdisk-train-'));
  try {
    const out = path.join(dir, 'weights.json');
    const run = spawnSync(process.execPath, [path.join(ROOT, 'dist-dev/dev/predict/train.js'), '--out', out], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    return readFileSync(out, 'utf8');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('the predictor network', () => {
  it('ships the weights that dev/predict/train.ts produces from the repository', () => {
    const recorded = readFileSync(path.join(ROOT, RECORDED_DIGESTS), 'utf8');
    const current = currentDigests();
    const regenerate = 'run `npm run train:predict` and commit what it writes';
    if (current !== recorded) {
      expect(trainedWeights(), `the training's inputs or the weights changed, and training no longer gives ${SHIPPED_WEIGHTS}: ${regenerate}`).toBe(
        readFileSync(path.join(ROOT, SHIPPED_WEIGHTS), 'utf8'),
      );
    }
    expect(current, `training's inputs changed and still give ${SHIPPED_WEIGHTS}, but ${RECORDED_DIGESTS} does not say so, so each run trains again: ${regenerate}`).toBe(recorded);
  }, 300_000);
});
