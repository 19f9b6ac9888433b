// A rise that every disk of the host shows (a stall of the machine, a burst of its other
// work) is the host's, not a coming breach of one disk: the early warning gives a disk the
// chance of a breach of its own. Its reading p is taken as the host's chance h and its own
// chance q, either enough for a breach: 1 - p = (1 - h)(1 - q). The host's chance is the
// median of the peers' readings of the same period: on a host of four disks or more, one peer
// slowing down on its own hardly moves it; on a host of two, it is that peer's reading. A disk
// whose peers read near 0 keeps its reading; one that reads no higher than they do is given 0.
import { median } from './evidence-window.js';

/** The disk's own chance of a breach, from its reading and its peers' readings (none: its reading). */
export function ownChance(reading: number, peerReadings: readonly number[]): number {
  if (peerReadings.length === 0) return reading;
  const host = median(peerReadings);
  return host >= 1 ? 0 : Math.max(0, 1 - (1 - reading) / (1 - host));
}
