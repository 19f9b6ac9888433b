// One summary of each disk, the same in every format (the human line, the JSON summary, the
// Nagios perfdata, `status`): its score and highest score, its counts, and the median, P99
// and maximum of each phase, gathered from the session's rounds and inspections.
import type { ProbeSession } from '../live/probe-session.js';
import type { DiskStatus, RoundReport } from '../live/session-events.js';
import { LATENCY_PHASES, PhaseLatencies, type LatencyPhase, type PhaseFigures } from './phase-latencies.js';

export interface DiskSummary {
  /** The highest score the disk had at a round's close (its current one if higher). */
  maxScore: number;
  /** Ticks charged as timeouts. */
  timeouts: number;
  /** Each phase's latencies, for a disk with an inspection completed. */
  phases: Partial<Record<LatencyPhase, PhaseFigures>>;
}

export class DiskSummaries {
  private readonly peaks = new Map<string, number>();
  private readonly latencies: PhaseLatencies;

  /** Follows the session from now on; `capacity` bounds the inspections kept per disk. */
  constructor(
    private readonly session: Pick<ProbeSession, 'on' | 'chargedTimeouts'>,
    capacity?: number,
  ) {
    this.latencies = new PhaseLatencies(capacity);
    session.on('inspection', (record) => this.latencies.add(record));
    session.on('round', (report) => this.round(report));
  }

  of(disks: readonly DiskStatus[]): Map<string, DiskSummary> {
    const timeouts = this.session.chargedTimeouts();
    const summaries = new Map<string, DiskSummary>();
    for (const disk of disks) {
      const phases: DiskSummary['phases'] = {};
      for (const phase of LATENCY_PHASES) {
        const figures = this.latencies.figures(disk.name, phase);
        if (figures) phases[phase] = figures;
      }
      summaries.set(disk.name, { maxScore: Math.max(this.peaks.get(disk.name) ?? 1, disk.score), timeouts: timeouts.get(disk.name) ?? 0, phases });
    }
    return summaries;
  }

  private round(report: RoundReport): void {
    for (const disk of report.disks) this.peaks.set(disk.name, Math.max(this.peaks.get(disk.name) ?? 1, disk.score));
  }
}
