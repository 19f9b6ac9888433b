// Which block device a filesystem's MAJ:MIN is: what a replacement ticket names and what
// smartctl is asked about. Read from sysfs, which answers from memory, never from the disk.
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';

export interface BlockDevice {
  /** The device the filesystem is on, e.g. /dev/nvme0n1p1. */
  node: string;
  /** The disk that holds it: itself, or for a partition its parent, e.g. /dev/nvme0n1. */
  wholeDisk: string;
  /** Why the whole disk is no physical device SMART could be read from (a loop, dm, md or zram device). */
  virtualBecause?: string;
}

function devName(sysPath: string): string {
  const name = /^DEVNAME=(.+)$/m.exec(readFileSync(path.join(sysPath, 'uevent'), 'utf8'))?.[1];
  return `/dev/${name ?? path.basename(sysPath)}`;
}

/** null when sysfs knows no block device by that number (btrfs, overlayfs and the like). */
export function blockDeviceOf(majMin: string, sysRoot = '/sys'): BlockDevice | null {
  try {
    const sysPath = realpathSync(path.join(sysRoot, 'dev', 'block', majMin));
    const diskPath = existsSync(path.join(sysPath, 'partition')) ? path.dirname(sysPath) : sysPath;
    const wholeDisk = devName(diskPath);
    // A disk behind a controller has a `device` link; a device the kernel makes up has none.
    const isPhysical = existsSync(path.join(diskPath, 'device'));
    return {
      node: devName(sysPath),
      wholeDisk,
      ...(isPhysical ? {} : { virtualBecause: `${wholeDisk} is a virtual block device, not a physical disk` }),
    };
  } catch {
    // No such device, or it went away while we looked.
    return null;
  }
}
