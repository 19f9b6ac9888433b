// The tick semantics of one store: every inspected disk ticks together, and each disk's
// SlowScore charges what did not come back in time. Which inspection is in flight is the
// pipeline's to know (src/verdict/in-flight.ts): here a tick only counts or is charged.
// Pure: the live ticker and replay drive it with their own clocks.
import type { ScoreParams } from './score-params.js';
import { projectedMsToReach, SlowScore } from './slow-score.js';
import { storeScore } from './store-score.js';

/**
 * The latest rounds of which one at least must have a timeout for a disk to be rising: a disk
 * timing out in a tenth of its ticks has three clean rounds in a row once in 13,000, so the
 * state does not flicker; a disk whose timeouts stopped is no longer rising 9 s on.
 */
const RISING_ROUNDS = 3;

interface DiskTicks {
  score: SlowScore;
}

export interface StoreTick {
  tickId: number;
  /** This tick closed a round: the scores were updated. */
  updated: boolean;
}

/**
 * What each tick of each disk came to, in tick order: the time of an inspection that counted
 * for its tick, or null for a tick charged as a timeout. The statistical detector reads the
 * inspections through this, so that live runs and replays feed it alike.
 */
export type TickOutcomeListener = (disk: string, tickId: number, durationMs: number | null) => void;

export class StoreTicks {
  private readonly disks = new Map<string, DiskTicks>();
  /** Per disk name, every tick charged as a timeout since the start: a disk that leaves or restarts keeps its count. */
  private readonly timeoutsCharged = new Map<string, number>();
  private tickId = 0;

  constructor(
    private readonly params: ScoreParams,
    private readonly onOutcome: TickOutcomeListener = () => {},
  ) {}

  get currentTick(): number {
    return this.tickId;
  }

  /**
   * Sets which disks are inspected. A disk that joins starts at score 1 on the store's tick,
   * so its rounds close with the others'; a disk that leaves is no longer scored (TiKV's
   * skipped KV disk keeps the score 1).
   */
  setInspected(names: readonly string[], nowMs: number): void {
    const wanted = new Set(names);
    for (const name of [...this.disks.keys()]) if (!wanted.has(name)) this.disks.delete(name);
    for (const name of names) if (!this.disks.has(name)) this.join(name, nowMs);
  }

  /** Scores an inspected disk afresh, from 1, as a disk that joins: another disk took its place. */
  restart(name: string, nowMs: number): void {
    if (this.disks.has(name)) this.join(name, nowMs);
  }

  tick(nowMs: number): StoreTick {
    this.tickId += 1;
    // forEach, not for...of: unoptimised (watch), the entries' iterator costs two objects a disk a tick.
    this.disks.forEach((disk, name) => {
      // The score charges the previous tick as a timeout when its inspection has not finished.
      if (!disk.score.lastTickFinished) {
        this.charge(name);
        this.onOutcome(name, disk.score.tickId, null);
      }
      disk.score.tick(nowMs);
    });
    return { tickId: this.tickId, updated: this.tickId % this.params.roundTicks === 0 };
  }

  /** An inspection finished; returns whether it counted for its tick. */
  finished(name: string, tickId: number, durationMs: number): boolean {
    if (!this.disks.get(name)?.score.record(tickId, durationMs)) return false;
    if (durationMs >= this.params.timeoutMs) this.charge(name);
    this.onOutcome(name, tickId, durationMs);
    return true;
  }

  /** An inspection not made for a reason that is no fault of the disk: its tick counts neither way. */
  voided(name: string, tickId: number): void {
    this.disks.get(name)?.score.void(tickId);
  }

  scoreOf(name: string): number | undefined {
    return this.disks.get(name)?.score.value;
  }

  /**
   * How long a continuous run that saw the disk's recent rounds (since it joined, at most 5
   * minutes' worth at the defaults) again and again would take to evict it; null if never,
   * and null for rounds whose timeouts, all together, stay under the ratio threshold: one
   * stray timeout a round would evict a disk too, but says too little to call it slow.
   * Null too once the disk's last RISING_ROUNDS rounds were all clean: its score is falling
   * then, and the timeouts still in the window (a freeze minutes ago) no longer hold.
   */
  projectedEvictionMs(name: string): number | null {
    const score = this.disks.get(name)?.score;
    if (!score) return null;
    const rounds = score.recentRounds;
    if (!rounds.slice(-RISING_ROUNDS).some((round) => round.timeouts > 0)) return null;
    let timeouts = 0;
    let total = 0;
    for (const round of rounds) (timeouts += round.timeouts), (total += round.total);
    if (total === 0 || timeouts / total < this.params.ratioThreshold) return null;
    return projectedMsToReach(score.value, rounds, this.params.evictThreshold, this.params);
  }

  scores(): Map<string, number> {
    return new Map([...this.disks].map(([name, disk]) => [name, disk.score.value]));
  }

  storeScore(): number {
    return storeScore([...this.disks.values()].map((disk) => disk.score.value));
  }

  /** Ticks charged as timeouts per disk since the start, never reset: a monitoring counter. */
  chargedTimeouts(): ReadonlyMap<string, number> {
    return new Map(this.timeoutsCharged);
  }

  private charge(name: string): void {
    this.timeoutsCharged.set(name, (this.timeoutsCharged.get(name) ?? 0) + 1);
  }

  private join(name: string, nowMs: number): void {
    const score = new SlowScore(this.params, nowMs);
    score.tickId = this.tickId;
    this.disks.set(name, { score });
  }
}
