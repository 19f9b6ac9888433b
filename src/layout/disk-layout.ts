// Which paths are inspected: paths on one filesystem are inspected once, as TiKV skips its
// KV probe when the KV engine shares the Raft disk's mount. Pure; re-run every round.
import { deviceOf, type MountTable } from '../mounts/mount-table.js';
import { MEMORY_FS_MAGICS } from '../native/addon.js';
import type { ProbeTarget, Resolution } from '../prober/protocol.js';

export interface MountDescription {
  mountPoint: string;
  fsType: string;
  source: string;
  device: string;
}

export interface DiskPlacement {
  name: string;
  dir: string;
  /** false when another path on the same filesystem is inspected instead. */
  inspected: boolean;
  /** For a skipped path: the inspected path that covers its filesystem. */
  sameAs?: string;
  /** The filesystem's device, MAJ:MIN, as statx reports it for the directory. */
  device?: string;
  mount?: MountDescription;
  /** tmpfs and the like accept O_DIRECT but never reach a disk. */
  memoryBacked: boolean;
}

export function placeDisks(
  targets: readonly ProbeTarget[],
  resolutions: ReadonlyMap<string, Resolution>,
  mounts: MountTable,
): DiskPlacement[] {
  const inspectedByDevice = new Map<string, string>();
  return targets.map(({ name, dir }) => {
    const resolution = resolutions.get(name);
    // A path that cannot be resolved is still inspected, so that it shows as down.
    if (!resolution) return { name, dir, inspected: true, memoryBacked: false };
    const device = `${resolution.devMajor}:${resolution.devMinor}`;
    const entry = mounts.byId(resolution.mntId);
    const mount = entry
      ? { mountPoint: entry.mountPoint, fsType: entry.fsType, source: entry.source, device: deviceOf(entry) }
      : undefined;
    const memoryBacked = MEMORY_FS_MAGICS.has(resolution.fsMagic);
    const sameAs = inspectedByDevice.get(device);
    if (sameAs !== undefined) return { name, dir, inspected: false, sameAs, device, mount, memoryBacked };
    inspectedByDevice.set(device, name);
    return { name, dir, inspected: true, device, mount, memoryBacked };
  });
}

/** Whether two layouts differ in anything an operator would see. */
export function layoutChanged(before: readonly DiskPlacement[], after: readonly DiskPlacement[]): boolean {
  return JSON.stringify(before) !== JSON.stringify(after);
}
