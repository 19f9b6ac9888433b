// check's typical latency per disk and phase: the median of the inspections that completed
// during the check, for the Nagios perfdata. The score already judges the outliers.
import type { InspectionRecord } from '../live/probe-session.js';

export type LatencyPhase = 'write' | 'sync' | 'read';

export const LATENCY_PHASES: readonly LatencyPhase[] = ['write', 'sync', 'read'];

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export class PhaseLatencies {
  private readonly samples = new Map<string, Record<LatencyPhase, number[]>>();

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
  }

  /** The median in ms, or undefined when no inspection of the disk completed. */
  medianMs(disk: string, phase: LatencyPhase): number | undefined {
    const values = this.samples.get(disk)?.[phase];
    return values && values.length > 0 ? median(values) : undefined;
  }
}
