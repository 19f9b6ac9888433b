// The one place that owns slowdisk's parameters and their defaults.
// Score defaults are TiKV's (components/health_controller) and PD's evict-slow-store.

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

/**
 * The values a duration parameter accepts, both ends included. Node's timers fire at once
 * for anything above 2^31-1 ms (24.8 days), so every range stays well under that.
 */
export interface DurationRange {
  readonly minMs: number;
  readonly maxMs: number;
}

export const MAX_TIMER_MS = 2 ** 31 - 1;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The score's durations; 0.001 ms, the recorder's resolution, lets --timeout make every inspection one. */
export const SCORE_DURATION_RANGES: Readonly<Record<'intervalMs' | 'minTtrMs' | 'timeoutMs', DurationRange>> = Object.freeze({
  intervalMs: { minMs: 1, maxMs: HOUR_MS },
  minTtrMs: { minMs: 1000, maxMs: 7 * DAY_MS },
  timeoutMs: { minMs: 0.001, maxMs: HOUR_MS },
});

export const DEFAULT_SCORE_PARAMS: Readonly<ScoreParams> = Object.freeze({
  intervalMs: DEFAULT_INTERVAL_MS,
  roundTicks: 30,
  ratioThreshold: 0.1,
  minTtrMs: 300_000,
  timeoutMs: DEFAULT_INTERVAL_MS,
  evictThreshold: 100,
  slowThreshold: 80,
});

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

/** --hang-after: a timer waits for it (in the prober too). */
export const HANG_AFTER_RANGE: DurationRange = Object.freeze({ minMs: 1, maxMs: DAY_MS });

export const DEFAULT_CHECK_DURATION_MS = 30_000;
export const CHECK_DURATION_RANGE: DurationRange = Object.freeze({ minMs: 1, maxMs: 7 * DAY_MS });

/** The score a disk starts at and falls back to; also the floor of the store score. */
export const SCORE_FLOOR = 1;
/** The score never exceeds this. */
export const SCORE_CEILING = 100;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: HOUR_MS, d: DAY_MS };

/** Parses "100ms", "3s", "5m", "1.5h", "7d" or a bare number of milliseconds. */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new RangeError(`not a duration: '${text}' (use e.g. 100ms, 3s, 5m)`);
  const ms = Number(match[1]) * DURATION_UNITS[match[2] ?? 'ms'];
  if (!Number.isFinite(ms)) throw new RangeError(`not a duration: '${text}'`);
  return ms;
}

/** The range as help and errors show it: "1ms to 1h". */
export function formatDurationRange(range: DurationRange): string {
  return `${formatDuration(range.minMs)} to ${formatDuration(range.maxMs)}`;
}

export function inDurationRange(ms: number, range: DurationRange): boolean {
  return ms >= range.minMs && ms <= range.maxMs;
}

/** Renders milliseconds back the way a person would type them. */
export function formatDuration(ms: number): string {
  if (ms % DAY_MS === 0 && ms > 0) return `${ms / DAY_MS}d`;
  if (ms % HOUR_MS === 0 && ms > 0) return `${ms / HOUR_MS}h`;
  if (ms % 60_000 === 0 && ms > 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 && ms > 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

export interface HookParams {
  /** Shell command run once when the reported store score reaches the eviction threshold. */
  onEvict?: string;
  /** Shell command run once when, after an eviction, the store has stayed at reported score 1 for recoverAfterMs. */
  onRecover?: string;
  /** A hook still running after this long is killed with its process group. */
  timeoutMs: number;
  /** PD's recovery duration: how long a store must stay at 1 before its eviction is lifted. */
  recoverAfterMs: number;
}

export const HOOK_DURATION_RANGES: Readonly<Record<'timeoutMs' | 'recoverAfterMs', DurationRange>> = Object.freeze({
  timeoutMs: { minMs: 1, maxMs: DAY_MS },
  recoverAfterMs: { minMs: 1, maxMs: 7 * DAY_MS },
});

export const DEFAULT_HOOK_PARAMS: Readonly<Omit<HookParams, 'onEvict' | 'onRecover'>> = Object.freeze({
  timeoutMs: 30_000,
  recoverAfterMs: 1_800_000,
});
