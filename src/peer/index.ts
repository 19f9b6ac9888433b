// The peer (fail-slow) detector: which drive of a host runs slower than its peers, over days.
// Pure functions over aligned series; the reading of files lives in ../perseus/.
import type { HostDay } from './day.js';
import { judgeDayByClass } from './day.js';
import type { PeerParams } from './params.js';
import type { AlignedDay } from './series.js';
import { judgeHost, type HostVerdict } from './verdict.js';

export { judgeDay, judgeDayByClass, type DriveDay, type HostDay } from './day.js';
export { DEFAULT_PEER_PARAMS, peerParams, type PeerParams } from './params.js';
export { alignDay, DayBuilder, splitByClass, type AlignedDay, type DriveSeries } from './series.js';
export { daysToDetection, groupMinimum, judgeHost, naturalCompare, type DriveVerdict, type HostVerdict, type PeerGroup, type SlowEpisode, type Verdict } from './verdict.js';

/** Judges every day of one host, each device class apart, then its drives. */
export function detectHost(days: readonly AlignedDay[], params: PeerParams): { days: HostDay[]; verdict: HostVerdict } {
  const judged = days.flatMap((day) => judgeDayByClass(day, params));
  return { days: judged, verdict: judgeHost(judged, params) };
}
