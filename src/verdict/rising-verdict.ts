// What a run can say before the score reaches a threshold: a disk whose recent rounds, seen
// again and again by a continuous observer (TiKV, or `watch`), would take its score to
// eviction is rising, and never OK: WARNING at least. A cron check starts from score 1 every
// time, so without this a disk timing out in every round of a short check would be OK.
import type { Severity } from '../score/store-score.js';

/** What the rule reads of a disk: when its recent rounds, repeated, would evict it (null: never). */
export interface DiskProjection {
  name: string;
  evictionInMs?: number | null;
}

/** The disks whose recent rounds, repeated, would take them to eviction. */
export function risingDisks<Disk extends DiskProjection>(disks: readonly Disk[]): Disk[] {
  return disks.filter((disk) => disk.evictionInMs != null && disk.evictionInMs > 0);
}

export function risingSeverity(disks: readonly DiskProjection[]): Severity {
  return risingDisks(disks).length > 0 ? 'slow' : 'ok';
}
