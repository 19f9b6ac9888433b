// The parameters of the probe and of the score, and how long check runs: their defaults
// (the score's are TiKV's, components/health_controller, and PD's evict-slow-store) and the
// specs that flags, help, the trace header and the docs derive from.
import { DAY_MS, HOUR_MS } from './common/durations.js';
import type { DurationSpec, ParamSpec } from './common/param-spec.js';

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

export type SyncMode = 'fdatasync' | 'fsync';

export interface ProbeParams {
  /** Bytes written and read back per inspection, rounded up to the filesystem's O_DIRECT alignment. */
  ioSize: number;
  /** false only with --buffered, for filesystems that refuse O_DIRECT. */
  direct: boolean;
  sync: SyncMode;
  /**
   * A disk whose inspection has been in flight this long is hung, whatever its score says
   * yet: Pebble warns of a stalled disk write at 5 s. From the clock, not the score, so that
   * even a check shorter than the score's 21 s to eviction names a hang.
   */
  hangAfterMs: number;
}

export const DEFAULT_PROBE_PARAMS: Readonly<ProbeParams> = Object.freeze({
  ioSize: 4096,
  direct: true,
  sync: 'fdatasync',
  hangAfterMs: 5000,
});

/** --hang-after: a timer waits for it (in the prober too); on replay too, which finds the same hung disks in a trace. */
export const HANG_AFTER_SPEC: DurationSpec<'hangAfterMs'> = Object.freeze({
  key: 'hangAfterMs',
  flag: '--hang-after <duration>',
  kind: 'duration',
  default: DEFAULT_PROBE_PARAMS.hangAfterMs,
  range: { minMs: 1, maxMs: DAY_MS },
  meaning: 'a disk whose inspection has been in flight this long is hung (WARNING at least)',
  group: 'probe',
  trace: 'hang_after_ms',
});

/** The probe's flags. How a disk is probed changes what a run measures, not how a trace replays: only --hang-after is recorded. */
export const PROBE_SPECS: readonly ParamSpec<keyof ProbeParams>[] = Object.freeze([
  { key: 'sync', flag: '--sync <call>', kind: 'choice', default: DEFAULT_PROBE_PARAMS.sync, choices: ['fdatasync', 'fsync'], meaning: 'the flush after each write: fdatasync or fsync', group: 'probe' },
  { key: 'direct', flag: '--buffered', kind: 'boolean', default: DEFAULT_PROBE_PARAMS.direct, meaning: 'probe without O_DIRECT, for a filesystem that refuses it (marked in every output)', group: 'probe' },
  {
    key: 'ioSize',
    flag: '--io-size <bytes>',
    kind: 'bytes',
    default: DEFAULT_PROBE_PARAMS.ioSize,
    min: 512,
    max: 1 << 20,
    meaning: 'bytes written and read per inspection, rounded up to the O_DIRECT alignment; the probe file is 65 such blocks (a header and 64 data blocks: 260 KiB at 4096)',
    group: 'probe',
  },
  HANG_AFTER_SPEC,
]);

/** check --duration. */
export const CHECK_DURATION_SPEC: DurationSpec<'durationMs'> = Object.freeze({
  key: 'durationMs',
  flag: '--duration <duration>',
  kind: 'duration',
  default: 30_000,
  range: { minMs: 1, maxMs: 7 * DAY_MS },
  meaning: 'how long to probe; exits early at the eviction threshold',
  group: 'run',
});

/** The score a disk starts at and falls back to; also the floor of the store score. */
export const SCORE_FLOOR = 1;
/** The score never exceeds this. */
export const SCORE_CEILING = 100;
