// Every parameter of the statistical slow-disk detector (docs/statistical-detector.md), with the
// values of CTyun's slow-disk detection article as defaults where it gives them, and the specs
// of those a flag sets; with them, the rule that says whether a confirmed slow disk is CRITICAL.
import { DAY_MS } from '../common/durations.js';
import type { ChoiceSpec, ParamSpec } from '../common/param-spec.js';
import { DEFAULT_SCORE_PARAMS } from '../score/score-params.js';

export interface StatisticalParams {
  /** The baseline window: the most recent this-many inspections of a disk (article: 1000 IO completions). */
  windowSamples: number;
  /** The baseline (median and MAD of the window) is recomputed this often (article: every 10 s). */
  refreshMs: number;
  /**
   * The step of the rule: each disk is judged once per this much of the caller's clock (1 s),
   * on a robust statistic of its recent inspections rather than on every single inspection
   * (a per-IO deviation misses moderate slowdowns). The rule's durations count in these steps.
   */
  shortWindowMs: number;
  /**
   * The statistic judged at each step: the median of the disk's inspections of the last this
   * much (5 s, 50 inspections at 100 ms), rounded to whole steps. The median of one second (10
   * inspections) of an HDD spreads by some 14 % of itself, so a x1.5 slowdown is barely 3 of
   * its MADs and the rule flickers; the median of 5 s spreads by some 6 %.
   */
  statisticMs: number;
  /** A short window deviates when its deviation is above this many MADs (article: 3). */
  threshold: number;
  /** A disk whose short windows deviate this long in a row turns suspect (article: 10 s). */
  suspectAfterMs: number;
  /** A suspect disk is observed this much longer (article: 60 s). */
  observeMs: number;
  /**
   * A suspect disk is confirmed when more than this share of its observed short windows
   * deviate (article: 70 %). A confirmed disk is clear again once more than this share of the
   * last `observeMs` of short windows no longer deviate (the same rule, mirrored).
   */
  confirmShare: number;
  /** A suspect disk whose short windows stop deviating this long in a row is cancelled (d fell back). */
  fallbackMs: number;
  /**
   * The MAD never counts as less than max(madFloorMs, madFloorRatio x median) (0.01 ms, the
   * recorder's resolution is 0.001 ms; 8 %): quantised latencies (a MAD of 0) never divide by
   * zero, and a disk whose latency barely varies is not flagged for a change smaller than
   * `threshold x madFloorRatio` (24 %) of its median, which its share of the host's work can
   * move it by for minutes. Lower it to see smaller slowdowns, at the cost of false alarms.
   */
  madFloorMs: number;
  madFloorRatio: number;
  /**
   * A tick with no result (an error, or an inspection still in flight) counts as an inspection
   * of this many milliseconds: TiKV's inspection timeout, the least such an inspection took.
   */
  failureLatencyMs: number;
  /** A disk is judged only once its baseline holds this many steps' statistics (30: 30 s). */
  minBaselineWindows: number;
  /**
   * Compare each disk with its peers (the other disks being inspected): a disk deviates only if
   * it still deviates once the host's common slowdown (the median of the peers' ratios to their
   * own baselines) is divided out. Off: own history only (as with a single disk).
   */
  peerCondition: boolean;
  /**
   * When more than this share of the judged disks (and at least 2) deviate from their own
   * history together, they are `host-wide` rather than slow: the load, a controller, a cable.
   */
  hostWideShare: number;
  /**
   * The fast path's false-confirmation budget: a suspect disk whose deviation is in truth at
   * `threshold` MADs or less (Gaussian, the baseline's spread) is confirmed by the fast path
   * with at most this probability. The evidence it needs, ln(sequences / budget), is summed by
   * sequential probability ratio tests over steps whose statistics share no inspection (as
   * many sequences as the statistic has steps), for a deviation of `fastAlternative` times
   * `threshold` against one of `threshold`; no one step counts for more than `fastStepShare`
   * of it. 0: the article's rules alone.
   */
  fastBudget: number;
  /**
   * The fast path's alternative: a deviation of this many times `threshold` (1.5), weighed
   * against one of `threshold`. Nearer 1, each step's evidence is weaker and a marginal
   * slowdown waits for the article's minute; further, a slowdown near the threshold adds less.
   */
  fastAlternative: number;
  /**
   * No one step adds more than this share (a quarter) of the evidence the fast path needs: the
   * slowdown must hold through four statistics that share no inspection, some 15 s of it, so a
   * congestion of a few seconds, or two or three back to back, is not confirmed.
   */
  fastStepShare: number;
}

export const DEFAULT_STATISTICAL_PARAMS: Readonly<StatisticalParams> = Object.freeze({
  windowSamples: 1000,
  refreshMs: 10_000,
  shortWindowMs: 1000,
  statisticMs: 5000,
  threshold: 3,
  suspectAfterMs: 10_000,
  observeMs: 60_000,
  confirmShare: 0.7,
  fallbackMs: 10_000,
  madFloorMs: 0.01,
  madFloorRatio: 0.08,
  failureLatencyMs: DEFAULT_SCORE_PARAMS.timeoutMs,
  minBaselineWindows: 30,
  peerCondition: true,
  hostWideShare: 0.5,
  fastBudget: 1e-4,
  fastAlternative: 1.5,
  fastStepShare: 0.25,
});

/** The detector's flags, all recorded in a trace; its durations are at least the step (--stat-step, 1 s). */
export const STATISTICAL_SPECS: readonly ParamSpec<keyof StatisticalParams>[] = Object.freeze([
  { key: 'windowSamples', flag: '--stat-window <n>', kind: 'integer', default: DEFAULT_STATISTICAL_PARAMS.windowSamples, min: 10, max: 1e6, meaning: "each disk's baseline is its last this-many inspections", group: 'statistical', trace: 'stat_window' },
  { key: 'refreshMs', flag: '--stat-refresh <duration>', kind: 'duration', default: DEFAULT_STATISTICAL_PARAMS.refreshMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'how often the baseline is recomputed', group: 'statistical', trace: 'stat_refresh_ms' },
  { key: 'threshold', flag: '--stat-threshold <x>', kind: 'number', default: DEFAULT_STATISTICAL_PARAMS.threshold, min: 0.1, max: 1000, meaning: 'a deviation above this many MADs counts', group: 'statistical', trace: 'stat_threshold' },
  { key: 'suspectAfterMs', flag: '--stat-suspect-after <duration>', kind: 'duration', default: DEFAULT_STATISTICAL_PARAMS.suspectAfterMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'deviating this long in a row makes a disk suspect', group: 'statistical', trace: 'stat_suspect_after_ms' },
  { key: 'observeMs', flag: '--stat-observe <duration>', kind: 'duration', default: DEFAULT_STATISTICAL_PARAMS.observeMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'a suspect disk is observed this much longer', group: 'statistical', trace: 'stat_observe_ms' },
  { key: 'confirmShare', flag: '--stat-confirm-share <x>', kind: 'number', default: DEFAULT_STATISTICAL_PARAMS.confirmShare, min: 0.01, max: 1, meaning: 'confirmed when more than this share of the observation deviates', group: 'statistical', trace: 'stat_confirm_share' },
  { key: 'shortWindowMs', flag: '--stat-step <duration>', kind: 'duration', default: DEFAULT_STATISTICAL_PARAMS.shortWindowMs, range: { minMs: 100, maxMs: 60_000 }, meaning: 'each disk is judged once per this much, and every duration of the detector is at least one step', group: 'statistical', trace: 'stat_step_ms' },
  { key: 'statisticMs', flag: '--stat-statistic <duration>', kind: 'duration', default: DEFAULT_STATISTICAL_PARAMS.statisticMs, range: { minMs: 1000, maxMs: 3_600_000 }, meaning: "each step judges the median of the disk's inspections of the last this much", group: 'statistical', trace: 'stat_statistic_ms' },
  { key: 'fallbackMs', flag: '--stat-fallback <duration>', kind: 'duration', default: DEFAULT_STATISTICAL_PARAMS.fallbackMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'a suspect disk that stops deviating this long in a row is cancelled', group: 'statistical', trace: 'stat_fallback_ms' },
  { key: 'madFloorMs', flag: '--stat-mad-floor <duration>', kind: 'duration', default: DEFAULT_STATISTICAL_PARAMS.madFloorMs, range: { minMs: 0.001, maxMs: 3_600_000 }, meaning: 'the MAD never counts as less than this ...', group: 'statistical', trace: 'stat_mad_floor_ms' },
  { key: 'madFloorRatio', flag: '--stat-mad-floor-ratio <x>', kind: 'number', default: DEFAULT_STATISTICAL_PARAMS.madFloorRatio, min: 0, max: 1, meaning: "... nor than this share of the baseline's median (not both 0)", group: 'statistical', trace: 'stat_mad_floor_ratio' },
  { key: 'minBaselineWindows', flag: '--stat-min-baseline <n>', kind: 'integer', default: DEFAULT_STATISTICAL_PARAMS.minBaselineWindows, min: 1, max: 1e6, meaning: "a disk is judged once its baseline holds this many steps' statistics", group: 'statistical', trace: 'stat_min_baseline_steps' },
  { key: 'fastBudget', flag: '--stat-fast-budget <p>', kind: 'number', default: DEFAULT_STATISTICAL_PARAMS.fastBudget, min: 0, max: 0.5, meaning: 'the fast path confirms a suspect disk deviating by the threshold or less with at most this probability (0: off)', group: 'statistical', trace: 'stat_fast_budget' },
  { key: 'fastAlternative', flag: '--stat-fast-alternative <x>', kind: 'number', default: DEFAULT_STATISTICAL_PARAMS.fastAlternative, min: 1.05, max: 100, meaning: 'the fast path weighs a deviation of this many times the threshold against one of the threshold', group: 'statistical', trace: 'stat_fast_alternative' },
  { key: 'fastStepShare', flag: '--stat-fast-step-share <x>', kind: 'number', default: DEFAULT_STATISTICAL_PARAMS.fastStepShare, min: 0.01, max: 1, meaning: 'no one step adds more than this share of the evidence the fast path needs', group: 'statistical', trace: 'stat_fast_step_share' },
  { key: 'hostWideShare', flag: '--stat-host-wide-share <x>', kind: 'number', default: DEFAULT_STATISTICAL_PARAMS.hostWideShare, min: 0, max: 0.99, meaning: 'more than this share of the disks deviating together are host-wide, not slow', group: 'statistical', trace: 'stat_host_wide_share' },
]);

const CRITICAL_ON = ['evict', 'any'] as const;
export type CriticalOn = (typeof CRITICAL_ON)[number];

/** --critical-on: how a confirmed slow disk weighs in the verdict. */
export const CRITICAL_ON_SPEC: ChoiceSpec<'criticalOn'> = Object.freeze({
  key: 'criticalOn',
  flag: '--critical-on <what>',
  kind: 'choice',
  default: 'evict',
  choices: CRITICAL_ON,
  meaning: 'evict: CRITICAL at the eviction threshold only (a confirmed slow disk is WARNING); any: a confirmation is CRITICAL too',
  group: 'statistical',
  trace: 'critical_on',
});

/** Fills in the defaults and rejects values the rules cannot work with. */
export function statisticalParams(overrides: Partial<StatisticalParams> = {}): StatisticalParams {
  const params: StatisticalParams = { ...DEFAULT_STATISTICAL_PARAMS, ...overrides };
  const positive: (keyof StatisticalParams)[] = [
    'windowSamples',
    'refreshMs',
    'shortWindowMs',
    'statisticMs',
    'threshold',
    'suspectAfterMs',
    'observeMs',
    'fallbackMs',
    'failureLatencyMs',
    'minBaselineWindows',
  ];
  for (const key of positive) {
    const value = params[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new RangeError(`statistical detector: ${key} must be a number above 0, got ${String(value)}`);
    }
  }
  for (const key of ['madFloorMs', 'madFloorRatio'] as const) {
    if (!Number.isFinite(params[key]) || params[key] < 0) throw new RangeError(`statistical detector: ${key} must be 0 or more`);
  }
  if (params.madFloorMs === 0 && params.madFloorRatio === 0) {
    throw new RangeError('statistical detector: madFloorMs and madFloorRatio cannot both be 0 (a MAD of 0 would divide by zero)');
  }
  if (!(params.fastBudget >= 0 && params.fastBudget < 1)) throw new RangeError('statistical detector: fastBudget must be in [0, 1)');
  if (!(params.fastAlternative > 1 && Number.isFinite(params.fastAlternative))) throw new RangeError('statistical detector: fastAlternative must be above 1');
  if (!(params.fastStepShare > 0 && params.fastStepShare <= 1)) throw new RangeError('statistical detector: fastStepShare must be in (0, 1]');
  for (const key of ['confirmShare', 'hostWideShare'] as const) {
    if (!(params[key] >= 0 && params[key] < 1)) throw new RangeError(`statistical detector: ${key} must be in [0, 1)`);
  }
  for (const key of ['suspectAfterMs', 'observeMs', 'fallbackMs', 'refreshMs', 'statisticMs'] as const) {
    if (params[key] < params.shortWindowMs) {
      throw new RangeError(`statistical detector: ${key} must be at least the short window (${params.shortWindowMs} ms)`);
    }
  }
  return params;
}
