// How soon the peer detector finds a slow drive, which the benchmark sets against the
// operators' labels.
import type { HostDay } from '../../src/drives/peer-day.js';
import type { PeerParams } from '../../src/drives/peer-params.js';
import { naturalCompare } from '../../src/common/natural-compare.js';
import { judgeHost } from '../../src/drives/peer-verdict.js';

/**
 * How many days of data each drive needed to be judged slow: the verdict is taken on the
 * host's first 1, 2, ... days, as if the data had ended there. A drive never judged slow is
 * absent. The days are judged independently, so this costs no more than the verdicts.
 */
export function daysToDetection(hostDays: readonly HostDay[], params: PeerParams): Map<string, { days: number; day: string }> {
  const sorted = [...hostDays].sort((a, b) => naturalCompare(a.day, b.day));
  const found = new Map<string, { days: number; day: string }>();
  for (let k = 1; k <= sorted.length; k += 1) {
    for (const drive of judgeHost(sorted.slice(0, k), params).drives) {
      if (drive.verdict === 'slow' && !found.has(drive.disk)) found.set(drive.disk, { days: k, day: sorted[k - 1].day });
    }
  }
  return found;
}
