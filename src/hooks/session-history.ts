// The recent past a hook's report tells of: the scores of the last ten minutes of rounds,
// and each disk's latest inspections, kept as the session reports them.
import type { InspectionRecord, RoundReport } from '../live/session-events.js';

export const SCORE_HISTORY_MS = 600_000;
export const INSPECTIONS_PER_DISK = 20;

export interface RoundScores {
  tick: number;
  wallMs: number;
  storeScore: number;
  disks: Record<string, number>;
}

export class SessionHistory {
  private readonly roundScores: RoundScores[] = [];
  private readonly latest = new Map<string, InspectionRecord[]>();

  addRound(report: RoundReport, wallMs: number): void {
    this.roundScores.push({
      tick: report.tick,
      wallMs,
      storeScore: report.storeScore,
      disks: Object.fromEntries(report.disks.map((disk) => [disk.name, disk.score])),
    });
    while (this.roundScores[0]!.wallMs < wallMs - SCORE_HISTORY_MS) this.roundScores.shift();
  }

  addInspection(record: InspectionRecord): void {
    let records = this.latest.get(record.disk);
    if (!records) this.latest.set(record.disk, (records = []));
    records.push(record);
    if (records.length > INSPECTIONS_PER_DISK) records.shift();
  }

  rounds(): readonly RoundScores[] {
    return this.roundScores;
  }

  inspections(): ReadonlyMap<string, readonly InspectionRecord[]> {
    return this.latest;
  }
}
