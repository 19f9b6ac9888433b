// Ticks on absolute deadlines, tick k at start + k * interval (k >= 1), so lateness never
// accumulates. The prober's native threads keep them (native/tick_clock.cc, the same
// arithmetic, held to this by test/vectors/ticks.json); the CLI follows the same schedule to
// judge what the threads report, and what they fail to report in time.
// Its clock is src/common/monotonic-clock.ts's.

/** Batches of records come at most this far apart, so that the live view moves at least this often. */
const MAX_FLUSH_PERIOD_MS = 1000;

export class TickSchedule {
  constructor(
    readonly startMs: number,
    readonly intervalMs: number,
    readonly roundTicks: number,
  ) {}

  deadlineMs(tick: number): number {
    return this.startMs + tick * this.intervalMs;
  }

  /** The last tick due by `ms` (its deadline at or before it); 0 before the first. */
  dueBy(ms: number): number {
    let tick = Math.max(0, Math.floor((ms - this.startMs) / this.intervalMs));
    // Rounding may put the division a tick either way of a deadline.
    while (tick > 0 && this.deadlineMs(tick) > ms) tick -= 1;
    while (this.deadlineMs(tick + 1) <= ms) tick += 1;
    return tick;
  }

  /**
   * When the prober's batches are due: a whole number of them a round, one just after each
   * round's close, so that a round's verdict waits for no more than that, and at most a
   * second apart.
   */
  get flushPeriodMs(): number {
    const roundMs = this.intervalMs * this.roundTicks;
    return roundMs / Math.ceil(roundMs / MAX_FLUSH_PERIOD_MS);
  }

  /** How long after its deadline a round's close is flushed: its last inspections have come back by then. */
  get flushSlackMs(): number {
    return Math.min(2, this.intervalMs / 4);
  }

  /** When the first batch after `ms` is due. */
  nextFlushMs(ms: number): number {
    const at = (n: number) => this.startMs + n * this.flushPeriodMs + this.flushSlackMs;
    let n = Math.max(1, Math.floor((ms - this.flushSlackMs - this.startMs) / this.flushPeriodMs) + 1);
    // Rounding may put the division a batch either way of `ms`.
    while (n > 1 && at(n - 1) > ms) n -= 1;
    while (at(n) <= ms) n += 1;
    return at(n);
  }
}
