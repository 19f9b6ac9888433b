// What a running service says its store is now, for `slowdisk status`: its last round's
// verdict (the score's severity and the detectors'), and from the disks as they are now a
// hang, a disk that cannot be written, and a disk whose recent rounds would evict it.
// Unlike a run's verdict, it is not the worst so far: a store that recovered is OK again.
import { worseSeverity, type Severity } from '../score/store-score.js';
import { downSeverity, isUnwritable, notJudgedSeverity } from './down-verdict.js';
import { hangSeverity, type DiskAnswers } from './hang-verdict.js';
import { risingSeverity, type DiskProjection } from './rising-verdict.js';

export interface DiskNow extends DiskAnswers, DiskProjection {
  error?: { code: string };
  filesystemChanged?: boolean;
}

export function currentSeverity(lastRound: Severity, disks: readonly DiskNow[]): Severity {
  const down = downSeverity(disks.map((disk) => disk.state === 'down' && isUnwritable(disk.error?.code)));
  const moved: Severity = disks.some((disk) => disk.filesystemChanged) ? 'slow' : 'ok';
  return [hangSeverity(disks), risingSeverity(disks.filter((disk) => disk.inspected)), down, notJudgedSeverity(disks), moved].reduce(worseSeverity, lastRound);
}
