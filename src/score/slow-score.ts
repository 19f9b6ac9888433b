// TiKV's per-disk slow score, after TiKV's slow-score design and its health_controller code
// (docs/slow-score.md states the rules).
// Pure: no timers, no I/O; the caller passes the clock's reading in.
import { SCORE_CEILING, SCORE_FLOOR, type ScoreParams } from './score-params.js';

export type RoundParams = Pick<ScoreParams, 'ratioThreshold' | 'minTtrMs'>;

/**
 * The update rule applied at the end of a round. A round with any timeout multiplies the
 * score by up to 2; a clean round lowers it linearly in wall time, and never below 1.
 */
export function updatedScore(
  value: number,
  timeouts: number,
  total: number,
  elapsedMs: number,
  params: RoundParams,
): number {
  if (timeouts === 0) {
    const desc = (100 * Math.trunc(elapsedMs)) / params.minTtrMs;
    // Strict '>' so that the floor is reached exactly.
    return desc > value - SCORE_FLOOR ? SCORE_FLOOR : value - desc;
  }
  const ratio = Math.min(timeouts / total, params.ratioThreshold);
  return Math.min(SCORE_CEILING, value * (1 + ratio / params.ratioThreshold));
}

/** What a tick asks of its caller. */
export interface TickOutcome {
  tickId: number;
  /** The score was updated at this tick (the tick closes a round). */
  updated: boolean;
}

/** One disk's score and the counters of its current round. */
export class SlowScore {
  value: number = SCORE_FLOOR;
  timeouts = 0;
  total = 0;
  tickId = 0;
  lastTickFinished = true;
  lastUpdateMs: number;

  constructor(
    private readonly params: ScoreParams,
    nowMs: number,
  ) {
    this.lastUpdateMs = nowMs;
  }

  /**
   * A new tick. The previous tick's inspection, if it did not finish, is charged as a timeout
   * before the id moves on; so the first round holds ticks 1..roundTicks-1.
   */
  tick(nowMs: number): TickOutcome {
    if (!this.lastTickFinished) {
      this.timeouts += 1;
      this.total += 1;
      this.lastTickFinished = true;
    }
    this.tickId += 1;
    this.lastTickFinished = false;
    const updated = this.tickId % this.params.roundTicks === 0;
    if (updated) this.update(nowMs);
    return { tickId: this.tickId, updated };
  }

  /**
   * An inspection started at `tickId` finished after `durationMs`. Only a result that arrives
   * while its tick is current counts; a late one was already charged as a timeout.
   */
  record(tickId: number, durationMs: number): boolean {
    if (tickId !== this.tickId) return false;
    this.lastTickFinished = true;
    this.total += 1;
    if (durationMs >= this.params.timeoutMs) this.timeouts += 1;
    return true;
  }

  /**
   * The inspection started at `tickId` was not made, for a reason that is no fault of the
   * disk (its probe file's name taken): the tick counts neither way.
   */
  void(tickId: number): void {
    if (tickId === this.tickId) this.lastTickFinished = true;
  }

  update(nowMs: number): void {
    // A round in which no tick counted saw nothing of the disk: its score stays as it was,
    // neither raised nor, as a clean round's would be, lowered.
    if (this.total === 0) {
      this.lastUpdateMs = nowMs;
      return;
    }
    this.value = updatedScore(this.value, this.timeouts, this.total, nowMs - this.lastUpdateMs, this.params);
    this.timeouts = 0;
    this.total = 0;
    this.lastUpdateMs = nowMs;
  }
}
