// A recorded or generated run's disks fed to one host's predictors period by period, as a
// live run feeds them (src/early-warning/predictor-feed.ts): each disk judged against the
// disks that had a sample in the same period. For the benchmark and the tests of the corpus.
import type { HostPredictors } from '../../src/early-warning/host-predictors.js';
import type { Prediction } from '../../src/early-warning/predictor.js';
import type { PredictorSample } from '../../src/early-warning/sample-features.js';

export interface DiskSeries {
  disk: string;
  samples: readonly { atMs: number; sample: PredictorSample }[];
}

/** Each disk's predictions, one per sample of its series, in order. */
export function hostPredictions(disks: readonly DiskSeries[], host: HostPredictors): Map<string, (Prediction | null)[]> {
  const periods = new Map<number, Map<string, PredictorSample>>();
  for (const { disk, samples } of disks) {
    for (const { atMs, sample } of samples) {
      if (!periods.has(atMs)) periods.set(atMs, new Map());
      periods.get(atMs)!.set(disk, sample);
    }
  }
  const byDisk = new Map(disks.map(({ disk }) => [disk, [] as (Prediction | null)[]]));
  for (const atMs of [...periods.keys()].sort((a, b) => a - b)) {
    for (const [disk, prediction] of host.observe(atMs, periods.get(atMs)!)) byDisk.get(disk)!.push(prediction);
  }
  return byDisk;
}
