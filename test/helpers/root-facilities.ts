import { accessSync, constants, existsSync } from 'node:fs';
import { basename, delimiter, join } from 'node:path';
import { expect } from 'vitest';

export type RootFacility = 'root' | 'loop' | 'blkio' | 'cpu-quota' | 'fsfreeze' | 'xfs' | 'promtool' | 'prometheus' | 'tmux' | 'unshare' | 'jq' | 'systemd-analyze' | 'man' | 'cross-arm64' | 'qemu-arm64' | 'strace' | 'python3' | 'fuse';

export type FacilityGate = { skip: false } | { skip: true; reason: string };

const blkioWriteIops = '/sys/fs/cgroup/blkio/blkio.throttle.write_iops_device';
const cpuQuota = '/sys/fs/cgroup/cpu/cpu.cfs_quota_us';

function isAccessible(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

function isOnPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => isAccessible(join(dir, command), constants.X_OK));
}

const facilities: Record<RootFacility, { what: string; isPresent: () => boolean }> = {
  root: { what: 'root (euid 0)', isPresent: () => process.geteuid?.() === 0 },
  loop: {
    what: 'loop devices (losetup on PATH, /dev/loop-control)',
    isPresent: () => isOnPath('losetup') && existsSync('/dev/loop-control'),
  },
  blkio: { what: `cgroup v1 blkio throttling (${blkioWriteIops} writable)`, isPresent: () => isAccessible(blkioWriteIops, constants.W_OK) },
  'cpu-quota': { what: `cgroup v1 CPU quotas (${cpuQuota} writable)`, isPresent: () => isAccessible(cpuQuota, constants.W_OK) },
  fsfreeze: { what: 'fsfreeze on PATH', isPresent: () => isOnPath('fsfreeze') },
  xfs: { what: 'mkfs.xfs on PATH (xfsprogs)', isPresent: () => isOnPath('mkfs.xfs') },
  promtool: { what: 'promtool on PATH (apt-get install prometheus)', isPresent: () => isOnPath('promtool') },
  prometheus: { what: 'prometheus on PATH (apt-get install prometheus)', isPresent: () => isOnPath('prometheus') },
  tmux: { what: 'tmux on PATH (a terminal for the live view)', isPresent: () => isOnPath('tmux') },
  unshare: { what: 'unshare on PATH (util-linux)', isPresent: () => isOnPath('unshare') },
  jq: { what: 'jq on PATH (the documented fault-injection script)', isPresent: () => isOnPath('jq') },
  'systemd-analyze': { what: 'systemd-analyze on PATH (apt-get install systemd)', isPresent: () => isOnPath('systemd-analyze') },
  man: { what: 'man on PATH (apt-get install man-db)', isPresent: () => isOnPath('man') },
  'cross-arm64': {
    what: 'the arm64 cross toolchain and readelf on PATH (apt-get install g++-aarch64-linux-gnu binutils)',
    isPresent: () => isOnPath('aarch64-linux-gnu-g++') && isOnPath('readelf'),
  },
  'qemu-arm64': { what: 'qemu-aarch64 on PATH (apt-get install qemu-user-static)', isPresent: () => isOnPath('qemu-aarch64') || isOnPath('qemu-aarch64-static') },
  strace: { what: 'strace on PATH (apt-get install strace)', isPresent: () => isOnPath('strace') },
  // The fault kit's delay layer, built by make-disk --backing-delayed.
  fuse: {
    what: 'FUSE and what the kit builds its delay layer with (/dev/fuse, cc, pkg-config, libfuse3: apt-get install gcc pkg-config libfuse3-dev fuse3)',
    isPresent: () => existsSync('/dev/fuse') && isOnPath('cc') && isOnPath('pkg-config') && existsSync('/usr/include/fuse3/fuse.h'),
  },
  // The system's own, which an unprivileged user can run (root's PATH may name a private one).
  python3: { what: '/usr/bin/python3 (apt-get install python3)', isPresent: () => isAccessible('/usr/bin/python3', constants.X_OK) },
};

/**
 * Checks what a suite that makes real disks needs, for describe.skipIf(gate.skip).
 * A machine without it fails the suite, so that a CI missing a facility cannot
 * pass by testing nothing; SLOWDISK_ALLOW_SKIP=1 turns that into a loud skip
 * for machines known to lack it.
 */
export function requireRootFacilities(needs: RootFacility[]): FacilityGate {
  const missing = needs.filter((need) => !facilities[need].isPresent()).map((need) => facilities[need].what);
  if (missing.length === 0) return { skip: false };
  const suite = basename(expect.getState().testPath ?? 'a test suite');
  const reason = `missing ${missing.join(', ')}`;
  if (process.env.SLOWDISK_ALLOW_SKIP === '1') {
    process.stderr.write(`SKIPPED (SLOWDISK_ALLOW_SKIP=1): ${suite}: ${reason}\n`);
    return { skip: true, reason };
  }
  throw new Error(`${suite} cannot run: ${reason} (set SLOWDISK_ALLOW_SKIP=1 to skip it instead)`);
}
