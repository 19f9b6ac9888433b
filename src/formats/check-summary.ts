// check's one line: what a cron mail or a monitoring system shows.
import type { ScoreParams } from '../score/score-params.js';
import type { DiskStatus } from '../live/session-events.js';
import { SEVERITY_LABELS } from '../score/store-score.js';
import type { RunVerdict } from '../verdict/run-verdict.js';
import { verdictNotes } from './verdict-notes.js';
import { formatDiskLine, formatElapsed, formatScore, lastLineWaitMs } from './format.js';
import type { DiskSummary } from './disk-summary.js';

/** How check ended: its last line's input, in every format. */
export interface CheckOutcome {
  verdict: Pick<RunVerdict, 'severity' | 'maxReported'>;
  storeScore: number;
  elapsedMs: number;
  disks: DiskStatus[];
  /** Each disk's summary over the check. */
  summaries: ReadonlyMap<string, DiskSummary>;
  /** The signal that cut the check short. */
  interruptedBy?: string;
  /** The store whose service answered `status`: every format names it. */
  store?: string;
  exitCode: number;
  /** What the service answering `status` cannot do now, its disks' verdict aside (a --listen address it cannot bind). */
  problems?: string[];
}

export function checkSummary(outcome: CheckOutcome, params: ScoreParams, buffered: boolean): string {
  const { verdict, storeScore, elapsedMs, disks, interruptedBy } = outcome;
  const head = interruptedBy
    ? `UNKNOWN: interrupted by ${interruptedBy} after ${formatElapsed(elapsedMs)}`
    : `${SEVERITY_LABELS[verdict.severity]}: ${storeText(outcome)} score ${formatScore(storeScore)} after ${formatElapsed(elapsedMs)}`;
  const notes = interruptedBy ? '' : verdictNotes(disks, params);
  const limits = `max reported ${verdict.maxReported}, slow at ${params.slowThreshold}, evict at ${params.evictThreshold}${notes ? `; ${notes}` : ''}`;
  return [`${head} (${limits})`, ...disks.map((disk) => formatDiskLine(disk, buffered, outcome.summaries.get(disk.name), lastLineWaitMs(params)))].join(' | ');
}

/** "store", or "store 'kv1'" for the store whose service answered. */
export function storeText(outcome: Pick<CheckOutcome, 'store'>): string {
  return outcome.store === undefined ? 'store' : `store '${outcome.store}'`;
}
