// The detection benchmark's figures (dev/bench/detect.ts): its runs gathered per scenario and
// host, and summed per detector.
import type { ScenarioKind } from '../scenarios/index.js';
import { byDetector, HOSTS, SCENARIOS, type DetectorName, type RunResult } from './detect-runs.js';

/** The q-quantile of a sorted list, interpolated; NaN of none. */
export function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** How the faulty disk's latency moved at its onset, over the runs: the median and the least of the P99's rise, the median's. */
interface Shift {
  p99RatioMedian: number;
  p99RatioMin: number;
  medianRatioMedian: number;
}

/** One detector over the runs of one scenario on one host; the onset-to-alarm figures are null without a fault. */
export interface DetectorRow {
  detected: number | null;
  detectionRate: number | null;
  medianS: number | null;
  p90S: number | null;
  maxS: number | null;
  meanS: number | null;
  within90s: number | null;
  timesS: number[] | null;
  falseAlarms: number;
  healthyDiskHours: number;
  falseAlarmsPer100DiskHours: number;
  alarms: number;
  /** heal: the runs whose alarm ended after the heal, and the median time it took. */
  clearedAfterHeal: { runs: number; medianS: number | null } | null;
}

/** The runs of one scenario on one host. */
export interface Row {
  scenario: string;
  kind: ScenarioKind;
  factor: number | null;
  host: string;
  runs: number;
  faulty: boolean;
  diskHours: number;
  hostWideEpisodes: number;
  shift: Shift | null;
  suspectEpisodes: number;
  fastConfirmations: number;
  /** hang: the runs whose slow score reached 100 outside the window its score at onset allows, and those whose score was above 1 then. */
  slowScoreHang: { outsideWindow: number; raisedAtOnset: number } | null;
  detectors: Record<DetectorName, DetectorRow>;
}

function shiftOf(runs: readonly RunResult[]): Shift {
  const p99 = runs.map((r) => r.shift!.p99Ratio).sort((a, b) => a - b);
  const median = runs.map((r) => r.shift!.medianRatio).sort((a, b) => a - b);
  return { p99RatioMedian: quantile(p99, 0.5), p99RatioMin: p99[0], medianRatioMedian: quantile(median, 0.5) };
}

function slowScoreHangOf(runs: readonly RunResult[]): { outsideWindow: number; raisedAtOnset: number } {
  const outside = (r: RunResult) => {
    const t = r.detectors.slowScore.detectMs;
    return t === null || t < r.hangWindowMs![0] || t > r.hangWindowMs![1] + 1e-6;
  };
  return { outsideWindow: runs.filter(outside).length, raisedAtOnset: runs.filter((r) => r.scoreAtOnset! > 1).length };
}

export function aggregate(results: readonly RunResult[]): Row[] {
  const rows: Row[] = [];
  for (const scenario of SCENARIOS) {
    for (const host of HOSTS) {
      const runs = results.filter((r) => r.scenario === scenario.name && r.host === host.name);
      if (runs.length === 0) continue;
      const faulty = runs[0].slowDisk !== null;
      const detectorRow = (name: DetectorName): DetectorRow => {
        const times = runs.map((r) => r.detectors[name].detectMs).filter((t) => t !== null).sort((a, b) => a - b);
        const healthyHours = runs.reduce((a, r) => a + r.detectors[name].healthyMs / 3_600_000, 0);
        const falseAlarms = runs.reduce((a, r) => a + r.detectors[name].falseAlarms, 0);
        const cleared = runs.map((r) => r.detectors[name].clearedMs).filter((t) => t !== null).sort((a, b) => a - b);
        return {
          detected: faulty ? times.length : null,
          detectionRate: faulty ? times.length / runs.length : null,
          medianS: faulty && times.length ? quantile(times, 0.5) / 1000 : null,
          p90S: faulty && times.length ? quantile(times, 0.9) / 1000 : null,
          maxS: faulty && times.length ? times[times.length - 1] / 1000 : null,
          meanS: faulty && times.length ? times.reduce((a, t) => a + t, 0) / times.length / 1000 : null,
          within90s: faulty ? times.filter((t) => t <= 90_000).length / runs.length : null,
          timesS: faulty ? times.map((t) => t / 1000) : null,
          falseAlarms,
          healthyDiskHours: healthyHours,
          falseAlarmsPer100DiskHours: (100 * falseAlarms) / healthyHours,
          alarms: runs.reduce((a, r) => a + r.detectors[name].alarms, 0),
          clearedAfterHeal: scenario.kind === 'heal' ? { runs: cleared.length, medianS: cleared.length ? quantile(cleared, 0.5) / 1000 : null } : null,
        };
      };
      rows.push({
        scenario: scenario.name,
        kind: scenario.kind,
        factor: scenario.factor ?? null,
        host: host.name,
        runs: runs.length,
        faulty,
        diskHours: runs.reduce((a, r) => a + (r.durationMs * r.disks) / 3_600_000, 0),
        hostWideEpisodes: runs.reduce((a, r) => a + r.hostWideEpisodes, 0),
        shift: faulty ? shiftOf(runs) : null,
        suspectEpisodes: runs.reduce((a, r) => a + r.suspectEpisodes, 0),
        fastConfirmations: runs.reduce((a, r) => a + r.fastConfirmations, 0),
        slowScoreHang: scenario.kind === 'hang' ? slowScoreHangOf(runs) : null,
        detectors: byDetector(detectorRow),
      });
    }
  }
  return rows;
}

/** One detector over every row. */
export interface DetectorSummary {
  faultRuns: number;
  detectionRate: number | null;
  meanDetectionS: number | null;
  falseAlarmSharePercent: number;
  falseAlarmsPer100DiskHoursWithoutFault: number | null;
}

export function summary(rows: readonly Row[]): Record<DetectorName, DetectorSummary> {
  return byDetector((name) => {
    const faultRows = rows.filter((r) => r.faulty);
    const times = faultRows.flatMap((r) => r.detectors[name].timesS ?? []);
    const runs = faultRows.reduce((a, r) => a + r.runs, 0);
    const alarms = rows.reduce((a, r) => a + r.detectors[name].alarms, 0);
    const falseAlarms = rows.reduce((a, r) => a + r.detectors[name].falseAlarms, 0);
    const quiet = rows.filter((r) => !r.faulty);
    const quietHours = quiet.reduce((a, r) => a + r.detectors[name].healthyDiskHours, 0);
    const quietFalse = quiet.reduce((a, r) => a + r.detectors[name].falseAlarms, 0);
    return {
      faultRuns: runs,
      detectionRate: runs ? times.length / runs : null,
      meanDetectionS: times.length ? times.reduce((a, t) => a + t, 0) / times.length : null,
      falseAlarmSharePercent: alarms ? (100 * falseAlarms) / alarms : 0,
      falseAlarmsPer100DiskHoursWithoutFault: quietHours ? (100 * quietFalse) / quietHours : null,
    };
  });
}


/** A share as a whole percentage; '-' for none. */
export const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${Math.round(100 * x)}%`);
/** Seconds in s, m or h; '-' for none. */
export function fmtS(s: number | null | undefined): string {
  if (s === null || s === undefined) return '-';
  if (s < 100) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${(s / 60).toFixed(1)}m`;
  return `${(s / 3600).toFixed(1)}h`;
}
