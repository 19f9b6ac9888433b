// Fires ticks on absolute deadlines (start + k * interval), so lateness never accumulates.
import { performance } from 'node:perf_hooks';

export interface Clock {
  now(): number;
}

export const MONOTONIC_CLOCK: Clock = { now: () => performance.now() };

/**
 * `scheduledMs` is when the tick was due, in whole intervals since the start; scoring uses
 * it, so a live run's rounds last exactly roundTicks intervals, as they do in replay.
 */
export type TickHandler = (tickIndex: number, scheduledMs: number, latenessMs: number) => void;

export class InspectionTicker {
  private timer: NodeJS.Timeout | null = null;
  private startMs = 0;
  private index = 0;

  constructor(
    private readonly intervalMs: number,
    private readonly onTick: TickHandler,
    private readonly clock: Clock = MONOTONIC_CLOCK,
  ) {}

  start(): void {
    this.startMs = this.clock.now();
    this.index = 0;
    this.schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  get running(): boolean {
    return this.timer !== null;
  }

  private schedule(): void {
    const deadline = this.startMs + (this.index + 1) * this.intervalMs;
    // A late tick fires at once; the ones after it keep their own deadlines.
    this.timer = setTimeout(() => this.fire(deadline), Math.max(0, deadline - this.clock.now()));
  }

  private fire(deadline: number): void {
    this.index += 1;
    const now = this.clock.now();
    this.schedule();
    this.onTick(this.index, this.index * this.intervalMs, now - deadline);
  }
}
