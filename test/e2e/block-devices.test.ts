import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { deviceOfFile, devicesToCount, driveOf, resolveBlockDevices, type BlockDeviceNode } from '../../src/kernel/block-devices.js';
import { readDiskstats } from '../../src/kernel/diskstats.js';
import { MountTable, deviceOf } from '../../src/mounts/mount-table.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

/** A sysfs of its own making, laid out as the kernel lays out block devices. */
class FakeSysfs {
  readonly root = mkdtempSync(join(tmpdir(), 'slowdisk-sysfs-'));

  /** A device at `at` under the root (devices/...), linked from dev/block/MAJ:MIN as in sysfs. */
  device(at: string, device: string): string {
    mkdirSync(join(this.root, at), { recursive: true });
    writeFileSync(join(this.root, at, 'dev'), `${device}\n`);
    mkdirSync(join(this.root, 'dev', 'block'), { recursive: true });
    symlinkSync(relative(join(this.root, 'dev', 'block'), join(this.root, at)), join(this.root, 'dev', 'block', device));
    return at;
  }

  partition(disk: string, name: string, device: string, number: number): string {
    const at = this.device(join(disk, name), device);
    writeFileSync(join(this.root, at, 'partition'), `${number}\n`);
    return at;
  }

  /** A stacked device (dm, md) built on `members`, each linked from its slaves/ directory. */
  stacked(at: string, device: string, members: string[]): string {
    this.device(at, device);
    mkdirSync(join(this.root, at, 'slaves'));
    for (const member of members) symlinkSync(relative(join(this.root, at, 'slaves'), join(this.root, member)), join(this.root, at, 'slaves', basename(member)));
    return at;
  }

  /** Links a device to the controller it sits behind, as sysfs does for a real drive. */
  physical(at: string): void {
    mkdirSync(join(this.root, 'devices', 'controller'), { recursive: true });
    symlinkSync(relative(join(this.root, at), join(this.root, 'devices', 'controller')), join(this.root, at, 'device'));
  }

  loop(number: number, backingFile: string): string {
    const at = this.device(`devices/virtual/block/loop${number}`, `7:${number}`);
    mkdirSync(join(this.root, at, 'loop'));
    writeFileSync(join(this.root, at, 'loop', 'backing_file'), `${backingFile}\n`);
    return at;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}

const disk = (device: string, name: string, more: Partial<BlockDeviceNode> = {}): BlockDeviceNode => ({ device, name, wholeDisk: null, members: [], ...more });

describe('block devices on a fake sysfs', () => {
  let sysfs: FakeSysfs;
  const noStat = () => Promise.reject(new Error('no loop device here: nothing to stat'));
  beforeEach(() => {
    sysfs = new FakeSysfs();
  });
  afterEach(() => sysfs.remove());

  it('a whole disk is itself', async () => {
    sysfs.device('devices/pci0000:00/0000:00:1d.0/nvme/nvme0/nvme0n1', '259:0');
    const tree = await resolveBlockDevices('259:0', { sysRoot: sysfs.root, deviceOfFile: noStat });
    expect(tree).toEqual(disk('259:0', 'nvme0n1'));
    expect(devicesToCount(tree)).toEqual([{ device: '259:0', name: 'nvme0n1', role: 'filesystem' }]);
  });

  it('a partition leads to the disk it is on', async () => {
    const nvme = sysfs.device('devices/pci0000:00/0000:00:1d.0/nvme/nvme0/nvme0n1', '259:0');
    sysfs.partition(nvme, 'nvme0n1p1', '259:1', 1);
    const tree = await resolveBlockDevices('259:1', { sysRoot: sysfs.root, deviceOfFile: noStat });
    expect(tree).toEqual(disk('259:1', 'nvme0n1p1', { wholeDisk: disk('259:0', 'nvme0n1') }));
    expect(devicesToCount(tree)).toEqual([
      { device: '259:1', name: 'nvme0n1p1', role: 'filesystem' },
      { device: '259:0', name: 'nvme0n1', role: 'whole-disk' },
    ]);
  });

  it('a device-mapper device over two disks leads to both, and to the disk of a member that is a partition', async () => {
    const sda = sysfs.device('devices/pci0000:00/ata1/host0/target0:0:0/0:0:0:0/block/sda', '8:0');
    const sdb = sysfs.device('devices/pci0000:00/ata2/host1/target1:0:0/1:0:0:0/block/sdb', '8:16');
    const sdb1 = sysfs.partition(sdb, 'sdb1', '8:17', 1);
    sysfs.stacked('devices/virtual/block/dm-0', '253:0', [sda, sdb1]);
    const tree = await resolveBlockDevices('253:0', { sysRoot: sysfs.root, deviceOfFile: noStat });
    expect(tree).toEqual(disk('253:0', 'dm-0', { members: [disk('8:0', 'sda'), disk('8:17', 'sdb1', { wholeDisk: disk('8:16', 'sdb') })] }));
    expect(devicesToCount(tree)).toEqual([
      { device: '253:0', name: 'dm-0', role: 'filesystem' },
      { device: '8:0', name: 'sda', role: 'member' },
      { device: '8:17', name: 'sdb1', role: 'member' },
      { device: '8:16', name: 'sdb', role: 'whole-disk' },
    ]);
  });

  it('LVM on a partitioned md mirror leads down to the mirrored disks, each device listed once', async () => {
    const sdc = sysfs.device('devices/pci0000:00/ata3/block/sdc', '8:32');
    const sdd = sysfs.device('devices/pci0000:00/ata4/block/sdd', '8:48');
    const md0 = sysfs.stacked('devices/virtual/block/md0', '9:0', [sysfs.partition(sdc, 'sdc1', '8:33', 1), sysfs.partition(sdd, 'sdd1', '8:49', 1)]);
    mkdirSync(join(sysfs.root, md0, 'md'));
    const md0p1 = sysfs.partition(md0, 'md0p1', '259:7', 1);
    // A volume group over the mirror and another partition of one of its disks.
    sysfs.stacked('devices/virtual/block/dm-2', '253:2', [md0p1, sysfs.partition(sdc, 'sdc2', '8:34', 2)]);
    const tree = await resolveBlockDevices('253:2', { sysRoot: sysfs.root, deviceOfFile: noStat });
    const mirror = disk('9:0', 'md0', {
      members: [disk('8:33', 'sdc1', { wholeDisk: disk('8:32', 'sdc') }), disk('8:49', 'sdd1', { wholeDisk: disk('8:48', 'sdd') })],
    });
    expect(tree).toEqual(
      disk('253:2', 'dm-2', { members: [disk('259:7', 'md0p1', { wholeDisk: mirror }), disk('8:34', 'sdc2', { wholeDisk: disk('8:32', 'sdc') })] }),
    );
    expect(devicesToCount(tree).map(({ name, role }) => `${name} ${role}`)).toEqual([
      'dm-2 filesystem',
      'md0p1 member',
      'md0 whole-disk',
      'sdc1 member',
      'sdc whole-disk',
      'sdd1 member',
      'sdd whole-disk',
      'sdc2 member',
    ]);
  });

  it('a loop device leads to the disk of the filesystem that holds its backing file', async () => {
    const nvme = sysfs.device('devices/pci0000:00/nvme/nvme0/nvme0n1', '259:0');
    sysfs.partition(nvme, 'nvme0n1p2', '259:2', 2);
    sysfs.loop(3, '/srv/images/disk 1.img');
    const deviceOfFile = vi.fn(async () => '259:2');
    const tree = await resolveBlockDevices('7:3', { sysRoot: sysfs.root, deviceOfFile });
    expect(deviceOfFile).toHaveBeenCalledExactlyOnceWith('/srv/images/disk 1.img');
    expect(tree).toEqual(
      disk('7:3', 'loop3', {
        backing: { file: '/srv/images/disk 1.img', filesystem: disk('259:2', 'nvme0n1p2', { wholeDisk: disk('259:0', 'nvme0n1') }) },
      }),
    );
    expect(devicesToCount(tree)).toEqual([
      { device: '7:3', name: 'loop3', role: 'filesystem' },
      { device: '259:2', name: 'nvme0n1p2', role: 'backing' },
      { device: '259:0', name: 'nvme0n1', role: 'whole-disk' },
    ]);
  });

  it('a loop device whose backing file is on a tmpfs, deleted, or cannot be looked at, stops there with the reason', async () => {
    sysfs.loop(4, '/dev/shm/disk.img');
    sysfs.loop(5, '/var/tmp/old.img (deleted)');
    sysfs.loop(6, '/mnt/nfs/disk.img');
    const onTmpfs = await resolveBlockDevices('7:4', { sysRoot: sysfs.root, deviceOfFile: async () => '0:27' });
    expect(onTmpfs.backing).toEqual({
      file: '/dev/shm/disk.img',
      filesystem: { device: '0:27', name: null, wholeDisk: null, members: [], reason: expect.stringMatching(/^0:27 is an anonymous device: no block device of its own/) },
    });
    expect(devicesToCount(onTmpfs)).toEqual([{ device: '7:4', name: 'loop4', role: 'filesystem' }]);

    const stat = vi.fn(async () => '259:2');
    const deleted = await resolveBlockDevices('7:5', { sysRoot: sysfs.root, deviceOfFile: stat });
    expect(deleted.backing).toEqual({ file: '/var/tmp/old.img (deleted)', filesystem: null, reason: 'the backing file of loop5 was deleted' });
    // The path may name another file by now: it is not looked at.
    expect(stat).not.toHaveBeenCalled();

    const hung = await resolveBlockDevices('7:6', { sysRoot: sysfs.root, deviceOfFile: noStat });
    expect(hung.backing).toEqual({
      file: '/mnt/nfs/disk.img',
      filesystem: null,
      reason: 'the backing file of loop6 could not be looked at: no loop device here: nothing to stat',
    });
  });

  it('a filesystem on no block device, or on a number sysfs does not know, has none, with the reason', async () => {
    const btrfs = await resolveBlockDevices('0:45', { sysRoot: sysfs.root, deviceOfFile: noStat });
    expect(btrfs).toEqual({ device: '0:45', name: null, wholeDisk: null, members: [], reason: expect.stringContaining('anonymous device') });
    expect(devicesToCount(btrfs)).toEqual([]);
    const gone = await resolveBlockDevices('8:99', { sysRoot: sysfs.root, deviceOfFile: noStat });
    expect(gone).toEqual({ device: '8:99', name: null, wholeDisk: null, members: [], reason: 'sysfs has no block device 8:99' });
  });

  it("names the drive an action hook's report files a ticket for: a partition's disk, and whether SMART can be asked", async () => {
    const nvme = sysfs.device('devices/pci0000:00/nvme/nvme0/nvme0n1', '259:0');
    sysfs.physical(nvme);
    sysfs.partition(nvme, 'nvme0n1p2', '259:2', 2);
    sysfs.loop(3, '/srv/disk.img');
    sysfs.device('devices/virtual/block/cciss!c0d0', '104:0');
    const resolved = (device: string) => resolveBlockDevices(device, { sysRoot: sysfs.root, deviceOfFile: async () => '259:2' });
    expect(driveOf(await resolved('259:2'))).toEqual({ node: '/dev/nvme0n1p2', wholeDisk: '/dev/nvme0n1' });
    expect(driveOf(await resolved('259:0'))).toEqual({ node: '/dev/nvme0n1', wholeDisk: '/dev/nvme0n1' });
    // The loop device is what the filesystem is on, though its backing file is on a real drive.
    expect(driveOf(await resolved('7:3'))).toEqual({
      node: '/dev/loop3',
      wholeDisk: '/dev/loop3',
      virtualBecause: '/dev/loop3 is a virtual block device, not a physical disk',
    });
    expect(driveOf(await resolved('104:0'))).toMatchObject({ node: '/dev/cciss/c0d0' });
    expect(driveOf(await resolved('0:52'))).toBeNull();
  });

  it('a tree built on itself stops where it comes back round', async () => {
    const dm = sysfs.device('devices/virtual/block/dm-9', '253:9');
    mkdirSync(join(sysfs.root, dm, 'slaves'));
    symlinkSync('..', join(sysfs.root, dm, 'slaves', 'dm-9'));
    const tree = await resolveBlockDevices('253:9', { sysRoot: sysfs.root, deviceOfFile: noStat });
    expect(tree).toEqual(disk('253:9', 'dm-9', { members: [disk('253:9', 'dm-9', { reason: 'dm-9 (253:9) is built on itself' })] }));
    expect(devicesToCount(tree)).toEqual([{ device: '253:9', name: 'dm-9', role: 'filesystem' }]);
  });
});

// coreutils' stat decodes the device number on its own: a check on ours.
const statDevice = (file: string) => execFileSync('stat', ['-c', '%Hd:%Ld', file], { encoding: 'utf8' }).trim();

describe("this machine's block devices", () => {
  it("the root filesystem's device is the one /proc/diskstats and mountinfo know by that number", async () => {
    const root = await deviceOfFile('/');
    expect(root).toBe(statDevice('/'));
    expect(root).toBe(deviceOf(MountTable.read().topmostAt('/')!));
    const tree = await resolveBlockDevices(root);
    if (root.startsWith('0:')) {
      // An overlay or btrfs root, as in a container.
      expect(tree.reason).toContain('anonymous device');
      return;
    }
    const diskstats = readDiskstats();
    expect(tree.name).toBe(diskstats.get(root)?.name);
    const counted = devicesToCount(tree);
    expect(counted[0]).toEqual({ device: root, name: tree.name, role: 'filesystem' });
    for (const { device, name } of counted) expect(diskstats.get(device)?.name).toBe(name);
  });

  const gate = requireRootFacilities(['root', 'loop']);
  describe.skipIf(gate.skip)('a real loop device', () => {
    afterAll(removeAllTestDisks);

    it("leads to its backing file, and on to the disk of the filesystem that holds it", async () => {
      const test = await makeTestDisk();
      const tree = await resolveBlockDevices(test.majMin);
      const backingFile = execFileSync('losetup', ['--list', '--noheadings', '--output', 'BACK-FILE', test.device], { encoding: 'utf8' }).trim();
      expect(tree).toMatchObject({ device: test.majMin, name: basename(test.device), wholeDisk: null, members: [], backing: { file: backingFile } });
      expect(tree.backing!.filesystem!.device).toBe(statDevice(backingFile));
      const counted = devicesToCount(tree);
      expect(counted.slice(0, 1)).toEqual([{ device: test.majMin, name: basename(test.device), role: 'filesystem' }]);
      const diskstats = readDiskstats();
      for (const { device, name } of counted) expect(diskstats.get(device)?.name).toBe(name);
    });
  });
});
