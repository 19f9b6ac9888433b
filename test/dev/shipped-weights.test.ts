// The early warning's shipped weights are what `npm run train:predict` makes from the
// repository's corpus: training is deterministic, and nobody ships weights trained on
// anything else. (About a minute of CPU: a check of a development script, kept out of
// test:unit.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('the predictor network', () => {
  it('ships the weights that scripts/predict/train.mjs produces from the repository (needs dist-dev/ built)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'slowdisk-train-'));
    try {
      const out = path.join(dir, 'weights.json');
      const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/predict/train.mjs'), '--out', out], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      expect(readFileSync(out, 'utf8')).toBe(readFileSync(path.join(ROOT, 'src/early-warning/network-weights.json'), 'utf8'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
