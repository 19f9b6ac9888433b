// check's one line: what a cron mail or a monitoring system shows.
import type { ScoreParams } from '../score/score-params.js';
import type { DiskStatus } from '../live/probe-session.js';
import { SEVERITY_LABELS } from '../score/store-score.js';
import type { RunVerdict } from '../verdict/run-verdict.js';
import { hangNotes } from '../verdict/hang-verdict.js';
import { formatDiskLine, formatElapsed, formatScore } from './format.js';

/** How check ended: its last line's input, in every format. */
export interface CheckOutcome {
  verdict: RunVerdict;
  storeScore: number;
  elapsedMs: number;
  disks: DiskStatus[];
  /** The signal that cut the check short. */
  interruptedBy?: string;
  exitCode: number;
}

export function checkSummary(
  verdict: RunVerdict,
  storeScore: number,
  elapsedMs: number,
  disks: DiskStatus[],
  params: ScoreParams,
  buffered: boolean,
  interruptedBy?: string,
): string {
  const head = interruptedBy
    ? `UNKNOWN: interrupted by ${interruptedBy} after ${formatElapsed(elapsedMs)}`
    : `${SEVERITY_LABELS[verdict.severity]}: store score ${formatScore(storeScore)} after ${formatElapsed(elapsedMs)}`;
  const notes = interruptedBy ? '' : hangNotes(disks);
  const limits = `max reported ${verdict.maxReported}, slow at ${params.slowThreshold}, evict at ${params.evictThreshold}${notes ? `; ${notes}` : ''}`;
  return [`${head} (${limits})`, ...disks.map((disk) => formatDiskLine(disk, buffered))].join(' | ');
}
