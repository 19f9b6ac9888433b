// When a disk is hung, by one rule for live runs and replays: an inspection starts at a tick,
// on a disk whose previous inspection has come back by the tick's clock, and it is in flight
// from then until its result came. A live run knows when a result came as it arrives; a
// replay knows it from the trace, as its tick's time plus its duration, which may lie past
// ticks not yet replayed. A disk is hung once its inspection in flight has been so for
// --hang-after. The one owner in the CLI of whether a disk's inspection is in flight: the
// pipeline starts a disk's inspection at a tick when this says so, and judges hangs by it.

/** One disk's inspection in flight, if any. */
export class InFlight {
  /** The tick the inspection started at; null for one left to another run's prober, or for none yet. */
  private tickId: number | null = null;
  private startedMs = 0;
  /** When its result came; null while none has. */
  private endedMs: number | null = null;
  private any = false;
  /** Told hung, and its inspection in flight has not come back since. */
  private told = false;

  /** Tick `tick` began at `atMs`: whether an inspection starts, as it does unless the previous one is still out. */
  tick(tick: number, atMs: number): boolean {
    if (this.any && (this.endedMs === null || this.endedMs > atMs)) return false;
    this.start(tick, atMs);
    return true;
  }

  /**
   * The result of the inspection of `tick` came at `atMs`; whether it ended a hang told.
   * A result of a later tick than the one in flight (`startedMs`: that tick's clock) says
   * that one had ended and this one started then.
   */
  ended(tick: number, startedMs: number, atMs: number): boolean {
    if (this.tickId !== null && tick > this.tickId) {
      this.start(tick, startedMs);
      this.endedMs = atMs;
      return false;
    }
    if (this.tickId !== tick) return false;
    this.endedMs = atMs;
    const hangEnded = this.told;
    this.told = false;
    return hangEnded;
  }

  /** How long the inspection has been in flight at `atMs` if that makes it newly hung (to be told once), else null. */
  newlyHung(atMs: number, hangAfterMs: number): number | null {
    if (this.told || !this.hung(atMs, hangAfterMs)) return null;
    this.told = true;
    return this.waitingMs(atMs);
  }

  /** When the inspection in flight at `nowMs` started if its hang is not told yet, or null. */
  untoldSinceMs(nowMs: number): number | null {
    return this.told ? null : this.sinceMs(nowMs);
  }

  /** The inspection is another run's, in flight since `sinceMs`: none starts here until this one is forgotten. */
  elsewhere(sinceMs: number): void {
    this.start(null, sinceMs);
  }

  /** The inspection in flight will never come back: the next tick starts one. */
  forget(): void {
    this.any = false;
    this.tickId = null;
    this.endedMs = null;
  }

  /** How long the inspection has been in flight at `nowMs`, or null when none is. */
  waitingMs(nowMs: number): number | null {
    if (!this.any || (this.endedMs !== null && this.endedMs <= nowMs)) return null;
    return nowMs - this.startedMs;
  }

  /** When the inspection in flight at `nowMs` started, or null when none is. */
  sinceMs(nowMs: number): number | null {
    return this.waitingMs(nowMs) === null ? null : this.startedMs;
  }

  hung(nowMs: number, hangAfterMs: number): boolean {
    const waiting = this.waitingMs(nowMs);
    return waiting !== null && waiting >= hangAfterMs;
  }

  private start(tick: number | null, atMs: number): void {
    this.any = true;
    this.tickId = tick;
    this.startedMs = atMs;
    this.endedMs = null;
  }
}
