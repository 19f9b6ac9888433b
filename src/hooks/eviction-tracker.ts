// When the hooks fire, as PD acts: an eviction once the reported store score reaches the
// eviction threshold, and its end once the score has stayed at 1, without a break, for the
// recovery duration. Pure: fed one round at a time, on the score clock.
import { SCORE_FLOOR } from '../score/score-params.js';

export type HookEvent = 'evict' | 'recover';

export class EvictionTracker {
  private evicted = false;
  /** When the reported score, evicted, came back to 1 and has stayed there since. */
  private atFloorSinceMs: number | null = null;

  constructor(
    private readonly evictThreshold: number,
    private readonly recoverAfterMs: number,
  ) {}

  /** The event a round brings, if any. */
  observe(reportedScore: number, elapsedMs: number): HookEvent | null {
    if (!this.evicted) {
      if (reportedScore < this.evictThreshold) return null;
      this.evicted = true;
      this.atFloorSinceMs = null;
      return 'evict';
    }
    if (reportedScore > SCORE_FLOOR) {
      this.atFloorSinceMs = null;
      return null;
    }
    this.atFloorSinceMs ??= elapsedMs;
    if (elapsedMs - this.atFloorSinceMs < this.recoverAfterMs) return null;
    this.evicted = false;
    this.atFloorSinceMs = null;
    return 'recover';
  }
}
