// Live drive sampling: reads the counters of the chosen drives, adds each interval to the
// history, and judges the drives against each other. The kernel and the clock are passed in
// (and the history, which the caller loads and saves), so that a test can drive a watch and a series of cron checks over the
// same counters and compare their verdicts.
import { readFileSync } from 'node:fs';
import { readDiskstats, type DiskCounters } from '../kernel/diskstats.js';
import type { PeerParams } from '../peer/params.js';
import type { DriveVerdict, HostVerdict } from '../peer/verdict.js';
import { driveIdentity } from './block-disks.js';
import { judgeHistory, recordSnapshot, type DriveHistory, type Recorded, type Snapshot } from './history.js';
import type { DriveParams } from './params.js';

export interface DriveSource {
  /** Every block device's counters, by MAJ:MIN, in one read. */
  diskstats(): Map<string, DiskCounters>;
  /** The kernel's boot id; null when unknown. */
  bootId(): string | null;
  /** Who the device is (a WWID, a serial, ...). */
  identity(name: string, majorMinor: string): string;
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
};

/** One drive's standing: its verdict, or null while the history holds nothing of it. */
export interface DriveReport {
  device: string;
  id: string | null;
  verdict: DriveVerdict | null;
}

export interface DriveJudgement {
  drives: DriveReport[];
  /** Days in the history (judged and open). */
  days: number;
  hostWideDays: number;
}

export class DriveMonitor {
  private readonly chosen: string[];

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
      if (wanted.has(counters.name)) snapshot.devices[counters.name] = { id: this.source.identity(counters.name, counters.device), counters };
    }
    const recorded = recordSnapshot(this.history, snapshot, this.peer, this.params);
    for (const device of this.devices) if (!snapshot.devices[device]) recorded.skipped.push({ device, why: 'not in /proc/diskstats' });
    return recorded;
  }

  /** Every chosen drive judged against its peers over the history. */
  judge(): DriveJudgement {
    const verdict: HostVerdict = judgeHistory(this.history, this.peer);
    const idOf = new Map(Object.entries(this.history.names).map(([id, name]) => [name, id]));
    const drives = this.devices.map((device): DriveReport => {
      const id = this.history.last?.devices[device]?.id ?? idOf.get(device) ?? null;
      return { device, id, verdict: verdict.drives.find((drive) => drive.disk === id) ?? null };
    });
    return { drives, days: verdict.days.length, hostWideDays: verdict.hostWideDays };
  }
}
