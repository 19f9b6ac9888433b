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

/**
 * The rounds in which a score that doubles every round (each with timeouts at or above the
 * ratio threshold, the fastest it can rise) goes from `from` to a reported `threshold`.
 */
export function roundsToReach(threshold: number, from: number = SCORE_FLOOR): number {
  if (Math.trunc(from) >= threshold) return 0;
  return Math.max(1, Math.ceil(Math.log2(Math.min(threshold, SCORE_CEILING) / from)));
}

/** How long that takes: the shortest run that can reach the threshold (21 s to eviction at TiKV's defaults). */
export function msToReach(params: Pick<ScoreParams, 'roundTicks' | 'intervalMs'>, threshold: number, from: number = SCORE_FLOOR): number {
  return roundsToReach(threshold, from) * params.roundTicks * params.intervalMs;
}

/** A round as it closed: its counters and the wall time since the previous update. */
export interface ClosedRound {
  timeouts: number;
  total: number;
  elapsedMs: number;
}

/** The rounds a disk keeps for its projection: 5 minutes at TiKV's defaults. */
const RECENT_ROUNDS = 100;

/**
 * How long a continuous run that saw these rounds again and again, from `score`, would take
 * to reach a reported `threshold`: null when they would never get it there (a cycle of them
 * that leaves the score no higher never will, the update rule being monotonic in the score).
 */
export function projectedMsToReach(score: number, rounds: readonly ClosedRound[], threshold: number, params: RoundParams): number | null {
  if (rounds.length === 0) return null;
  let value = score;
  let elapsedMs = 0;
  for (;;) {
    const cycleStart = value;
    for (const round of rounds) {
      value = updatedScore(value, round.timeouts, round.total, round.elapsedMs, params);
      elapsedMs += round.elapsedMs;
      if (Math.trunc(value) >= threshold) return elapsedMs;
    }
    if (value <= cycleStart) return null;
  }
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
  /** The latest rounds closed, oldest first: what a projection of the score repeats. */
  readonly recentRounds: ClosedRound[] = [];

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
    this.recentRounds.push({ timeouts: this.timeouts, total: this.total, elapsedMs: nowMs - this.lastUpdateMs });
    if (this.recentRounds.length > RECENT_ROUNDS) this.recentRounds.shift();
    this.value = updatedScore(this.value, this.timeouts, this.total, nowMs - this.lastUpdateMs, this.params);
    this.timeouts = 0;
    this.total = 0;
    this.lastUpdateMs = nowMs;
  }
}
