// Every parameter of the early-warning predictor (docs/design/early-warning.md), with the values of
// CTyun's slow-disk detection article (its section 3) as defaults where it gives them, and the
// specs of those a flag sets.
import { formatDuration, HOUR_MS } from '../common/durations.js';
import type { ParamSpec } from '../common/param-spec.js';
import { DEFAULT_SCORE_PARAMS } from '../score/score-params.js';

/** Which model turns a window of samples into a probability. */
export const PREDICTOR_MODELS = ['network', 'trend'] as const;
export type PredictorModel = (typeof PREDICTOR_MODELS)[number];

export interface PredictorParams {
  /** The SLA on a disk's inspection P99 (article: 200 ms): the predictor warns before it is exceeded. */
  slaMs: number;
  /** A probability above this puts the disk in state `warning` (article: 0.7). */
  warnProbability: number;
  /** One sample per disk per this much of the caller's clock (article: 15 s). */
  sampleMs: number;
  /** The window the model reads: this many samples (article: 20, 5 minutes). */
  windowSamples: number;
  /** The question asked: will the P99 of a sample exceed the SLA within this long (article: 5 minutes)? */
  horizonMs: number;
  /**
   * A tick with no good result (an error, or an inspection still running) counts as an
   * inspection of at least this many milliseconds: TiKV's inspection timeout (the interval).
   */
  timeoutMs: number;
  /**
   * No probability before this many samples. A window not yet full is padded with its own
   * median sample, so that where the window began (a burst in its first sample) cannot look
   * like a trend.
   */
  minSamples: number;
  /**
   * A warning needs the probability above `warnProbability` at this many samples in a row.
   * With 2, a single 15 s sample that breaches or jumps and recovers is a burst:
   * by the next sample the model reads it through a median of three, and it is gone.
   */
  confirmSamples: number;
  /**
   * The network behind a rule: with true, a warning also needs a rising trend (the line
   * through the logs of the P99s of the last `clearAfterMs`, read as the evidence rule says, reaching the
   * SLA within the horizon, and the straight line through the P90s of `linearRiseSamples`
   * reaching `linearRiseShare` of it within `linearRiseHorizonMs`), held for `confirmSamples`
   * samples in a row like the probability, or a breach under way. A climb that is levelling
   * off far below the SLA is not warned of, however much it looks like the start of a ramp.
   */
  needRisingTrend: boolean;
  /**
   * The rising trend also needs the straight line through the P90s (in ms, not their logs)
   * of the last this many samples, read as the evidence rule says, to reach
   * `linearRiseShare` of the SLA within `linearRiseHorizonMs` (0: no such condition). In
   * logs, any climb from a low base looks steep (1 to 8 ms on an SSD is x8); in ms, a climb
   * that will level off a few tens of ms up gains a few ms a sample, one heading past the SLA
   * far more. The P90, not the P99: a 15 s sample's P99 is its slowest one or two
   * inspections, and two spikes in a row (which the median of three keeps) tilt a line
   * through the P99s as much as a ramp does; the P90 moves with the disk's usual latency.
   */
  linearRiseSamples: number;
  /**
   * How far ahead the straight line of `linearRiseSamples` may reach `linearRiseShare` of the
   * SLA (ms, a whole number of samples): longer than the horizon, since a straight line lags
   * a slowdown that grows by the same ratio each sample.
   */
  linearRiseHorizonMs: number;
  /**
   * The share of the SLA the straight line through the P90s must reach (above 0): the P90 is
   * below the P99 that the SLA is on (a median 1.33 times the P90 on the benchmark's ramps).
   */
  linearRiseShare: number;
  /**
   * The level at which `confirmSamples` is enough: the median of the P99s of the last
   * `levelSamples` samples at or above this share of the SLA (0: at any level), and that of
   * their P90s at `levelP90Share` of it. Below it, the probability and the rising trend must
   * hold `lowConfirmSamples` samples in a row. A slowdown that climbs through half the SLA
   * minutes before its breach is warned of as soon as ever; a climb that levels off a few
   * tens of ms up, or a step, must last a minute before it is warned of, and is rarely still
   * rated high and rising by then.
   */
  levelShare: number;
  /**
   * The level also needs the median of the same samples' P90s at or above this share of the
   * SLA (0: no such condition); 0.375 is half of it over 1.33, the P99's median ratio to the
   * P90 on the benchmark's ramps. A 15 s P99 is its slowest one or two inspections: an HDD
   * levelling off far under the SLA has spikes enough that the median of 5 of its P99s
   * reaches half of it, while its P90 stays at its usual latency.
   */
  levelP90Share: number;
  /** How many of the last samples (at most the window's) the level is the median of: a pair of spikes in a row is not a level. */
  levelSamples: number;
  /** The confirmation below `levelShare` of the SLA (samples in a row). */
  lowConfirmSamples: number;
  /**
   * At or above `levelShare` of the SLA, the probability above `warnProbability` at this many
   * samples in a row warns without a rising trend (0: never): a slowdown that crept up to
   * near the SLA and hovers there, where one spike more breaches it.
   */
  levelHoldSamples: number;
  /**
   * A warning clears once the disk has held under the SLA this long (ms, a whole number of
   * samples) without a rising trend: every P99 of the last `clearAfterMs` at or below the
   * SLA, and no rising trend (`needRisingTrend`'s two lines) at the last of them; and a
   * warning stands at least that long. A disk that
   * levelled off is let go even if the model still rates it high; it is warned of again only
   * once the model has come down and gone back up, or the trend rises, or it breaches.
   */
  clearAfterMs: number;
  /**
   * After a warning cleared (`steady`), a new one needs the median of the P99s of the last
   * `clearAfterMs` to have climbed this share of the way from where the disk was let go (that
   * median over the hold) to the SLA, or a breach (0: no such condition). A disk that levels
   * off near the SLA is rated high and, now and then, rising on its noise alone: let go once,
   * it stays let go while it holds. That median back under half the one let go at ends the
   * condition. Over the hold's length, not `levelSamples`: a level near a multiple of the
   * interval has P99s that jump between two values, and 3 of 5 samples on the higher one are
   * no climb.
   */
  regainShare: number;
  /**
   * The model: the article's three-layer network (weights in network-weights.json), or the
   * linear trend of the P99 over the window. The default is whichever did better in
   * `npm run bench:predict` on scenarios and seeds that training never saw (see docs/early-warning.md).
   */
  model: PredictorModel;
  /**
   * The linear trend's score is a logistic function of the margin between its projected P99
   * and the SLA, on a scale of this share of the SLA: with 0.1 the score is 0.5 at the SLA
   * and 0.7 at 8.5 % above it.
   */
  trendSoftness: number;
  /**
   * Judge a disk against its peers: of its reading, the share that the median of the other
   * disks' readings of the same period shows too is the host's, and taken out (own-chance.ts).
   * A stall of the whole machine raises every disk's reading together; a disk's own slowdown
   * raises its reading alone. Off, or on a host of one disk, a disk's reading is its probability.
   */
  peerCondition: boolean;
}

export const DEFAULT_PREDICTOR_PARAMS: Readonly<PredictorParams> = Object.freeze({
  slaMs: 200,
  warnProbability: 0.7,
  sampleMs: 15_000,
  windowSamples: 20,
  horizonMs: 300_000,
  timeoutMs: DEFAULT_SCORE_PARAMS.timeoutMs,
  minSamples: 4,
  confirmSamples: 2,
  needRisingTrend: true,
  linearRiseSamples: 4,
  linearRiseHorizonMs: 450_000,
  linearRiseShare: 0.7,
  levelShare: 0.5,
  levelP90Share: 0.375,
  levelSamples: 5,
  lowConfirmSamples: 4,
  levelHoldSamples: 6,
  clearAfterMs: 150_000,
  regainShare: 0.25,
  model: 'network',
  trendSoftness: 0.1,
  peerCondition: true,
});

const d = DEFAULT_PREDICTOR_PARAMS;

/** The predictor's flags, all recorded in a trace; --sla from the recorder's resolution to an hour. */
export const PREDICTOR_SPECS: readonly ParamSpec<keyof PredictorParams>[] = Object.freeze([
  {
    key: 'slaMs',
    flag: '--sla <duration>',
    kind: 'duration',
    default: d.slaMs,
    range: { minMs: 0.001, maxMs: HOUR_MS },
    meaning: `the SLA on each disk's inspection P99 (${formatDuration(d.sampleMs)} samples); a disk is warned of before it exceeds it`,
    group: 'early-warning',
    trace: 'sla_ms',
  },
  {
    key: 'warnProbability',
    flag: '--warn-probability <p>',
    kind: 'probability',
    default: d.warnProbability,
    meaning: `a disk whose predicted chance of exceeding the SLA within ${formatDuration(d.horizonMs)} is above this at ${d.confirmSamples} samples in a row (${d.lowConfirmSamples} while its P99 is under ${d.levelShare} of the SLA or its P90 under ${d.levelP90Share}), its latency rising, is in state 'warning' (at least WARNING), until it has held under the SLA without a rising trend for ${formatDuration(d.clearAfterMs)}`,
    group: 'early-warning',
    trace: 'warn_probability',
  },
  {
    key: 'model',
    flag: '--predictor <model>',
    kind: 'choice',
    default: d.model,
    choices: PREDICTOR_MODELS,
    meaning: `the model, ${PREDICTOR_MODELS.join(' or ')} (a linear trend of the P99)`,
    group: 'early-warning',
    trace: 'predictor',
  },
]);

/** Fills in the defaults and rejects values the predictor cannot work with. */
export function predictorParams(overrides: Partial<PredictorParams> = {}): PredictorParams {
  const params: PredictorParams = { ...DEFAULT_PREDICTOR_PARAMS, ...overrides };
  for (const key of ['slaMs', 'sampleMs', 'horizonMs', 'timeoutMs', 'trendSoftness', 'clearAfterMs'] as const) {
    const value = params[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new RangeError(`predictor: ${key} must be a number above 0, got ${String(value)}`);
    }
  }
  for (const key of ['windowSamples', 'minSamples', 'confirmSamples', 'levelSamples', 'lowConfirmSamples'] as const) {
    if (!Number.isInteger(params[key]) || params[key] < 1) throw new RangeError(`predictor: ${key} must be a whole number above 0`);
  }
  if (!Number.isInteger(params.linearRiseSamples) || params.linearRiseSamples < 0) throw new RangeError('predictor: linearRiseSamples must be a whole number of at least 0');
  if (!Number.isInteger(params.levelHoldSamples) || params.levelHoldSamples < 0) throw new RangeError('predictor: levelHoldSamples must be a whole number of at least 0');
  if (!(params.regainShare >= 0 && params.regainShare <= 1)) throw new RangeError(`predictor: regainShare must be a number from 0 to 1, got ${String(params.regainShare)}`);
  for (const key of ['levelShare', 'levelP90Share'] as const) {
    if (!(params[key] >= 0) || !Number.isFinite(params[key])) throw new RangeError(`predictor: ${key} must be a number of at least 0, got ${String(params[key])}`);
  }
  if (!(params.linearRiseShare > 0) || !Number.isFinite(params.linearRiseShare)) throw new RangeError(`predictor: linearRiseShare must be a number above 0, got ${String(params.linearRiseShare)}`);
  if (!(params.linearRiseHorizonMs > 0)) throw new RangeError(`predictor: linearRiseHorizonMs must be a number above 0, got ${String(params.linearRiseHorizonMs)}`);
  if (params.minSamples > params.windowSamples) throw new RangeError('predictor: minSamples cannot exceed windowSamples');
  if (!(params.warnProbability > 0 && params.warnProbability < 1)) throw new RangeError('predictor: warnProbability must be in (0, 1)');
  if (!PREDICTOR_MODELS.includes(params.model)) {
    throw new RangeError(`predictor: model must be one of ${PREDICTOR_MODELS.join(', ')}, got '${String(params.model)}'`);
  }
  if (params.horizonMs % params.sampleMs !== 0) throw new RangeError('predictor: horizonMs must be a whole number of samples');
  if (params.clearAfterMs % params.sampleMs !== 0) throw new RangeError('predictor: clearAfterMs must be a whole number of samples');
  if (params.linearRiseHorizonMs % params.sampleMs !== 0) throw new RangeError('predictor: linearRiseHorizonMs must be a whole number of samples');
  return params;
}

/** The hold before a warning clears, in samples. */
export function clearSamples(params: PredictorParams): number {
  return params.clearAfterMs / params.sampleMs;
}

/** The horizon in samples. */
export function horizonSamples(params: PredictorParams): number {
  return params.horizonMs / params.sampleMs;
}
