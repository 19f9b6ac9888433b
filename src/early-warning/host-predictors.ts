// The early warning of a host's disks, period by period: each disk's predictor reads its own
// sample, then judges it against the readings of the disks that had one in the same period
// (ownChance). Live runs and replays (predictor-feed.ts) and the benchmark go through it, so
// that they take the host's share out alike.
import type { NetworkModel } from './network.js';
import type { PredictorParams } from './predictor-params.js';
import { type Prediction, Predictor } from './predictor.js';
import type { PredictorSample } from './sample-features.js';

export class HostPredictors {
  private readonly predictors = new Map<string, Predictor>();

  constructor(
    private readonly params: Partial<PredictorParams> = {},
    private readonly network?: NetworkModel,
  ) {}

  /**
   * The samples of the period that ended at `atMs`, one per disk: each disk's prediction (the
   * last one, or null, for a disk whose sample had no inspection).
   */
  observe(atMs: number, samples: ReadonlyMap<string, PredictorSample>): Map<string, Prediction | null> {
    const readings = new Map<string, number>();
    for (const [disk, sample] of samples) {
      const reading = this.predictorOf(disk).read(atMs, sample);
      if (reading !== null) readings.set(disk, reading);
    }
    const predictions = new Map<string, Prediction | null>();
    for (const disk of samples.keys()) {
      const peers = [...readings].filter(([other]) => other !== disk).map(([, reading]) => reading);
      predictions.set(disk, this.predictorOf(disk).judge(peers));
    }
    return predictions;
  }

  /** The disk is another disk now (or no longer inspected): its window starts afresh. */
  forget(disk: string): void {
    this.predictors.delete(disk);
  }

  private predictorOf(disk: string): Predictor {
    let predictor = this.predictors.get(disk);
    if (!predictor) this.predictors.set(disk, (predictor = new Predictor(this.params, this.network)));
    return predictor;
  }
}
