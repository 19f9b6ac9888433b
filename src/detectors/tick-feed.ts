// Feeds a detector (the statistical one, the tail one) from the store's tick outcomes, on the ticks' own clock:
// an inspection that counted for its tick is a latency, a tick charged as a timeout is a
// failure. Live runs and replays hand it the same outcomes, so they reach the same states.
import type { TickOutcomeListener } from '../score/store-ticks.js';

/** What the feed calls: a latency, or a tick without one. */
export interface FedDetector {
  observe(disk: string, tMs: number, latencyMs: number): void;
  failure(disk: string, tMs: number): void;
}

export function feedDetector(detector: FedDetector, intervalMs: number): TickOutcomeListener {
  return (disk, tickId, durationMs) => {
    const tMs = tickId * intervalMs;
    if (durationMs === null) detector.failure(disk, tMs);
    else detector.observe(disk, tMs, durationMs);
  };
}
