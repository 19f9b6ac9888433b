// The early warning's recordings of real loop disks (data/predict/traces/): each has one role
// only, the shipped network was trained on the training ones and on no other (their host
// delays, which training and calibration add to generated runs, included), and the
// held-out ones hold healthy disks on both backings (the machine's disk and memory) and
// slowed-down ones, so that the benchmark's figures on real disks come from recordings
// training never saw; on those, a healthy disk is not given a probability that alarms.
import { describe, expect, it } from 'vitest';
import * as corpus from '../../dev/predict/corpus.js';
import { hostPredictions } from '../../dev/predict/host-series.js';
import { HostPredictors } from '../../src/early-warning/host-predictors.js';
import { DEFAULT_PREDICTOR_PARAMS } from '../../src/early-warning/predictor-params.js';
import { SHIPPED_NETWORK } from '../../src/early-warning/shipped-network.js';

const file = (name: string): string => `session-${name}.jsonl.gz`;
const healthy = (d: corpus.CorpusDisk): boolean => !d.faulty && d.levelOffMs === undefined;
// Each held-out recording read once, however many cases judge it (read only).
const runs = new Map<string, corpus.CorpusDisk[]>();
const recordedDisks = (name: string): corpus.CorpusDisk[] => runs.get(name) ?? runs.set(name, corpus.recordedRun(file(name)).disks).get(name)!;

describe('the recordings of real loop disks', () => {
  it('each have one role, and the held-out ones hold both backings, healthy disks and slowed-down ones', () => {
    const { training, calibration, heldOut } = corpus.RECORDINGS;
    const all = [...training, ...calibration, ...heldOut];
    expect(new Set(all).size).toBe(all.length);
    expect(SHIPPED_NETWORK.training).toMatchObject({ selection: { recordings: training.map(file) }, calibration: { selection: { recordings: calibration.map(file) } } });
    expect(corpus.HELD_OUT.recordings).toEqual(heldOut.map(file));
    for (const selection of [corpus.TRAINING, corpus.VALIDATION]) expect(training).toEqual(expect.arrayContaining([...selection.hostDelays!.recordings]));
    expect(SHIPPED_NETWORK.training).toMatchObject({ selection: { hostDelays: corpus.TRAINING.hostDelays }, calibration: { selection: { hostDelays: corpus.VALIDATION.hostDelays } } });
    const disks = heldOut.flatMap(recordedDisks);
    const backings = new Set(disks.filter(healthy).map((d) => (d.disk.endsWith('-tmpfs') ? 'tmpfs' : 'machine disk')));
    expect([...backings].sort()).toEqual(['machine disk', 'tmpfs']);
    expect(disks.filter(healthy).length).toBeGreaterThanOrEqual(20);
    expect(disks.some((d) => d.faulty)).toBe(true);
  });

  /** The probabilities of the held-out healthy disks' samples under the SLA, each disk judged alone or, as a live run judges it, against its peers. */
  function heldOutHealthy(withPeers: boolean): number[] {
    const probabilities: number[] = [];
    for (const name of corpus.RECORDINGS.heldOut) {
      const disks = recordedDisks(name);
      const predictions = hostPredictions(disks, new HostPredictors({ peerCondition: withPeers }));
      for (const disk of disks.filter(healthy)) {
        predictions.get(disk.disk)!.forEach((prediction, i) => {
          // A sample over the SLA (a stall of the whole host) has the probability 1 by rule.
          if (prediction?.atMs === disk.samples[i]!.atMs && prediction.probability !== null && disk.features[i]!.p99Ms <= DEFAULT_PREDICTOR_PARAMS.slaMs) {
            probabilities.push(prediction.probability);
          }
        });
      }
    }
    return probabilities;
  }

  it('a healthy held-out disk, idle or under fio on either backing, is given under 0.05 at 95 % of its samples judged alone', () => {
    const probabilities = heldOutHealthy(false);
    expect(probabilities.length).toBeGreaterThanOrEqual(500);
    expect(probabilities.filter((p) => p < 0.05).length / probabilities.length).toBeGreaterThanOrEqual(0.95);
  });

  it('judged against its peers, as a live run judges it, it is given under 0.05 at 99 % of its samples', () => {
    const alone = heldOutHealthy(false);
    const withPeers = heldOutHealthy(true);
    expect(withPeers.length).toBe(alone.length);
    expect(withPeers.filter((p) => p < 0.05).length / withPeers.length).toBeGreaterThanOrEqual(0.99);
    // What the peers take out are the host's stalls, which every disk of it shows.
    expect(alone.filter((p) => p < 0.05).length / alone.length).toBeLessThan(0.99);
  });
});
