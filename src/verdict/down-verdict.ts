// What a disk that cannot be written makes a run: CRITICAL at once, whatever its score says
// yet. A read-only remount, an I/O error, a full filesystem or a refused write leaves TiKV
// no way to persist anything there, which is worse than any slowness the score measures.
import type { Severity } from '../score/store-score.js';

/** The errno names that say a disk cannot take a write (at start or mid-run). */
export const UNWRITABLE_CODES: ReadonlySet<string> = new Set(['EROFS', 'EIO', 'ENOSPC', 'EACCES']);

export function isUnwritable(code: string | undefined): boolean {
  return code !== undefined && UNWRITABLE_CODES.has(code);
}

/**
 * slowdisk's own code for an EROFS from a read-only bind of a read-write filesystem (a
 * systemd unit's ProtectSystem= over a directory not in ReadWritePaths=): nothing is known
 * of that disk from here. Its ticks are neither counted nor charged, and the run is WARNING
 * while it lasts: not CRITICAL, for the disk may be healthy, and not OK, for it is not seen.
 */
export const NOT_JUDGED_CODE = 'EROBIND';

/** CRITICAL while any inspected disk's last inspection failed with one of those errors. */
export function downSeverity(unwritable: Iterable<boolean>): Severity {
  for (const down of unwritable) if (down) return 'evict';
  return 'ok';
}

/** What the rule reads of a disk: its name, state and error. */
export interface DiskDown {
  name: string;
  state: string;
  error?: { code: string };
}

export function isNotJudged(disk: DiskDown): boolean {
  return disk.state === 'down' && disk.error?.code === NOT_JUDGED_CODE;
}

/** WARNING while any disk is down on a read-only bind. */
export function notJudgedSeverity(disks: readonly DiskDown[]): Severity {
  return disks.some(isNotJudged) ? 'slow' : 'ok';
}

/**
 * The part of check's first line that says why: "cannot be written: kv (EROFS)", "not judged:
 * raft (on a read-only bind)", both, or ''.
 */
export function downNotes(disks: readonly DiskDown[]): string {
  const down = disks.filter((disk) => disk.state === 'down' && isUnwritable(disk.error?.code));
  const notJudged = disks.filter(isNotJudged);
  return [
    down.length > 0 ? `cannot be written: ${down.map((disk) => `${disk.name} (${disk.error!.code})`).join(', ')}` : '',
    notJudged.length > 0 ? `not judged: ${notJudged.map((disk) => disk.name).join(', ')} (on a read-only bind)` : '',
  ]
    .filter((note) => note !== '')
    .join('; ');
}
