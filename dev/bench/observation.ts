// What the observer (observer.ts, preloaded into the real CLI) writes at exit, as the benchmark
// parts read it back.

/** One disk's counters at a snapshot. */
export interface DiskCounters {
  inspections: number;
  errors: number;
  late: number;
  timeouts: number;
  /** Phase-timing samples kept so far (SLOWDISK_BENCH_SAMPLES=1). */
  samples: number;
}

/** The counters at one instant: a SIGUSR2 (a window's start or end) or the exit. */
export interface Snapshot {
  /** Wall-clock ms since the epoch. */
  atMs: number;
  monotonicMs: number;
  /** Ticks the session has judged. */
  ticks: number;
  /** Inspections whose start was seen: an index into `lateness`. */
  starts: number;
  rounds: number;
  disks: Record<string, DiskCounters>;
}

/** A tick that did not come back clean, and when on CLOCK_MONOTONIC, in ms. */
export type BadTick = [tick: number, kind: 'timeout' | 'late' | 'error', monotonicMs: number];

/** One inspection's phase timings, in ms. */
export type Sample = [tick: number, openMs: number, writeMs: number, syncMs: number, readMs: number, closeMs: number, totalMs: number];

export interface Observation {
  exitCode: number;
  timeoutMs: number;
  /** Lateness of every inspection's start, in ms, in the order they came. */
  lateness: number[];
  snapshots: Snapshot[];
  final: Snapshot;
  maxTotalMs: Record<string, number>;
  /** Per disk (SLOWDISK_BENCH_SAMPLES=1 only). */
  samples?: Record<string, Sample[]>;
  /** Tick k's deadline on CLOCK_MONOTONIC is startMs + k * intervalMs (absent if the session never started). */
  schedule?: { startMs: number; intervalMs: number };
  /** Per disk, the ticks whose inspection came back. */
  ticks: Record<string, number[]>;
  bad: Record<string, BadTick[]>;
  /** Per disk, its score at exit (absent if no session opened). */
  scores?: Record<string, number>;
}
