// Live drive sampling: reads the counters of the chosen drives, adds each interval to the
// history, and judges the drives against each other. The kernel and the clock are passed in
// (and the history, which the caller loads and saves), so that a test can drive a watch and a series of cron checks over the
// same counters and compare their verdicts.
import { readFileSync } from 'node:fs';
import { readDiskstats, type DiskCounters } from '../kernel/diskstats.js';
import type { PeerParams } from './peer-params.js';
import { naturalCompare } from '../common/natural-compare.js';
import { groupMinimum, tooFewToJudge, type DriveVerdict, type HostVerdict } from './peer-verdict.js';
import { driveIdentity, readDeviceClass } from './block-disks.js';
import { judgeHistory, recordSnapshot, type DriveHistory, type Recorded, type Snapshot } from './history.js';
import type { DriveParams } from './drive-params.js';

export interface DriveSource {
  /** Every block device's counters, by MAJ:MIN, in one read. */
  diskstats(): Map<string, DiskCounters>;
  /** The kernel's boot id; null when unknown. */
  bootId(): string | null;
  /** Who the device is (a WWID, a serial, ...). */
  identity(name: string, majorMinor: string): string;
  /** Its device class (./device-class.ts): `nvme-ssd`, `sas-hdd`, ... */
  deviceClass(name: string): string;
}

export const KERNEL_SOURCE: DriveSource = {
  diskstats: () => readDiskstats(),
  bootId: () => {
    try {
      return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      return null;
    }
  },
  identity: (name, majorMinor) => driveIdentity(name, majorMinor),
  deviceClass: (name) => readDeviceClass(name),
};

/** One drive's standing: its verdict, or null while the history holds nothing of it or its class is too small. */
export interface DriveReport {
  device: string;
  id: string | null;
  /** The device class it is judged in. */
  peerClass: string;
  verdict: DriveVerdict | null;
  /** Its class has fewer drives than a judgement needs: no verdict, and this says why. */
  notJudged: string | null;
}

/** The chosen drives of one class. */
export interface DriveGroup {
  peerClass: string;
  drives: number;
  /** Enough drives to judge one against its peers. */
  judged: boolean;
  hostWideDays: number;
}

export interface DriveJudgement {
  drives: DriveReport[];
  groups: DriveGroup[];
  /** Days in the history (judged and open). */
  days: number;
  /** Days on which too many drives of some class were slow together. */
  hostWideDays: number;
}


export class DriveMonitor {
  private readonly chosen: string[];
  /** Each device's class, read once per identity (a name taken by another drive is read again). */
  private readonly classes = new Map<string, { id: string; peerClass: string }>();

  constructor(
    /** Kernel names, as chosen. */
    devices: readonly string[],
    readonly history: DriveHistory,
    private readonly source: DriveSource,
    private readonly clock: () => number,
    private readonly peer: PeerParams,
    private readonly params: DriveParams,
  ) {
    this.chosen = [...devices];
  }

  get devices(): readonly string[] {
    return this.chosen;
  }

  /**
   * Drives that appeared since the start (--all-devices: a drive hot-plugged into the
   * enclosure). None is ever dropped: a drive that leaves the kernel is reported as not
   * sampled, with its history, and sampled again when it is back.
   */
  addDevices(names: readonly string[]): void {
    for (const name of names) if (!this.chosen.includes(name)) this.chosen.push(name);
  }

  /** Reads the counters and records the interval since the last snapshot. */
  sample(): Recorded {
    const timeMs = this.clock();
    const all = this.source.diskstats();
    const wanted = new Set(this.devices);
    const snapshot: Snapshot = { timeMs, bootId: this.source.bootId(), devices: {} };
    for (const counters of all.values()) {
      if (!wanted.has(counters.name)) continue;
      const id = this.source.identity(counters.name, counters.device);
      snapshot.devices[counters.name] = { id, peerClass: this.classOf(counters.name, id), counters };
    }
    const recorded = recordSnapshot(this.history, snapshot, this.peer, this.params);
    for (const device of this.devices) if (!snapshot.devices[device]) recorded.skipped.push({ device, why: 'not in /proc/diskstats' });
    return recorded;
  }

  private classOf(device: string, id: string): string {
    const known = this.classes.get(device);
    if (known && known.id === id) return known.peerClass;
    const peerClass = this.source.deviceClass(device);
    this.classes.set(device, { id, peerClass });
    return peerClass;
  }

  /** Every chosen drive judged against the chosen drives of its class over the history. */
  judge(): DriveJudgement {
    const verdict: HostVerdict = judgeHistory(this.history, this.peer);
    const idOf = new Map(Object.entries(this.history.names).map(([id, name]) => [name, id]));
    const placed = this.devices.map((device) => {
      const id = this.history.last?.devices[device]?.id ?? idOf.get(device) ?? null;
      const peerClass = (id !== null ? this.history.classes?.[id] : undefined) ?? this.source.deviceClass(device);
      return { device, id, peerClass };
    });
    const sizes = new Map<string, number>();
    for (const { peerClass } of placed) sizes.set(peerClass, (sizes.get(peerClass) ?? 0) + 1);
    const drives = placed.map(({ device, id, peerClass }): DriveReport => {
      const size = sizes.get(peerClass)!;
      if (size < groupMinimum(this.peer)) return { device, id, peerClass, verdict: null, notJudged: tooFewToJudge(peerClass, size, this.peer) };
      return { device, id, peerClass, verdict: verdict.drives.find((drive) => drive.disk === id) ?? null, notJudged: null };
    });
    const groups = [...sizes.keys()].sort(naturalCompare).map((peerClass): DriveGroup => ({
      peerClass,
      drives: sizes.get(peerClass)!,
      judged: sizes.get(peerClass)! >= groupMinimum(this.peer),
      hostWideDays: verdict.groups.find((group) => group.peerClass === peerClass)?.hostWideDays ?? 0,
    }));
    return { drives, groups, days: verdict.days.length, hostWideDays: verdict.hostWideDays };
  }
}
