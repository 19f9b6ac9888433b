// The early warning's recordings of real loop disks (data/predict/traces/): each has one role
// only, the shipped network was trained on the training ones and on no other, and the
// held-out ones hold healthy disks on both backings (the machine's disk and memory) and
// slowed-down ones, so that the benchmark's figures on real disks come from recordings
// training never saw. Needs dist-dev/ built (the corpus reads it).
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SHIPPED_NETWORK } from '../../src/early-warning/shipped-network.js';
import type { PredictorSample } from '../../src/early-warning/sample-features.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

interface RecordedDisk {
  disk: string;
  faulty: boolean;
  levelOffMs?: number;
  samples: { atMs: number; sample: PredictorSample }[];
  features: { p99Ms: number }[];
}
interface Corpus {
  RECORDINGS: Record<'training' | 'calibration' | 'heldOut', string[]>;
  TRAINING: { recordings: string[] };
  HELD_OUT: { recordings: string[] };
  recordedRun: (file: string) => { disks: RecordedDisk[] };
}

const corpus = (await import(pathToFileURL(path.join(ROOT, 'scripts/predict/corpus.mjs')).href)) as Corpus;
const file = (name: string): string => `session-${name}.jsonl.gz`;
const healthy = (d: RecordedDisk): boolean => !d.faulty && d.levelOffMs === undefined;

describe('the recordings of real loop disks', () => {
  it('each have one role, and the held-out ones hold both backings, healthy disks and slowed-down ones', () => {
    const { training, calibration, heldOut } = corpus.RECORDINGS;
    const all = [...training, ...calibration, ...heldOut];
    expect(new Set(all).size).toBe(all.length);
    expect(SHIPPED_NETWORK.training).toMatchObject({ selection: { recordings: training.map(file) }, calibration: { selection: { recordings: calibration.map(file) } } });
    expect(corpus.HELD_OUT.recordings).toEqual(heldOut.map(file));
    const disks = heldOut.flatMap((name) => corpus.recordedRun(file(name)).disks);
    const backings = new Set(disks.filter(healthy).map((d) => (d.disk.endsWith('-tmpfs') ? 'tmpfs' : 'machine disk')));
    expect([...backings].sort()).toEqual(['machine disk', 'tmpfs']);
    expect(disks.filter(healthy).length).toBeGreaterThanOrEqual(20);
    expect(disks.some((d) => d.faulty)).toBe(true);
  });
});
