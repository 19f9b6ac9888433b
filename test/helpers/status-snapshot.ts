// What a service hands `slowdisk status`, for tests of the socket and of what status prints:
// a store with no disk, at `score`, a minute after its start.
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { STATUS_FORMAT, type StatusSnapshot } from '../../src/status/status-snapshot.js';

export function statusSnapshot(store: string, score = 1): StatusSnapshot {
  return {
    slowdisk_status: STATUS_FORMAT,
    store,
    pid: process.pid,
    severity: score >= 100 ? 'evict' : 'ok',
    storeScore: score,
    maxReported: score,
    uptimeMs: 60_000,
    disks: [],
    summaries: [],
    params: DEFAULT_SCORE_PARAMS,
    buffered: false,
    warnProbability: 0.7,
  };
}
