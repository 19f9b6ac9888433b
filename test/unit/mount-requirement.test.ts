import { describe, expect, it } from 'vitest';
import { misplacedPaths } from '../../src/layout/mount-requirement.js';
import type { DiskPlacement } from '../../src/layout/disk-layout.js';

const on = (name: string, dir: string, mountPoint: string, source: string, extra: Partial<DiskPlacement> = {}): DiskPlacement => ({
  name,
  dir,
  inspected: true,
  memoryBacked: false,
  device: '8:1',
  mount: { mountPoint, fsType: 'xfs', source, device: '8:1' },
  ...extra,
});

describe('--mountpoint', () => {
  const kv = on('kv', '/data/tikv/db', '/data', '/dev/nvme1n1');
  const raft = on('raft', '/raft/tikv', '/', '/dev/vda1');

  it('a path on the mount point, or on the device, is where it must be', () => {
    expect(misplacedPaths([kv], [{ at: '/data' }])).toEqual([]);
    expect(misplacedPaths([kv], [{ name: 'kv', at: '/dev/disk/by-uuid/1234' }], (path) => (path.startsWith('/dev/disk/') ? '/dev/nvme1n1' : path))).toEqual([]);
  });

  it('names what it found instead: a data disk not mounted is the filesystem below', () => {
    expect(misplacedPaths([kv, raft], [{ at: '/data' }])).toEqual(['raft /raft/tikv is on / (/dev/vda1), not on the mount point /data']);
    expect(misplacedPaths([kv, raft], [{ name: 'kv', at: '/data' }])).toEqual([]);
    expect(misplacedPaths([raft], [{ name: 'raft', at: '/dev/sdb' }])).toEqual(['raft /raft/tikv is on / (/dev/vda1), not on the device /dev/sdb']);
    expect(misplacedPaths([on('kv', '/data/tikv/db', '/data', '/dev/nvme1n1', { vanished: true })], [{ at: '/data' }])).toHaveLength(1);
  });
});
