// The slow score's parameters: TiKV's defaults (components/health_controller) and PD's
// evict-slow-store thresholds, and the specs that flags, help, the trace header and the docs derive from.
import { DAY_MS, HOUR_MS } from '../common/durations.js';
import type { DurationSpec, ParamSpec } from '../common/param-spec.js';

export interface ScoreParams {
  /** One inspection per disk per tick. */
  intervalMs: number;
  /** The score is updated on every tick whose id is a multiple of this. */
  roundTicks: number;
  /** A round whose timeout ratio reaches this doubles the score. */
  ratioThreshold: number;
  /** The score falls by 100 points per this much wall time. */
  minTtrMs: number;
  /** An inspection that takes this long or longer counts as a timeout. */
  timeoutMs: number;
  /** PD evicts leaders from a store whose reported score reaches this. */
  evictThreshold: number;
  /** PD counts a store at or above this as slow. */
  slowThreshold: number;
}

export const DEFAULT_INTERVAL_MS = 100;

export const DEFAULT_SCORE_PARAMS: Readonly<ScoreParams> = Object.freeze({
  intervalMs: DEFAULT_INTERVAL_MS,
  roundTicks: 30,
  ratioThreshold: 0.1,
  minTtrMs: 300_000,
  timeoutMs: DEFAULT_INTERVAL_MS,
  evictThreshold: 100,
  slowThreshold: 80,
});

/** --interval; TiKV's inspect intervals, read from its configuration, take the same range. */
export const INTERVAL_SPEC: DurationSpec<'intervalMs'> = Object.freeze({
  key: 'intervalMs',
  flag: '--interval <duration>',
  kind: 'duration',
  default: DEFAULT_SCORE_PARAMS.intervalMs,
  range: { minMs: 1, maxMs: HOUR_MS },
  meaning: 'one inspection per disk per tick',
  group: 'scoring',
  trace: 'interval_ms',
});

/** --timeout: the interval unless given, and then it follows the interval. */
export const TIMEOUT_SPEC: DurationSpec<'timeoutMs'> = Object.freeze({
  key: 'timeoutMs',
  flag: '--timeout <duration>',
  kind: 'duration',
  default: undefined,
  defaultText: 'the interval',
  range: { minMs: 0.001, maxMs: HOUR_MS },
  meaning: 'an inspection this long or longer is a timeout, by default the interval',
  group: 'scoring',
  trace: 'timeout_ms',
});

/** The score's flags, all recorded in a trace; 0.001 ms, the recorder's resolution, lets --timeout make every inspection one. */
export const SCORE_SPECS: readonly ParamSpec<keyof ScoreParams>[] = Object.freeze([
  INTERVAL_SPEC,
  { key: 'roundTicks', flag: '--round-ticks <n>', kind: 'integer', default: DEFAULT_SCORE_PARAMS.roundTicks, min: 1, max: 1e6, meaning: 'ticks per round; the score is updated once a round', group: 'scoring', trace: 'round_ticks' },
  { key: 'ratioThreshold', flag: '--ratio-threshold <x>', kind: 'number', default: DEFAULT_SCORE_PARAMS.ratioThreshold, min: 1e-6, max: 1, meaning: 'a round with this share of timeouts doubles the score', group: 'scoring', trace: 'ratio_threshold' },
  { key: 'minTtrMs', flag: '--min-ttr <duration>', kind: 'duration', default: DEFAULT_SCORE_PARAMS.minTtrMs, range: { minMs: 1000, maxMs: 7 * DAY_MS }, meaning: 'the score falls by 100 points per this much healthy time', group: 'scoring', trace: 'min_ttr_ms' },
  TIMEOUT_SPEC,
  { key: 'evictThreshold', flag: '--evict-threshold <n>', kind: 'number', default: DEFAULT_SCORE_PARAMS.evictThreshold, min: 1, max: 100, meaning: 'CRITICAL at this reported store score', group: 'scoring', trace: 'evict_threshold' },
  { key: 'slowThreshold', flag: '--slow-threshold <n>', kind: 'number', default: DEFAULT_SCORE_PARAMS.slowThreshold, min: 1, max: 100, meaning: 'WARNING at this reported store score', group: 'scoring', trace: 'slow_threshold' },
]);

/** The score a disk starts at and falls back to; also the floor of the store score. */
export const SCORE_FLOOR = 1;
/** The score never exceeds this. */
export const SCORE_CEILING = 100;
