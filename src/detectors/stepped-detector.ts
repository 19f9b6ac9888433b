// What the statistical and the tail detector share: each disk's inspections gathered into
// steps of one width on the caller's clock, every disk's open step closed together when the
// first sample of a later step comes, a tick without a result counted as an inspection of a
// fixed latency, and the baselines refreshed on a period of that clock. Pure: no timers, no I/O.

/** What a detector keeps of a disk: the latencies of its open step, then whatever it judges with. */
export interface SteppedTrack {
  samples: number[];
}

export abstract class SteppedDetector<Track extends SteppedTrack> {
  protected readonly tracks = new Map<string, Track>();
  /** The index of the step being filled (floor(t / stepMs)); null before any sample. */
  private openStep: number | null = null;
  private nextRefreshMs = -Infinity;

  /**
   * `stepMs`: the width of a step; `failureLatencyMs`: what a tick without a result counts as
   * (TiKV's timeout, as the slow score charges it).
   */
  constructor(
    private readonly stepMs: number,
    private readonly failureLatencyMs: number,
  ) {}

  /** An inspection of `disk` that took `latencyMs`, started at `tMs` on the caller's clock. */
  observe(disk: string, tMs: number, latencyMs: number): void {
    if (!Number.isFinite(latencyMs) || latencyMs < 0) throw new RangeError(`latency must be a finite number of ms >= 0, got ${latencyMs}`);
    this.add(disk, tMs, latencyMs);
  }

  /**
   * A tick of `disk` without a result: its inspection failed, or was still running when the
   * tick came (call it once for each such tick, as the slow score charges each as a timeout).
   */
  failure(disk: string, tMs: number): void {
    this.add(disk, tMs, this.failureLatencyMs);
  }

  /** A new disk's track, first seen at `tMs`. */
  protected abstract newTrack(disk: string, tMs: number): Track;

  /** Closes step `index` of every disk: each is judged on it. */
  protected abstract closeStep(index: number): void;

  /** Whether the baselines are due for their refresh at `endMs`, once a `refreshMs` of the clock; due only once. */
  protected refreshDue(endMs: number, refreshMs: number): boolean {
    if (endMs < this.nextRefreshMs) return false;
    this.nextRefreshMs = (Math.floor(endMs / refreshMs) + 1) * refreshMs;
    return true;
  }

  /** A sample whose time falls in a step already closed is counted in the open one: the clock must not go backwards. */
  private add(disk: string, tMs: number, latencyMs: number): void {
    if (!Number.isFinite(tMs)) throw new RangeError(`time must be a finite number of ms, got ${tMs}`);
    const index = Math.floor(tMs / this.stepMs);
    if (this.openStep === null) this.openStep = index;
    else if (index > this.openStep) {
      this.closeStep(this.openStep);
      this.openStep = index;
    }
    let track = this.tracks.get(disk);
    if (!track) {
      track = this.newTrack(disk, tMs);
      this.tracks.set(disk, track);
    }
    track.samples.push(latencyMs);
  }
}
