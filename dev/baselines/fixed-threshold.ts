// The fixed-threshold detector CTyun's slow-disk detection article compares against: an inspection over a fixed latency is
// a slow IO, and a disk alarms when it has too many in the last minute. Pure, like the others;
// the detection benchmark runs it as the baseline the statistical detector has to beat.

export interface FixedThresholdParams {
  /** An inspection this long or longer is a slow IO (the article's example: 100 ms). */
  slowMs: number;
  /** The sliding window slow IOs are counted over. */
  windowMs: number;
  /** The disk alarms when the window holds this many slow IOs (10 a minute: 1 in 60 at 100 ms). */
  alarmCount: number;
  /** The alarm clears when the window holds fewer than this many (hysteresis, so it does not flap). */
  clearCount: number;
}

export const DEFAULT_FIXED_THRESHOLD_PARAMS: Readonly<FixedThresholdParams> = Object.freeze({
  slowMs: 100,
  windowMs: 60_000,
  alarmCount: 10,
  clearCount: 5,
});

class SlowTimes {
  times: number[] = [];
  head = 0;
  alarmed = false;

  get count(): number {
    return this.times.length - this.head;
  }

  push(tMs: number): void {
    this.times.push(tMs);
  }

  expire(beforeMs: number): void {
    while (this.head < this.times.length && this.times[this.head] <= beforeMs) this.head += 1;
    if (this.head >= 1024 && this.head * 2 >= this.times.length) {
      this.times = this.times.slice(this.head);
      this.head = 0;
    }
  }
}

export class FixedThresholdDetector {
  readonly params: Readonly<FixedThresholdParams>;
  private readonly disks = new Map<string, SlowTimes>();

  constructor(params: Partial<FixedThresholdParams> = {}) {
    this.params = Object.freeze({ ...DEFAULT_FIXED_THRESHOLD_PARAMS, ...params });
  }

  /** An inspection of `disk` started at `tMs` took `latencyMs`; returns whether the disk is alarmed. */
  observe(disk: string, tMs: number, latencyMs: number): boolean {
    return this.add(disk, tMs, latencyMs >= this.params.slowMs);
  }

  /** A tick without a result (failed, or still in flight): a slow IO. */
  failure(disk: string, tMs: number): boolean {
    return this.add(disk, tMs, true);
  }

  alarmed(disk: string): boolean {
    return this.disks.get(disk)?.alarmed ?? false;
  }

  slowCount(disk: string): number {
    return this.disks.get(disk)?.count ?? 0;
  }

  private add(disk: string, tMs: number, slow: boolean): boolean {
    let times = this.disks.get(disk);
    if (!times) {
      times = new SlowTimes();
      this.disks.set(disk, times);
    }
    times.expire(tMs - this.params.windowMs);
    if (slow) times.push(tMs);
    const count = times.count;
    if (!times.alarmed && count >= this.params.alarmCount) times.alarmed = true;
    else if (times.alarmed && count < this.params.clearCount) times.alarmed = false;
    return times.alarmed;
  }
}
