// Each disk's inspection latencies per phase over a check (or the service's recent window):
// the median, P99 and maximum that every format's summary of a disk gives.
import type { InspectionRecord } from '../live/session-events.js';

export type LatencyPhase = 'write' | 'sync' | 'read';

export const LATENCY_PHASES: readonly LatencyPhase[] = ['write', 'sync', 'read'];

/** A phase's latencies in ms. */
export interface PhaseFigures {
  medianMs: number;
  p99Ms: number;
  maxMs: number;
}

function figuresOf(values: readonly number[]): PhaseFigures {
  const sorted = Float64Array.from(values).sort();
  const middle = sorted.length >> 1;
  const medianMs = sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  // Nearest rank: the smallest value at or above 99% of them.
  const p99Ms = sorted[Math.max(0, Math.ceil(0.99 * sorted.length) - 1)]!;
  return { medianMs, p99Ms, maxMs: sorted[sorted.length - 1]! };
}

export class PhaseLatencies {
  private readonly samples = new Map<string, Record<LatencyPhase, number[]>>();

  /** Keeps the latest `capacity` inspections of each disk: a check keeps all of its own, a service its recent window. */
  constructor(private readonly capacity: number = Number.POSITIVE_INFINITY) {}

  add(record: InspectionRecord): void {
    const { timings } = record;
    if (!timings) return;
    let disk = this.samples.get(record.disk);
    if (!disk) {
      disk = { write: [], sync: [], read: [] };
      this.samples.set(record.disk, disk);
    }
    disk.write.push(timings.writeMs);
    disk.sync.push(timings.syncMs);
    disk.read.push(timings.readMs);
    if (disk.write.length > this.capacity) for (const phase of LATENCY_PHASES) disk[phase].shift();
  }

  /** The phase's figures, or undefined when no inspection of the disk completed. */
  figures(disk: string, phase: LatencyPhase): PhaseFigures | undefined {
    const values = this.samples.get(disk)?.[phase];
    return values && values.length > 0 ? figuresOf(values) : undefined;
  }
}
