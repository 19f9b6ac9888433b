// A trace's inspections (docs/record-and-replay.md) cut into each disk's sample periods,
// as a live session would have fed the predictor: every tick of a period is either a result
// or an unanswered tick, with how long the disk's inspection had been running by then.
import type { PredictorSample } from '../../src/early-warning/sample-features.js';

/** The trace lines this reads: an inspection (ms), a failure (error) or a clock line. */
export interface TraceEntry {
  tick: number;
  disk?: string;
  ms?: number;
  error?: string;
}

export interface TimedSample {
  /** The end of the period on the trace's virtual clock (tick x interval). */
  atMs: number;
  sample: PredictorSample;
}

/**
 * Each disk's samples, period by period, up to the last whole period before the trace's last
 * tick. A tick with no line is unanswered: if an inspection started earlier is known to have
 * run past it, it had been running since that inspection's tick (at most its duration); otherwise the disk's
 * inspection is taken to have started at the first tick of the run of ticks without a line.
 */
export function traceSamples(entries: Iterable<TraceEntry>, intervalMs: number, sampleMs: number): Map<string, TimedSample[]> {
  const ticksPerSample = sampleMs / intervalMs;
  if (!Number.isInteger(ticksPerSample) || ticksPerSample < 1) throw new RangeError(`the sample period (${sampleMs} ms) must be a whole number of ticks of ${intervalMs} ms`);
  // Each disk's lines by tick, in an array indexed by the tick: a trace has a line for nearly every tick.
  const byDisk = new Map<string, (TraceEntry | undefined)[]>();
  let lastTick = 0;
  for (const entry of entries) {
    lastTick = Math.max(lastTick, entry.tick);
    if (entry.disk === undefined) continue;
    let lines = byDisk.get(entry.disk);
    if (lines === undefined) byDisk.set(entry.disk, (lines = []));
    lines[entry.tick] = entry;
  }
  const result = new Map<string, TimedSample[]>();
  for (const [disk, lines] of byDisk) {
    const samples: TimedSample[] = [];
    let latenciesMs: number[] = [];
    let unansweredMs: number[] = [];
    let errors = 0;
    let busyStart = 0;
    let busyEnd = 0;
    let busyMs = 0;
    let missingSince: number | null = null;
    for (let k = 1; k <= lastTick; k += 1) {
      const line = lines[k];
      if (line?.ms !== undefined) {
        latenciesMs.push(line.ms);
        busyStart = k;
        busyMs = line.ms;
        busyEnd = k + Math.max(1, Math.ceil(line.ms / intervalMs));
        missingSince = null;
      } else if (line !== undefined) {
        errors += 1;
        unansweredMs.push(0);
        missingSince = null;
      } else if (k < busyEnd) {
        unansweredMs.push(Math.min(busyMs, (k + 1 - busyStart) * intervalMs));
      } else {
        missingSince ??= k;
        unansweredMs.push((k + 1 - missingSince) * intervalMs);
      }
      if (k % ticksPerSample === 0) {
        samples.push({ atMs: k * intervalMs, sample: { latenciesMs, unansweredMs, errors } });
        latenciesMs = [];
        unansweredMs = [];
        errors = 0;
      }
    }
    result.set(disk, samples);
  }
  return result;
}
