// Why a slow disk was slow in a round, told from what its inspections waited for, from what the
// block devices under it did over the round against their own healthy rounds, and from the
// other disks slow with it (docs/causes.md):
//
// - `throttle`: an I/O limit in slowdisk's cgroup on the disk's own device (or the whole disk
//   its partition is on) was used to half of it or more, in the round or the one before, and
//   the device did not serve slowly: the requests were held above the device;
// - `load`: a device under it completed several times its usual requests per second: others'
//   I/O keeps it busy, and a healthy device that is busy is slower per request;
// - `cpu`: most of the round's ticks past the timeout were so only by the probe thread's wait
//   for a CPU (its run delay) during or before their inspections; in a round without any, the
//   thread waited for a CPU for half of its inspections' time: the disk answered, the prober
//   was not running to see it;
// - `shared`: a device under it served its requests slowly at no more than its usual load (or
//   stalled), and another disk slow in the same round goes through a device of its chain: the
//   fault is in what they share (a backing disk, a controller);
// - `device`: the same, with no other slow disk sharing its chain;
// - `unknown`: the devices look as usual, or have no healthy rounds to be compared with yet.
//   A limit not in slowdisk's cgroup (a cloud volume's cap) or a filesystem's journal look so.
//   A disk is never called `device` on less than a slow device.
//
// The cause says what the round looked like; it changes no score, state or verdict.
import type { DeviceFigures } from '../kernel/device-counters.js';

export const SLOW_CAUSES = ['device', 'load', 'cpu', 'throttle', 'shared', 'unknown'] as const;
export type SlowCause = (typeof SLOW_CAUSES)[number];

export interface CauseParams {
  /** In a round with no tick past the timeout, a disk whose probe thread waited for a CPU this share of its inspections' time or more ... */
  cpuShare: number;
  /** ... and this many ms in all (a wait of a few microseconds in a fast round is no starvation). */
  cpuMinMs: number;
  /**
   * A limit on the disk's own device used to this share of it over the round, or the round
   * before, holds its requests (a round of a second holds a few requests of a limit of a few
   * a second: 4 of 5 is as pinned as it gets, and some rounds see 1 or none).
   */
  throttleUse: number;
  /** A device that completes this many times its healthy rounds' requests per second is loaded ... */
  loadFactor: number;
  /** ... when that is also this many more per second (an idle device's 1 to 3 is no load). */
  loadMinIops: number;
  /** A device whose time per request is this many times its healthy rounds' serves slowly ... */
  slowFactor: number;
  /** ... when that is also this many ms more (a 0.1 ms request that takes 0.3 ms is no fault). */
  slowMinMs: number;
  /** ... at no more than this many times its healthy rounds' requests per second (its usual load). */
  usualLoadFactor: number;
  /**
   * A device's usual figures are the medians of its last this-many healthy rounds: a load that
   * sets in before the disk is found slow (a detector doubts after seconds) moves a median
   * only once it has lasted half of them.
   */
  baselineRounds: number;
  /** A device is compared only once it has this many healthy rounds. */
  minHealthyRounds: number;
}

export const DEFAULT_CAUSE_PARAMS: Readonly<CauseParams> = Object.freeze({
  cpuShare: 0.5,
  cpuMinMs: 2,
  throttleUse: 0.5,
  loadFactor: 3,
  loadMinIops: 50,
  slowFactor: 2,
  slowMinMs: 2,
  usualLoadFactor: 1.5,
  baselineRounds: 60,
  minHealthyRounds: 3,
});

/** A device's last healthy rounds, oldest first: its requests per second, and its time per request where any completed. */
interface DeviceBaseline {
  iops: number[];
  latencyMs: number[];
}

function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Keeps the last `size` values. */
function keep(values: number[], value: number, size: number): void {
  values.push(value);
  if (values.length > size) values.shift();
}

const iopsOf = (device: DeviceFigures) => device.readIops + device.writeIops + (device.flushIops ?? 0);

/** The round's time per request over every kind that completed; null when none did. */
function latencyOf(device: DeviceFigures): number | null {
  let requests = 0;
  let ms = 0;
  const add = (iops: number | null, latencyMs: number | null) => {
    if (iops === null || iops <= 0 || latencyMs === null) return;
    requests += iops;
    ms += iops * latencyMs;
  };
  add(device.readIops, device.readLatencyMs);
  add(device.writeIops, device.writeLatencyMs);
  add(device.flushIops, device.flushLatencyMs);
  return requests === 0 ? null : ms / requests;
}

type DeviceFinding = 'throttled' | 'loaded' | 'slow' | 'usual';

/** The devices a process's requests are submitted to, where a limit of its cgroup holds them. */
const LIMITED_ROLES: ReadonlySet<DeviceFigures['role']> = new Set(['filesystem', 'whole-disk']);

/** A disk's inspections that came back in a round. */
export interface RoundInspections {
  /** How many came back. */
  count: number;
  /** What they took in all ... */
  ms: number;
  /** ... and of that, how long the probe thread waited for a CPU (where known). */
  waitMs: number;
  /** Those answered at or past the timeout, or after their tick had ended, whose own time without the wait was past the timeout ... */
  slowOfItself: number;
  /** ... and those that were so only by the probe thread's waits for a CPU, during them or before them. */
  slowForCpu: number;
}

export const emptyRound = (): RoundInspections => ({ count: 0, ms: 0, waitMs: 0, slowOfItself: 0, slowForCpu: 0 });

const NO_INSPECTIONS: ReadonlyMap<string, RoundInspections> = new Map();
const NO_DISKS: ReadonlySet<string> = new Set();

export class SlowCauses {
  private readonly baselines = new Map<string, DeviceBaseline>();
  /** Each device's use of its limit in the last round, where one was set. */
  private lastLimitUses: ReadonlyMap<string, number> = new Map();

  constructor(private readonly params: CauseParams = DEFAULT_CAUSE_PARAMS) {}

  /**
   * The cause of each disk in `slow`, and in `also` (judged as if slow, without counting as
   * slow for another), from its inspections of the round and the round's devices; the devices
   * of the other disks, and only theirs, grow their baselines.
   */
  round(
    devices: readonly DeviceFigures[],
    slow: ReadonlySet<string>,
    inspections: ReadonlyMap<string, RoundInspections> = NO_INSPECTIONS,
    also: ReadonlySet<string> = NO_DISKS,
  ): Map<string, SlowCause> {
    const findings = new Map<string, DeviceFinding>();
    const limitUses = new Map<string, number>();
    for (const device of devices) {
      const baseline = this.baselines.get(device.device);
      // Judged only when some disk needs a cause: most rounds of most runs have none.
      if (slow.size + also.size > 0) findings.set(device.device, this.finding(device, baseline));
      if (!device.disks.some((disk) => slow.has(disk) || also.has(disk))) this.learn(device, baseline);
      if (device.limitUse !== null) limitUses.set(device.device, device.limitUse);
    }
    this.lastLimitUses = limitUses;
    const causes = new Map<string, SlowCause>();
    for (const disk of new Set([...slow, ...also])) causes.set(disk, this.busyDevice(disk, devices, findings) ?? (this.waitedForCpu(inspections.get(disk)) ? 'cpu' : this.causeOf(disk, devices, findings, slow)));
    return causes;
  }

  /**
   * The inspections' own waits decide first: they were measured on them, not inferred from a
   * device. Ticks past the timeout decide by which of them are more: those the waits made so,
   * or those slow without them. A round without any (a detector's doubt) by the share of the
   * inspections' time spent waiting.
   */
  private waitedForCpu(inspections: RoundInspections | undefined): boolean {
    if (!inspections) return false;
    const { slowForCpu, slowOfItself, ms, waitMs } = inspections;
    if (slowForCpu + slowOfItself > 0) return slowForCpu > slowOfItself;
    const { cpuShare, cpuMinMs } = this.params;
    return waitMs >= cpuMinMs && waitMs >= cpuShare * ms;
  }

  /**
   * `throttle` or `load` when a device of the disk's chain is busy: a limit holding slowdisk's
   * own requests, then others' I/O, decide before the inspections' waits: a loaded device is slower per request, and that is no fault; and the others' I/O,
   * with the loop workers and writers behind it, keeps the CPUs busy too, so the probe thread
   * waits for one as well. A starved machine completes fewer requests, never three times its
   * usual.
   */
  private busyDevice(disk: string, devices: readonly DeviceFigures[], findings: ReadonlyMap<string, DeviceFinding>): SlowCause | null {
    let loaded = false;
    for (const device of devices) {
      if (!device.disks.includes(disk)) continue;
      const finding = findings.get(device.device);
      if (finding === 'throttled') return 'throttle';
      if (finding === 'loaded') loaded = true;
    }
    return loaded ? 'load' : null;
  }

  private causeOf(disk: string, devices: readonly DeviceFigures[], findings: ReadonlyMap<string, DeviceFinding>, slow: ReadonlySet<string>): SlowCause {
    let slowDevice = false;
    let sharedWithSlow = false;
    for (const device of devices) {
      if (!device.disks.includes(disk)) continue;
      const finding = findings.get(device.device);
      if (finding === 'slow') slowDevice = true;
      if (device.disks.some((other) => other !== disk && slow.has(other))) sharedWithSlow = true;
    }
    if (!slowDevice) return 'unknown';
    return sharedWithSlow ? 'shared' : 'device';
  }

  private finding(device: DeviceFigures, baseline: DeviceBaseline | undefined): DeviceFinding {
    // A stall is the device's own: requests waited on it and none completed.
    if (device.stalled) return 'slow';
    // A device seen serving slowly is slow, whatever limit is also in use: a throttle holds
    // requests before the queue and leaves the time per request as it was.
    const measured = baseline && baseline.iops.length >= this.params.minHealthyRounds ? this.measured(device, baseline) : 'usual';
    if (measured === 'slow') return 'slow';
    // A limit still set holds as it did the round before: a round in which it let through
    // one request of a few, or none, is a round it held.
    const use = device.limitUse === null ? null : Math.max(device.limitUse, this.lastLimitUses.get(device.device) ?? 0);
    if (use !== null && use >= this.params.throttleUse && LIMITED_ROLES.has(device.role)) return 'throttled';
    return measured;
  }

  /** The device's round against its healthy rounds. */
  private measured(device: DeviceFigures, baseline: DeviceBaseline): DeviceFinding {
    const { loadFactor, loadMinIops, slowFactor, slowMinMs, usualLoadFactor } = this.params;
    const iops = iopsOf(device);
    const usualIops = median(baseline.iops)!;
    if (iops >= loadFactor * usualIops && iops - usualIops >= loadMinIops) return 'loaded';
    const latencyMs = latencyOf(device);
    const usualLatencyMs = median(baseline.latencyMs);
    if (latencyMs === null || usualLatencyMs === null) return 'usual';
    const slower = latencyMs >= slowFactor * usualLatencyMs && latencyMs - usualLatencyMs >= slowMinMs;
    return slower && iops <= usualLoadFactor * Math.max(usualIops, 1) ? 'slow' : 'usual';
  }

  private learn(device: DeviceFigures, baseline: DeviceBaseline | undefined): void {
    if (device.stalled) return;
    if (!baseline) this.baselines.set(device.device, (baseline = { iops: [], latencyMs: [] }));
    const size = this.params.baselineRounds;
    keep(baseline.iops, iopsOf(device), size);
    const latencyMs = latencyOf(device);
    if (latencyMs !== null) keep(baseline.latencyMs, latencyMs, size);
  }
}
