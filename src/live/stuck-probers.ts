// The policy for the prober of an earlier run stuck on a disk's filesystem: a disk about to be
// inspected for the first time there is left to it, since its inspection is the one in flight
// since that prober got stuck, and a second prober would only get stuck beside it. The disk
// comes back to this run's prober once that one comes unstuck or dies.
import { MONOTONIC_CLOCK, type Clock } from '../common/monotonic-clock.js';
import { registryProblem, REGISTRY_DIR, stillStuck, stuckProberOn, type StuckProber } from '../prober/prober-registry.js';
import { writeStderrLine } from '../common/visible-text.js';
import type { HungDisk, VerdictPipeline } from '../verdict/verdict-pipeline.js';
import type { DiskRecord } from './live-disks.js';

/** Where stuck probers are found: the registry and their sockets (src/prober/prober-registry.ts). */
export interface StuckProberFinder {
  on(device: string, ownPid: number | undefined): StuckProber | null;
  still(prober: StuckProber): boolean;
}

/** As root, where a prober registers: without the registry a stuck prober is found by its socket instead, and the user is told. */
export function tellIfRegistryUnusable(): void {
  const registry = process.geteuid?.() === 0 ? registryProblem() : null;
  if (registry !== null) writeStderrLine(`the prober registry ${REGISTRY_DIR} cannot be used (${registry}): stuck probers of earlier runs are found by their sockets instead`);
}

const REGISTRY: StuckProberFinder = { on: stuckProberOn, still: stillStuck };

export class StuckProbers {
  constructor(
    private readonly pipeline: VerdictPipeline,
    /** This run's prober: never one to leave a disk to. */
    private readonly ownPid: () => number | undefined,
    private readonly finder: StuckProberFinder = REGISTRY,
    private readonly clock: Clock = MONOTONIC_CLOCK,
    private readonly wallNow: () => number = Date.now,
  ) {}

  /**
   * Leaves the disk to an earlier run's prober stuck on its filesystem, if it is about to be
   * inspected for the first time there; returns it when that makes it hung already.
   */
  leave(disk: DiskRecord): HungDisk | null {
    const device = disk.status.device;
    if (disk.stuckProber || disk.status.state !== 'starting' || device === undefined) return null;
    const stuck = this.finder.on(device, this.ownPid());
    if (!stuck) return null;
    disk.stuckProber = stuck;
    const now = this.clock.now();
    return this.pipeline.elsewhere(disk.status.name, now - Math.max(0, this.wallNow() - stuck.stuckSinceMs), now);
  }

  /**
   * Takes back each disk whose earlier prober came unstuck (or died): inspected again from
   * the next tick; a hang announced stays so until that inspection comes back, which says the
   * disk is back. Returns whether any was.
   */
  release(disks: { forEach(each: (disk: DiskRecord) => void): void }): boolean {
    let released = false;
    // forEach, not for...of: called every tick, unoptimised (watch).
    disks.forEach((disk) => {
      if (!disk.stuckProber || this.finder.still(disk.stuckProber)) return;
      disk.stuckProber = null;
      this.pipeline.abandoned(disk.status.name);
      released = true;
    });
    return released;
  }
}
