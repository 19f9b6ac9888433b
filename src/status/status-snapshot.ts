// What a running service hands `slowdisk status`: everything check's last line is made of, as
// the service has it now, so that status prints it in check's formats with check's exit codes.
import type { DiskStatus } from '../live/session-events.js';
import type { ScoreParams } from '../score/score-params.js';
import type { Severity } from '../score/store-score.js';
import { exitCodeOf } from '../verdict/exit-codes.js';
import type { CheckOutcome } from '../formats/check-summary.js';
import type { DiskSummary } from '../formats/disk-summary.js';
import { STORE_NAME } from './status-socket.js';

export const STATUS_FORMAT = 1;

export interface StatusSnapshot {
  slowdisk_status: typeof STATUS_FORMAT;
  store: string;
  pid: number;
  /** The store now: its last round's verdict, with a hang, a disk that cannot be written and a rising disk. */
  severity: Severity;
  storeScore: number;
  /** The highest reported store score since the service started. */
  maxReported: number;
  /** Since the service started. */
  uptimeMs: number;
  disks: DiskStatus[];
  /** Each disk's summary: its highest score since the start, its timeouts and its recent latencies. */
  summaries: [string, DiskSummary][];
  params: ScoreParams;
  buffered: boolean;
  warnProbability: number;
  /** What the service cannot do now, its disks' verdict aside (a --listen address it cannot bind); absent when nothing. */
  problems?: string[];
}

/** The snapshot as check's outcome, for check's formats. */
export function outcomeOf(snapshot: StatusSnapshot): CheckOutcome {
  return {
    verdict: { severity: snapshot.severity, maxReported: snapshot.maxReported },
    storeScore: snapshot.storeScore,
    elapsedMs: snapshot.uptimeMs,
    disks: snapshot.disks,
    summaries: new Map(snapshot.summaries),
    exitCode: exitCodeOf(snapshot.severity),
    ...(snapshot.problems?.length ? { problems: snapshot.problems } : {}),
    store: snapshot.store,
  };
}

/** A snapshot as read from the socket, checked enough to be printed; throws on anything else. */
export function parseSnapshot(text: string): StatusSnapshot {
  const value = JSON.parse(text) as Partial<StatusSnapshot> | null;
  if (!value || value.slowdisk_status !== STATUS_FORMAT || !Array.isArray(value.disks) || !Array.isArray(value.summaries) || typeof value.storeScore !== 'number') {
    throw new Error('not a slowdisk status answer');
  }
  if (value.severity !== 'ok' && value.severity !== 'slow' && value.severity !== 'evict') throw new Error('not a slowdisk status answer');
  // Printed on the status line: a name as --store takes it, nothing else.
  if (typeof value.store !== 'string' || !STORE_NAME.test(value.store)) throw new Error('not a slowdisk status answer');
  return value as StatusSnapshot;
}
