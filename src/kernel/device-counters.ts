// The block devices behind the inspected disks, and what each of them did over each round:
// one read of /proc/diskstats per round for all of them. The devices are resolved again when
// a disk's filesystem changes, and whenever one of them is missing from the counters or its
// counters began again (a loop device detached and made anew): a device that went away and
// came back is shown again, never dropped for good.
import { devicesToCount, resolveBlockDevices, type BlockDeviceNode, type CountedDevice, type DeviceRole } from './block-devices.js';
import { deviceRates, type DeviceRates } from './device-rates.js';
import { readDiskstats, type DiskCounters } from './diskstats.js';
import { MONOTONIC_CLOCK } from '../common/monotonic-clock.js';
import { limitUse, readCgroupIo, type CgroupLevel } from './cgroup-io.js';

/** One device over one round, as every output shows it and traces record it. */
export type DeviceFigures = Pick<
  DeviceRates,
  | 'device'
  | 'name'
  | 'readIops'
  | 'writeIops'
  | 'flushIops'
  | 'readLatencyMs'
  | 'writeLatencyMs'
  | 'flushLatencyMs'
  | 'inFlight'
  | 'averageQueueDepth'
  | 'utilisation'
  | 'stalled'
> & {
  /** The inspected disks whose filesystem goes through the device, in the order of the disks. */
  disks: string[];
  /** What the device is to the first of them. */
  role: DeviceRole;
  /**
   * The largest share of an I/O limit on the device, set in the cgroup slowdisk runs in or
   * an ancestor, that the group's I/O used over the round (cgroup-io.ts): 1 is pinned at the
   * limit. Null where no limit is set.
   */
  limitUse: number | null;
};

const rounded = (value: number, places: number) => Number(value.toFixed(places));
const roundedOrNull = (value: number | null, places: number) => (value === null ? null : rounded(value, places));

/**
 * The figures to the places every output shows and a trace keeps them: rates, latencies and
 * the mean queue depth to 3, the utilisation to 4. The predictor is fed them so, live as in a
 * replay of the trace.
 */
export function recordedFigures(figures: DeviceFigures): DeviceFigures {
  return {
    ...figures,
    readIops: rounded(figures.readIops, 3),
    writeIops: rounded(figures.writeIops, 3),
    flushIops: roundedOrNull(figures.flushIops, 3),
    readLatencyMs: roundedOrNull(figures.readLatencyMs, 3),
    writeLatencyMs: roundedOrNull(figures.writeLatencyMs, 3),
    flushLatencyMs: roundedOrNull(figures.flushLatencyMs, 3),
    averageQueueDepth: rounded(figures.averageQueueDepth, 3),
    utilisation: rounded(figures.utilisation, 4),
    limitUse: roundedOrNull(figures.limitUse, 3),
  };
}

/** A disk's place: its name and the device number of its filesystem. */
export interface PlacedDisk {
  name: string;
  device?: string;
}

export interface DeviceCounterSources {
  /** One snapshot of every device's counters. */
  read: () => Map<string, DiskCounters>;
  resolve: (device: string) => Promise<BlockDeviceNode>;
  /** The I/O limits of the cgroup slowdisk runs in and its ancestors, with what their I/O did. */
  readLimits: () => CgroupLevel[];
  /** A monotonic clock, ms. */
  now: () => number;
}

const KERNEL_SOURCES: DeviceCounterSources = {
  read: () => readDiskstats(),
  resolve: (device) => resolveBlockDevices(device),
  readLimits: () => readCgroupIo(),
  now: () => MONOTONIC_CLOCK.now(),
};

/**
 * A loop device's backing file that could not be looked at (a hung filesystem's stat) is
 * looked at again after this long, not every round: each stat that hangs keeps a thread of
 * the pool that the trace and the textfile are written with.
 */
export const INCOMPLETE_RETRY_MS = 60_000;

interface Resolved {
  /** The filesystem's device number it was resolved from. */
  from: string;
  counted: CountedDevice[];
  /** When to resolve it again, on the monotonic clock; 0: at the next round. */
  againAtMs: number | null;
}

/** Whether a walk stopped short where looking again may get further. */
function retryDelayMs(tree: BlockDeviceNode): number | null {
  // An anonymous device (tmpfs, overlay) has no block device, and never will.
  if (tree.name === null) return tree.device.startsWith('0:') ? null : 0;
  const below = [...(tree.wholeDisk ? [tree.wholeDisk] : []), ...tree.members, ...(tree.backing?.filesystem ? [tree.backing.filesystem] : [])];
  let delay: number | null = tree.backing && tree.backing.filesystem === null ? INCOMPLETE_RETRY_MS : null;
  for (const node of below) {
    const own = retryDelayMs(node);
    if (own !== null) delay = delay === null ? own : Math.min(delay, own);
  }
  return delay;
}

export class DeviceCounters {
  private readonly resolved = new Map<string, Resolved>();
  /** The walks under way, by disk. */
  private readonly resolving = new Map<string, Promise<void>>();
  private disks: string[] = [];
  private previous: { atMs: number; devices: Map<string, DiskCounters>; limits: CgroupLevel[] } | null = null;
  private latest: DeviceFigures[] = [];

  constructor(private readonly sources: DeviceCounterSources = KERNEL_SOURCES) {}

  /**
   * The inspected disks as the layout has them now: a disk whose filesystem is new to this
   * is resolved, one due to be looked at again too. Resolves once those walks, and any
   * still under way, are done.
   */
  follow(disks: readonly PlacedDisk[]): Promise<void> {
    this.disks = disks.map(({ name }) => name);
    for (const name of this.resolved.keys()) if (!this.disks.includes(name)) this.resolved.delete(name);
    const now = this.sources.now();
    const walks: Promise<void>[] = [];
    for (const { name, device } of disks) {
      const underWay = this.resolving.get(name);
      if (underWay) walks.push(underWay);
      if (device === undefined || underWay) continue;
      const known = this.resolved.get(name);
      if (known && known.from === device && (known.againAtMs === null || known.againAtMs > now)) continue;
      walks.push(this.resolveDisk(name, device));
    }
    return Promise.all(walks).then(() => undefined);
  }

  /** The kernel names of the devices behind a disk, from its filesystem's down. */
  devicesOf(disk: string): string[] {
    return this.resolved.get(disk)?.counted.map(({ name }) => name) ?? [];
  }

  /** The devices that stalled in the last round, behind a disk. */
  stalledOf(disk: string): string[] {
    return this.latest.filter((figures) => figures.stalled && figures.disks.includes(disk)).map(({ name }) => name);
  }

  /**
   * Reads the counters once and returns each device's figures since the last read; none for
   * a device seen for the first time, or whose counters began again (its disk is resolved
   * again at the next follow). An unreadable /proc/diskstats gives no figures.
   */
  sample(): DeviceFigures[] {
    const atMs = this.sources.now();
    let devices: Map<string, DiskCounters>;
    try {
      devices = this.sources.read();
    } catch {
      this.previous = null;
      return (this.latest = []);
    }
    const previous = this.previous;
    const limits = this.sources.readLimits();
    this.previous = { atMs, devices, limits };
    const use = previous && limits.length > 0 ? limitUse(previous.limits, limits, atMs - previous.atMs) : NO_LIMITS;
    const shown = new Map<string, DeviceFigures>();
    for (const disk of this.disks) {
      const resolved = this.resolved.get(disk);
      for (const counted of resolved?.counted ?? []) {
        const now = devices.get(counted.device);
        const before = previous?.devices.get(counted.device);
        const rates = now && now.name === counted.name && before && deviceRates(before, now, atMs - previous!.atMs);
        if (!rates) {
          // Gone, renamed, or begun again: the tree under this disk may have changed.
          if (previous && (!now || now.name !== counted.name || before)) resolved!.againAtMs = 0;
          continue;
        }
        const already = shown.get(counted.device);
        if (already) already.disks.push(disk);
        else shown.set(counted.device, { ...figuresOf(rates), disks: [disk], role: counted.role, limitUse: use.get(counted.device) ?? null });
      }
    }
    return (this.latest = [...shown.values()]);
  }

  private resolveDisk(name: string, device: string): Promise<void> {
    const walk = this.walk(name, device);
    this.resolving.set(name, walk);
    return walk;
  }

  private async walk(name: string, device: string): Promise<void> {
    try {
      const tree = await this.sources.resolve(device);
      const delay = retryDelayMs(tree);
      this.resolved.set(name, { from: device, counted: devicesToCount(tree), againAtMs: delay === null ? null : this.sources.now() + delay });
    } catch {
      // A device went away in the middle of the walk: looked at again at the next round.
      this.resolved.set(name, { from: device, counted: [], againAtMs: 0 });
    } finally {
      this.resolving.delete(name);
    }
  }
}

const NO_LIMITS: ReadonlyMap<string, number> = new Map();

function figuresOf(rates: DeviceRates): Omit<DeviceFigures, 'disks' | 'role' | 'limitUse'> {
  const { device, name, readIops, writeIops, flushIops, readLatencyMs, writeLatencyMs, flushLatencyMs, inFlight, averageQueueDepth, utilisation, stalled } = rates;
  return { device, name, readIops, writeIops, flushIops, readLatencyMs, writeLatencyMs, flushLatencyMs, inFlight, averageQueueDepth, utilisation, stalled };
}
