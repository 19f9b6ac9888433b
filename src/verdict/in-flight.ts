// When a disk is hung, by one rule for live runs and replays: an inspection starts at a tick,
// on a disk whose previous inspection has come back by the tick's clock, and it is in flight
// from then until its result came. A live run knows when a result came as it arrives; a
// replay knows it from the trace, as its tick's time plus its duration, which may lie past
// ticks not yet replayed. A disk is hung once its inspection in flight has been so for
// --hang-after.

interface InFlight {
  /** The tick the inspection started at; null for one left to another run's prober. */
  tick: number | null;
  startedMs: number;
  /** When its result came; null while none has. */
  endedMs: number | null;
}

export class InFlightInspections {
  private readonly disks = new Map<string, InFlight>();

  constructor(private readonly hangAfterMs: number) {}

  /** Tick `tick` began at `atMs`: an inspection starts on the disk unless its previous one is still out. */
  tick(disk: string, tick: number, atMs: number): void {
    const inFlight = this.disks.get(disk);
    if (inFlight === undefined) {
      this.disks.set(disk, { tick, startedMs: atMs, endedMs: null });
    } else if (inFlight.endedMs !== null && inFlight.endedMs <= atMs) {
      // Reused rather than replaced: a replay starts one on every disk at almost every tick.
      inFlight.tick = tick;
      inFlight.startedMs = atMs;
      inFlight.endedMs = null;
    }
  }

  /**
   * The result of the disk's inspection of `tick` came at `atMs`; whether it was the one in
   * flight. A result of a later tick than the one in flight (`startedMs`: that tick's clock)
   * says that one had ended and this one started then.
   */
  ended(disk: string, tick: number, startedMs: number, atMs: number): boolean {
    const inFlight = this.disks.get(disk);
    if (inFlight !== undefined && inFlight.tick !== null && tick > inFlight.tick) {
      this.disks.set(disk, { tick, startedMs, endedMs: atMs });
      return false;
    }
    if (inFlight?.tick !== tick) return false;
    inFlight.endedMs = atMs;
    return true;
  }

  /** The disk's inspection is another run's, in flight since `sinceMs`: none starts here until it is forgotten. */
  elsewhere(disk: string, sinceMs: number): void {
    this.disks.set(disk, { tick: null, startedMs: sinceMs, endedMs: null });
  }

  /** Its inspection in flight will never come back, or the disk is no longer inspected. */
  forget(disk: string): void {
    this.disks.delete(disk);
  }

  /** How long the disk's inspection has been in flight at `nowMs`, or null when none is. */
  waitingMs(disk: string, nowMs: number): number | null {
    const inFlight = this.disks.get(disk);
    if (inFlight === undefined || (inFlight.endedMs !== null && inFlight.endedMs <= nowMs)) return null;
    return nowMs - inFlight.startedMs;
  }

  hung(disk: string, nowMs: number): boolean {
    const waiting = this.waitingMs(disk, nowMs);
    return waiting !== null && waiting >= this.hangAfterMs;
  }
}
