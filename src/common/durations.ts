// Durations as people type and read them ("100ms", "5m"), and the ranges a duration parameter accepts.

/**
 * The values a duration parameter accepts, both ends included. Node's timers fire at once
 * for anything above 2^31-1 ms (24.8 days), so every range stays well under that.
 */
export interface DurationRange {
  readonly minMs: number;
  readonly maxMs: number;
}

export const MAX_TIMER_MS = 2 ** 31 - 1;

export const HOUR_MS = 3_600_000;
export const DAY_MS = 24 * HOUR_MS;

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: HOUR_MS, d: DAY_MS };

/**
 * Parses "100ms", "3s", "5m", "1.5h", "7d". A bare number is refused: `--duration 5` read
 * as 5 ms made a check that saw nothing, where 5 s was meant.
 */
export function parseDuration(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?\s*$/.exec(text);
  if (!match) throw new RangeError(`not a duration: '${text}' (use e.g. 100ms, 3s, 5m)`);
  if (match[2] === undefined) throw new RangeError(`a duration needs a unit: did you mean ${match[1]}s? (ms, s, m, h or d)`);
  const ms = Number(match[1]) * DURATION_UNITS[match[2]];
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
