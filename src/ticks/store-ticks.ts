// The tick semantics of one store: every inspected disk ticks together, one inspection in
// flight per disk, and each disk's SlowScore charges what did not come back in time.
// Pure: the live ticker and replay drive it with their own clocks.
import type { ScoreParams } from '../params.js';
import { SlowScore } from '../score/slow-score.js';
import { storeScore } from '../score/store-score.js';

interface DiskTicks {
  score: SlowScore;
  /** The tick of the inspection still running, if any. */
  inFlight: number | null;
}

export interface StoreTick {
  tickId: number;
  /** Disks whose inspection for this tick must start now. */
  start: string[];
  /** This tick closed a round: the scores were updated. */
  updated: boolean;
}

export class StoreTicks {
  private readonly disks = new Map<string, DiskTicks>();
  private tickId = 0;

  constructor(private readonly params: ScoreParams) {}

  get currentTick(): number {
    return this.tickId;
  }

  /**
   * Sets which disks are inspected. A disk that joins starts at score 1 on the store's tick,
   * so its rounds close with the others'; a disk that leaves is no longer scored (TiKV's
   * skipped KV disk keeps the score 1).
   */
  setInspected(names: readonly string[], nowMs: number): void {
    for (const name of [...this.disks.keys()]) if (!names.includes(name)) this.disks.delete(name);
    for (const name of names) {
      if (this.disks.has(name)) continue;
      const score = new SlowScore(this.params, nowMs);
      score.tickId = this.tickId;
      this.disks.set(name, { score, inFlight: null });
    }
  }

  tick(nowMs: number): StoreTick {
    this.tickId += 1;
    const start: string[] = [];
    for (const [name, disk] of this.disks) {
      disk.score.tick(nowMs);
      if (disk.inFlight === null) {
        disk.inFlight = this.tickId;
        start.push(name);
      }
    }
    return { tickId: this.tickId, start, updated: this.tickId % this.params.roundTicks === 0 };
  }

  /** An inspection finished; returns whether it counted for its tick. */
  finished(name: string, tickId: number, durationMs: number): boolean {
    const disk = this.release(name, tickId);
    return disk ? disk.score.record(tickId, durationMs) : false;
  }

  /** An inspection failed: no result, so its tick is charged as a timeout at the next tick. */
  failed(name: string, tickId: number): void {
    this.release(name, tickId);
  }

  inFlightTick(name: string): number | null {
    return this.disks.get(name)?.inFlight ?? null;
  }

  scoreOf(name: string): number | undefined {
    return this.disks.get(name)?.score.value;
  }

  scores(): Map<string, number> {
    return new Map([...this.disks].map(([name, disk]) => [name, disk.score.value]));
  }

  storeScore(): number {
    return storeScore([...this.disks.values()].map((disk) => disk.score.value));
  }

  private release(name: string, tickId: number): DiskTicks | undefined {
    const disk = this.disks.get(name);
    if (disk && disk.inFlight === tickId) disk.inFlight = null;
    return disk;
  }
}
