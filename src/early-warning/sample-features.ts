// What the predictor reads from one disk's 15 s: the percentiles of its inspections (the
// ticks without a good result counted as timeouts) and, when the caller has them, the
// kernel's figures for the device behind it.

/** One disk's last sample period, as the caller measured it. */
export interface PredictorSample {
  /** The inspections started in the period that finished, in ms each (a late one with its full duration). */
  latenciesMs: readonly number[];
  /**
   * One entry per tick of the period without a good result (an error, or an inspection still
   * running): how long the disk's inspection had been running then (0 for an error). Each
   * counts as an inspection of at least the timeout, so that a hang's P99 keeps growing.
   */
  unansweredMs?: readonly number[];
  /** Failed inspections and device errors (retries, CRC) counted in the period, if known. */
  errors?: number;
  /** The device's requests in flight (the queue depth), if known. */
  queueDepth?: number;
  /** The device's completed I/O per second, if known. */
  iops?: number;
}

/** A sample reduced to the model's inputs; a figure the caller did not give is null. */
export interface SampleFeatures {
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  /** Inspections and unanswered ticks counted. */
  count: number;
  queueDepth: number | null;
  iops: number | null;
  errors: number | null;
}

/** Nearest rank: the smallest value with at least share q of the values at or below it. */
export function sortedQuantile(sorted: ArrayLike<number>, q: number): number {
  const rank = Math.max(1, Math.ceil(q * sorted.length));
  return sorted[rank - 1];
}

function optional(value: number | undefined, name: string): number | null {
  if (value === undefined) return null;
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`predictor sample: ${name} must be a number of at least 0, got ${value}`);
  return value;
}

/** The sample's features, or null for a period with neither an inspection nor an unanswered tick. */
export function sampleFeatures(sample: PredictorSample, timeoutMs: number): SampleFeatures | null {
  const { latenciesMs, unansweredMs = [] } = sample;
  if (latenciesMs.length + unansweredMs.length === 0) return null;
  // A typed array, sorted by the engine's own sort: no comparator called from JS per pair.
  const values = new Float64Array(latenciesMs.length + unansweredMs.length);
  for (let i = 0; i < latenciesMs.length; i += 1) {
    const ms = latenciesMs[i]!;
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`predictor sample: a latency must be a number of at least 0, got ${ms}`);
    values[i] = ms;
  }
  for (let i = 0; i < unansweredMs.length; i += 1) values[latenciesMs.length + i] = Math.max(timeoutMs, unansweredMs[i]!);
  values.sort();
  return {
    p50Ms: sortedQuantile(values, 0.5),
    p90Ms: sortedQuantile(values, 0.9),
    p99Ms: sortedQuantile(values, 0.99),
    count: values.length,
    queueDepth: optional(sample.queueDepth, 'queueDepth'),
    iops: optional(sample.iops, 'iops'),
    errors: optional(sample.errors, 'errors'),
  };
}
