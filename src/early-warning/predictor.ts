// One disk's early warning: fed one sample per sample period, it answers with the probability
// that the disk's inspection P99 exceeds the SLA within the horizon, from the model the
// parameters name, and whether the disk is in state warning: entered on a probability above
// the warning level held, with a rising trend, for `confirmSamples` once the disk's P99 is at
// `levelShare` of the SLA and its P90 at `levelP90Share`, and for `lowConfirmSamples` below
// that, or held `levelHoldSamples` at that level; left once the disk has held under the SLA
// without a rising trend for `clearAfterMs` (hysteresis), with the reason, and not entered
// again until its level climbs `regainShare` of the way from there to the SLA. The probability
// is the disk's own: given its peers' readings of the same period (host-predictors.ts), the
// share of the reading the host shows too is taken out (ownChance). Pure: the caller passes
// the time with each sample.
import { evidenceWindow, median } from './evidence-window.js';
import { leastSquaresLine, linearTrendScore } from './linear-trend.js';
import { type FeatureName, LATENCY_FLOOR_MS, networkProbability, type NetworkModel, windowInputs } from './network.js';
import { ownChance } from './own-chance.js';
import { clearSamples, horizonSamples, type PredictorModel, type PredictorParams, predictorParams } from './predictor-params.js';
import { type PredictorSample, sampleFeatures, type SampleFeatures } from './sample-features.js';
import { SHIPPED_NETWORK } from './shipped-network.js';

const COUNTERS = ['queueDepth', 'iops', 'errors'] as const satisfies readonly FeatureName[];

/**
 * Why a warning ended: `steady`, the disk held under the SLA without a rising trend for
 * `clearAfterMs`; `gap`, no sample for more than one and a half periods, so the window
 * started afresh.
 */
export const CLEAR_REASONS = ['steady', 'gap'] as const;
export type ClearReason = (typeof CLEAR_REASONS)[number];

export interface Prediction {
  /** The caller's time of the sample. */
  atMs: number;
  /** Null while the window holds fewer than `minSamples` samples; 1 while this sample's P99 is over the SLA. */
  probability: number | null;
  /** The disk is in state warning (see the class comment). */
  warning: boolean;
  /** At the sample whose warning ended, why; null at every other. */
  cleared: ClearReason | null;
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
  /** Samples in a row with the probability above warnProbability. */
  private above = 0;
  /** Samples in a row with a rising trend. */
  private risingFor = 0;
  private warned = false;
  /** Samples since the warning started. */
  private warnedFor = 0;
  /** A new warning may start; false after one cleared, until the model has come down again. */
  private armed = true;
  /** The level a cleared warning let the disk go at (ms), until it comes down from it; null when none. */
  private letGoAtMs: number | null = null;
  private pendingClear: ClearReason | null = null;
  /** The sample read and not yet judged, with the model's reading of it. */
  private pending: { atMs: number; features: SampleFeatures; reading: number | null } | null = null;

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
   * Adds the sample of the period that ended at `atMs` and judges it alone, with no peers. A
   * period with no inspection and no unanswered tick changes nothing (the last prediction is
   * returned, or null); a gap of more than one and a half periods since the last sample starts
   * the window afresh.
   */
  observe(atMs: number, sample: PredictorSample): Prediction | null {
    this.read(atMs, sample);
    return this.judge([]);
  }

  /**
   * Adds the sample of the period that ended at `atMs`, as `observe` does, and returns the
   * model's reading of the window (1 while its P99 is over the SLA), or null: none yet, or no
   * inspection in the period. The sample is judged by `judge`, once the peers' readings of the
   * same period are known.
   */
  read(atMs: number, sample: PredictorSample): number | null {
    if (!(atMs > this.lastAtMs)) throw new RangeError(`predictor: samples must come in time order (${atMs} after ${this.lastAtMs})`);
    this.pending = null;
    const features = sampleFeatures(sample, this.params.timeoutMs);
    if (features === null) return null;
    if (atMs - this.lastAtMs > 1.5 * this.params.sampleMs) this.restart();
    this.lastAtMs = atMs;
    this.window.push(features);
    if (this.window.length > this.params.windowSamples) this.window.shift();
    const reading = this.window.length < this.params.minSamples ? null : features.p99Ms > this.params.slaMs ? 1 : this.probability();
    this.pending = { atMs, features, reading };
    return reading;
  }

  /**
   * The prediction of the sample `read` last, given the readings of the disk's peers for the
   * same period (empty: no peers, or `peerCondition` off); the last prediction, or null, when
   * that period had no inspection.
   */
  judge(peerReadings: readonly number[]): Prediction | null {
    if (this.pending === null) return this.last;
    const { atMs, features, reading } = this.pending;
    this.pending = null;
    const peers = this.params.peerCondition ? peerReadings : [];
    // A breach under way is the disk's own, whoever shares it: its probability stays 1.
    const probability = reading === null || features.p99Ms > this.params.slaMs ? reading : ownChance(reading, peers);
    this.last = this.predict(atMs, features, probability);
    return this.last;
  }

  private restart(): void {
    this.window.length = 0;
    if (this.warned) this.pendingClear = 'gap';
    this.warned = false;
    this.above = 0;
    this.risingFor = 0;
    this.armed = true;
    this.letGoAtMs = null;
  }

  private predict(atMs: number, latest: SampleFeatures, probability: number | null): Prediction {
    const { params, window } = this;
    const read: readonly FeatureName[] = params.model === 'network' ? this.network.features : [];
    // A breach under way has nothing left to predict (the models learnt only what comes
    // before one, and fall back while it lasts): the disk stays warned of until it ends.
    const breaching = latest.p99Ms > params.slaMs;
    // A breach counts towards the confirmation from its first sample, before the window has a probability.
    const high = breaching || (probability !== null && probability > params.warnProbability);
    this.above = high ? this.above + 1 : 0;
    const rising = this.rising();
    this.risingFor = rising ? this.risingFor + 1 : 0;
    let cleared = this.pendingClear;
    this.pendingClear = null;
    if (!high || rising) this.armed = true;
    this.warnedFor = this.warned ? this.warnedFor + 1 : 0;
    const n = clearSamples(params);
    const held = window.length >= n && !rising && window.slice(-n).every((s) => s.p99Ms <= params.slaMs);
    // Near the SLA already, the usual confirmation; below it, a longer one (see the parameters).
    const recent = window.slice(-params.levelSamples);
    const levelMs = median(recent.map((s) => s.p99Ms));
    const level =
      params.levelShare === 0 ||
      breaching ||
      (levelMs >= params.levelShare * params.slaMs && median(recent.map((s) => s.p90Ms)) >= params.levelP90Share * params.slaMs);
    const confirm = level ? params.confirmSamples : params.lowConfirmSamples;
    const confirmed = this.above >= confirm && (this.armed || breaching) && (this.risingFor >= confirm || breaching || !params.needRisingTrend);
    const hovering = params.levelShare > 0 && params.levelHoldSamples > 0 && level && this.armed && this.above >= params.levelHoldSamples;
    // Where the disk holds now, over as long as it held when let go.
    const holdingMs = median(window.slice(-n).map((s) => s.p99Ms));
    if (this.letGoAtMs !== null && holdingMs < this.letGoAtMs / 2) this.letGoAtMs = null;
    const regained = this.letGoAtMs === null || breaching || holdingMs > this.letGoAtMs + params.regainShare * (params.slaMs - this.letGoAtMs);
    if (this.warned && this.warnedFor >= n && held) {
      this.warned = false;
      this.armed = !high;
      if (params.regainShare > 0) this.letGoAtMs = holdingMs;
      cleared = 'steady';
    } else if (!this.warned && probability !== null && regained && (confirmed || hovering)) {
      this.warned = true;
    }
    return {
      atMs,
      probability,
      warning: this.warned,
      cleared,
      model: params.model,
      samples: window.length,
      p99Ms: latest.p99Ms,
      missing: COUNTERS.filter((name) => read.includes(name) && window.some((s) => s[name] === null)),
      ignored: COUNTERS.filter((name) => !read.includes(name) && latest[name] !== null),
    };
  }

  /**
   * Whether the least-squares line through the logs of the P99s of the last `clearAfterMs` of
   * samples (read as the evidence rule says) reaches the SLA within the horizon, in logs so
   * that a slowdown growing by the same ratio each sample is seen rising from its start; and
   * the line through the P90s (in ms) of the last `linearRiseSamples` reaches
   * `linearRiseShare` of it within `linearRiseHorizonMs`, so that a climb of a few ms a
   * sample from a low base, or a pair of spikes in the P99s, is not.
   */
  private rising(): boolean {
    const { params, window } = this;
    const n = Math.min(clearSamples(params), window.length);
    const logs = window.slice(-n).map((s) => [Math.log(Math.max(s.p99Ms, LATENCY_FLOOR_MS))]);
    const inLogs = leastSquaresLine(evidenceWindow(logs, n).map(([x]) => x));
    if (inLogs.last + Math.max(0, inLogs.slope) * horizonSamples(params) <= Math.log(params.slaMs)) return false;
    if (params.linearRiseSamples === 0) return true;
    const m = Math.min(params.linearRiseSamples, window.length);
    const inMs = leastSquaresLine(evidenceWindow(window.map((s) => [s.p90Ms]), params.windowSamples).slice(-m).map(([x]) => x));
    return inMs.last + Math.max(0, inMs.slope) * (params.linearRiseHorizonMs / params.sampleMs) > params.linearRiseShare * params.slaMs;
  }

  private probability(): number {
    const { params, window, network } = this;
    if (params.model === 'trend') {
      return linearTrendScore(
        evidenceWindow(window.map((s) => [s.p99Ms]), params.windowSamples).map(([p99]) => p99),
        horizonSamples(params),
        params.slaMs,
        params.trendSoftness,
      ).probability;
    }
    return networkProbability(network, windowInputs(window, params.windowSamples, network.features, params.slaMs));
  }
}
