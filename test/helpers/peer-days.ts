// Whole series aligned and judged in one call, for tests that have the arrays in hand (the
// command and the benchmark read and judge a day at a time).
import { judgeDayByClass, type HostDay } from '../../src/drives/peer-day.js';
import type { PeerParams } from '../../src/drives/peer-params.js';
import { DayBuilder, type AlignedDay, type DriveSeries } from '../../src/drives/aligned-series.js';
import { judgeHost, type HostVerdict } from '../../src/drives/peer-verdict.js';

/** Aligns whole series at once. */
export function alignDay(day: string, series: DriveSeries[], bucketSeconds: number): AlignedDay {
  const builder = new DayBuilder(day, bucketSeconds);
  for (const one of series) builder.addSeries(one);
  return builder.build();
}

/** Judges every day of one host, each device class apart, then its drives. */
export function detectHost(days: readonly AlignedDay[], params: PeerParams): { days: HostDay[]; verdict: HostVerdict } {
  const judged = days.flatMap((day) => judgeDayByClass(day, params));
  return { days: judged, verdict: judgeHost(judged, params) };
}
