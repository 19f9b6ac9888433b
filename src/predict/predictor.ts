// One disk's early warning: fed one sample per sample period, it answers with the probability
// that the disk's inspection P99 exceeds the SLA within the horizon, from the model the
// parameters name. Pure: the caller passes the time with each sample.
import { linearTrendScore } from './linear-trend.js';
import { type FeatureName, networkProbability, type NetworkModel, windowInputs } from './network.js';
import { horizonSamples, type PredictorModel, type PredictorParams, predictorParams } from './predictor-params.js';
import { type PredictorSample, sampleFeatures, type SampleFeatures } from './sample-features.js';
import { SHIPPED_NETWORK } from './shipped-network.js';

const COUNTERS = ['queueDepth', 'iops', 'errors'] as const satisfies readonly FeatureName[];

export interface Prediction {
  /** The caller's time of the sample. */
  atMs: number;
  /** Null while the window holds fewer than `minSamples` samples; 1 while this sample's P99 is over the SLA. */
  probability: number | null;
  /** The probability is above `warnProbability`. */
  warning: boolean;
  model: PredictorModel;
  /** Samples in the window (up to `windowSamples`). */
  samples: number;
  /** The P99 of this sample (ms), timeouts counted. */
  p99Ms: number;
  /** Counters the model reads that some sample of the window lacked: taken as 0. */
  missing: FeatureName[];
  /** Counters the caller gave that the model does not read (it was not trained on them). */
  ignored: FeatureName[];
}

export class Predictor {
  readonly params: PredictorParams;
  private readonly window: SampleFeatures[] = [];
  private lastAtMs = -Infinity;
  private last: Prediction | null = null;

  constructor(
    params: Partial<PredictorParams> = {},
    private readonly network: NetworkModel = SHIPPED_NETWORK,
  ) {
    this.params = predictorParams(params);
    if (this.params.model === 'network') {
      for (const key of ['sampleMs', 'windowSamples', 'horizonMs'] as const) {
        if (this.params[key] !== network[key]) {
          throw new RangeError(`predictor: the network was trained with ${key} ${network[key]}, not ${this.params[key]}; use model 'trend' for other values`);
        }
      }
    }
  }

  /**
   * Adds the sample of the period that ended at `atMs`. A period with no inspection and no
   * unanswered tick changes nothing (the last prediction is returned, or null); a gap of more
   * than one and a half periods since the last sample starts the window afresh.
   */
  observe(atMs: number, sample: PredictorSample): Prediction | null {
    if (!(atMs > this.lastAtMs)) throw new RangeError(`predictor: samples must come in time order (${atMs} after ${this.lastAtMs})`);
    const features = sampleFeatures(sample, this.params.timeoutMs);
    if (features === null) return this.last;
    if (atMs - this.lastAtMs > 1.5 * this.params.sampleMs) this.window.length = 0;
    this.lastAtMs = atMs;
    this.window.push(features);
    if (this.window.length > this.params.windowSamples) this.window.shift();
    this.last = this.predict(atMs, features);
    return this.last;
  }

  private predict(atMs: number, latest: SampleFeatures): Prediction {
    const { params, window } = this;
    const read: readonly FeatureName[] = params.model === 'network' ? this.network.features : [];
    // A breach under way has nothing left to predict (the models learnt only what comes
    // before one, and fall back while it lasts): the disk stays warned of until it ends.
    const breaching = latest.p99Ms > params.slaMs;
    const probability = window.length < params.minSamples ? null : breaching ? 1 : this.probability();
    return {
      atMs,
      probability,
      warning: probability !== null && probability > params.warnProbability,
      model: params.model,
      samples: window.length,
      p99Ms: latest.p99Ms,
      missing: COUNTERS.filter((name) => read.includes(name) && window.some((s) => s[name] === null)),
      ignored: COUNTERS.filter((name) => !read.includes(name) && latest[name] !== null),
    };
  }

  private probability(): number {
    const { params, window, network } = this;
    if (params.model === 'trend') {
      return linearTrendScore(
        window.map((s) => s.p99Ms),
        horizonSamples(params),
        params.slaMs,
        params.trendSoftness,
      ).probability;
    }
    return networkProbability(network, windowInputs(window, params.windowSamples, network.features, params.slaMs));
  }
}
