// --mountpoint: where an operator says a path must be. A data directory whose disk is not
// mounted is a plain directory on the filesystem below (the root filesystem, say), where
// every probe succeeds: without this, an unmounted data disk reads as a healthy one.
import type { DiskPlacement } from './disk-layout.js';

/** A path (by name, or every path) that must be on the filesystem mounted at `at`, or on the device `at` (/dev/...). */
export interface MountRequirement {
  name?: string;
  at: string;
}

/** Whether `at` names a device rather than a mount point. */
function isDevice(at: string): boolean {
  return at.startsWith('/dev/');
}

/**
 * The paths not where they must be, each with one line naming what was found: "kv
 * /data/tikv/db is on / (/dev/vda1), not on the mount point /data". `devicePath` resolves a
 * device's name (a /dev/disk/by-uuid/ link) to the device's own.
 */
export function misplacedPaths(
  placements: readonly DiskPlacement[],
  requirements: readonly MountRequirement[],
  devicePath: (path: string) => string = (path) => path,
): string[] {
  const found: string[] = [];
  for (const placement of placements) {
    for (const required of requirements) {
      if (required.name !== undefined && required.name !== placement.name) continue;
      const mount = placement.mount;
      const where = mount ? `${mount.mountPoint} (${mount.source})` : `a filesystem not in the mount table (${placement.device ?? 'device unknown'})`;
      if (isDevice(required.at)) {
        if (!mount || devicePath(mount.source) !== devicePath(required.at)) found.push(`${placement.name} ${placement.dir} is on ${where}, not on the device ${required.at}`);
      } else if (!mount || mount.mountPoint !== required.at || placement.vanished) {
        found.push(`${placement.name} ${placement.dir} is on ${where}, not on the mount point ${required.at}`);
      }
    }
  }
  return found;
}
