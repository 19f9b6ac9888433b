// A host's per-drive latency and throughput on one day, aligned on a common clock.

/**
 * One host's drives over one period (a day), on time buckets: `latency[d][b]` and
 * `throughput[d][b]` are drive `disks[d]`'s mean over bucket `b`, NaN where it has no sample.
 * Buckets are ascending; `bucketStart[b]` is the bucket's start in Unix seconds.
 */
export interface AlignedDay {
  day: string;
  bucketSeconds: number;
  disks: string[];
  /**
   * Each drive's device class (`nvme-ssd`, `sas-hdd`, ...; '' when none was given): a drive
   * is judged only against the drives of its own class, as `splitByClass` hands them out.
   */
  classes: string[];
  bucketStart: Float64Array;
  latency: Float64Array[];
  throughput: Float64Array[];
}

/** One drive's samples, as parallel arrays: Unix seconds, bytes/s (any unit), latency (any unit). */
export interface DriveSeries {
  disk: string;
  /** Its device class; none (one class for the host) when absent. */
  peerClass?: string;
  ts: ArrayLike<number>;
  throughput: ArrayLike<number>;
  latency: ArrayLike<number>;
}

const INITIAL_ROWS = 4096;

/**
 * Collects one host-day's samples row by row, in any order, and aligns them on buckets of
 * `bucketSeconds` (several samples of a drive in one bucket are averaged). No allocation per
 * row beyond the amortised growth of its typed arrays.
 */
export class DayBuilder {
  private readonly diskIndex = new Map<string, number>();
  private readonly diskNames: string[] = [];
  private readonly diskClasses: string[] = [];
  private readonly slotOfBucket = new Map<number, number>();
  private bucketOfSlot: number[] = [];
  private slot = new Int32Array(INITIAL_ROWS);
  private disk = new Int32Array(INITIAL_ROWS);
  private tp = new Float64Array(INITIAL_ROWS);
  private lat = new Float64Array(INITIAL_ROWS);
  private length = 0;

  constructor(
    readonly day: string,
    readonly bucketSeconds: number,
  ) {}

  /** Rows added so far. */
  get rows(): number {
    return this.length;
  }

  /** The index of a drive by name, registering it on first sight. */
  indexOf(disk: string): number {
    let index = this.diskIndex.get(disk);
    if (index === undefined) {
      index = this.diskNames.length;
      this.diskIndex.set(disk, index);
      this.diskNames.push(disk);
      this.diskClasses.push('');
    }
    return index;
  }

  /** The device class of drive `diskIndex`; the first one given for a drive stands. */
  setClass(diskIndex: number, peerClass: string): void {
    if (this.diskClasses[diskIndex] === '') this.diskClasses[diskIndex] = peerClass;
  }

  /** The class of drive `diskIndex` so far ('' for none). */
  classOf(diskIndex: number): string {
    return this.diskClasses[diskIndex] ?? '';
  }

  /** One sample of drive `diskIndex` (from indexOf) at Unix second `ts`. */
  add(ts: number, diskIndex: number, throughput: number, latency: number): void {
    const bucket = Math.floor(ts / this.bucketSeconds);
    let slot = this.slotOfBucket.get(bucket);
    if (slot === undefined) {
      slot = this.bucketOfSlot.length;
      this.slotOfBucket.set(bucket, slot);
      this.bucketOfSlot.push(bucket);
    }
    if (this.length === this.slot.length) this.grow();
    const i = this.length;
    this.slot[i] = slot;
    this.disk[i] = diskIndex;
    this.tp[i] = throughput;
    this.lat[i] = latency;
    this.length = i + 1;
  }

  addSeries(series: DriveSeries): void {
    const index = this.indexOf(series.disk);
    if (series.peerClass) this.setClass(index, series.peerClass);
    const n = Math.min(series.ts.length, series.throughput.length, series.latency.length);
    for (let i = 0; i < n; i += 1) this.add(series.ts[i], index, series.throughput[i], series.latency[i]);
  }

  build(): AlignedDay {
    const buckets = this.bucketOfSlot.length;
    const order = Array.from({ length: buckets }, (_, i) => i).sort((a, b) => this.bucketOfSlot[a] - this.bucketOfSlot[b]);
    const rank = new Int32Array(buckets);
    const bucketStart = new Float64Array(buckets);
    order.forEach((slot, r) => {
      rank[slot] = r;
      bucketStart[r] = this.bucketOfSlot[slot] * this.bucketSeconds;
    });
    const disks = this.diskNames.length;
    const latency = Array.from({ length: disks }, () => new Float64Array(buckets));
    const throughput = Array.from({ length: disks }, () => new Float64Array(buckets));
    const count = Array.from({ length: disks }, () => new Uint16Array(buckets));
    for (let i = 0; i < this.length; i += 1) {
      const d = this.disk[i];
      const b = rank[this.slot[i]];
      latency[d][b] += this.lat[i];
      throughput[d][b] += this.tp[i];
      if (count[d][b] < 65535) count[d][b] += 1;
    }
    for (let d = 0; d < disks; d += 1) {
      for (let b = 0; b < buckets; b += 1) {
        const n = count[d][b];
        if (n === 0) {
          latency[d][b] = NaN;
          throughput[d][b] = NaN;
        } else if (n > 1) {
          latency[d][b] /= n;
          throughput[d][b] /= n;
        }
      }
    }
    return { day: this.day, bucketSeconds: this.bucketSeconds, disks: [...this.diskNames], classes: [...this.diskClasses], bucketStart, latency, throughput };
  }

  private grow(): void {
    const size = this.slot.length * 2;
    const grown = <T extends Int32Array | Float64Array>(from: T, to: T): T => {
      to.set(from);
      return to;
    };
    this.slot = grown(this.slot, new Int32Array(size));
    this.disk = grown(this.disk, new Int32Array(size));
    this.tp = grown(this.tp, new Float64Array(size));
    this.lat = grown(this.lat, new Float64Array(size));
  }
}

/** The day cut into one day per device class, in order of the classes' first drive; the drives' arrays are shared, not copied. */
export function splitByClass(day: AlignedDay): AlignedDay[] {
  const classes = [...new Set(day.classes)];
  if (classes.length <= 1) return [day];
  return classes.map((peerClass) => {
    const keep = day.disks.map((_, d) => d).filter((d) => day.classes[d] === peerClass);
    return {
      ...day,
      disks: keep.map((d) => day.disks[d]),
      classes: keep.map(() => peerClass),
      latency: keep.map((d) => day.latency[d]),
      throughput: keep.map((d) => day.throughput[d]),
    };
  });
}
