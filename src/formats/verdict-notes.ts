// Why a check's verdict is what it is, beyond the store score: the first line's notes, the
// same in the human and the Nagios line.
import { describeFilesystem, identityOf } from '../layout/filesystem-memory.js';
import type { DiskStatus } from '../live/session-events.js';
import type { ScoreParams } from '../score/score-params.js';
import { reportedScore } from '../score/store-score.js';
import { downNotes } from '../verdict/down-verdict.js';
import { hangNotes } from '../verdict/hang-verdict.js';
import { busyNotes } from '../verdict/busy-verdict.js';
import { risingDisks } from '../verdict/rising-verdict.js';
import { formatElapsed } from './format.js';

/** "rising: kv (a continuous run would evict it in 12.0s)", or ''. */
function risingNotes(disks: readonly DiskStatus[], params: ScoreParams): string {
  const rising = risingDisks(disks).filter((disk) => reportedScore(disk.score) < params.evictThreshold);
  if (rising.length === 0) return '';
  return `rising: ${rising.map((disk) => `${disk.name} (a continuous run would evict it in ${formatElapsed(disk.evictionInMs!)})`).join(', ')}`;
}

/** "filesystem changed: kv (was /dev/loop3 (7:3) ext4 on /mnt/kv, now /dev/vda1 (254:1) ext4 on /)", or ''. */
function movedNotes(disks: readonly DiskStatus[]): string {
  const moved = disks.filter((disk) => disk.filesystemChanged);
  if (moved.length === 0) return '';
  const named = (disk: DiskStatus) => {
    const now = identityOf(disk);
    return disk.filesystemWas === undefined || now === null ? disk.name : `${disk.name} (was ${disk.filesystemWas}, now ${describeFilesystem(now)})`;
  };
  return `filesystem changed: ${moved.map(named).join(', ')}`;
}

export function verdictNotes(disks: readonly DiskStatus[], params: ScoreParams): string {
  return [downNotes(disks), movedNotes(disks), risingNotes(disks, params), hangNotes(disks), busyNotes(disks)].filter((note) => note !== '').join('; ');
}
