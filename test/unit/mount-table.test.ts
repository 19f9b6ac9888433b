import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MountTable, deviceOf, parseMountInfo } from '../../src/mounts/mount-table.js';

// Copied from /proc/self/mountinfo on a test machine after making these mounts
// under /tmp/mi.R1sa: tmpfs on directories named with a space, a tab, a
// newline and a backslash; an ext4 loop disk on src with its subdirectory sub
// bind-mounted on bind; two tmpfs stacked on stack, the upper one made shared;
// and a tmpfs with an empty source stacked on the bind mount.
const escapedAndStacked = `\
27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534
42 27 0:39 / /tmp/mi.R1sa/a\\040b rw,relatime - tmpfs my\\040src rw
43 27 0:40 / /tmp/mi.R1sa/t\\011ab rw,relatime - tmpfs t rw
44 27 0:41 / /tmp/mi.R1sa/n\\012l rw,relatime - tmpfs n rw
45 27 0:42 / /tmp/mi.R1sa/back\\134slash rw,relatime - tmpfs x\\134y rw
46 27 7:0 / /tmp/mi.R1sa/src rw,relatime - ext4 /dev/loop0 rw
47 27 7:0 /sub /tmp/mi.R1sa/bind rw,relatime - ext4 /dev/loop0 rw
48 27 0:43 / /tmp/mi.R1sa/stack rw,relatime - tmpfs first rw
49 48 0:44 / /tmp/mi.R1sa/stack rw,relatime shared:1 - tmpfs second rw
50 47 0:45 / /tmp/mi.R1sa/bind rw,relatime - tmpfs  rw
`;

// Modelled on a systemd host, where mounts carry propagation tags.
const withOptionalFields = `\
29 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw,errors=remount-ro
61 29 259:3 / /var/lib/tikv rw,noatime shared:5 master:2 - xfs /dev/nvme0n1p3 rw,attr2,inode64,logbufs=8,logbsize=32k,noquota
25 24 0:23 / /dev/shm rw,nosuid,nodev shared:4 - tmpfs tmpfs rw,inode64
`;

describe('parseMountInfo', () => {
  const entries = parseMountInfo(escapedAndStacked);
  const at = (mountPoint: string) => entries.filter((entry) => entry.mountPoint === mountPoint);

  it('reads every field of a line without optional fields', () => {
    expect(entries[0]).toEqual({
      mountId: 27,
      parentId: 1,
      major: 254,
      minor: 0,
      root: '/',
      mountPoint: '/',
      options: 'rw,relatime',
      fsType: 'ext4',
      source: '/dev/vda',
      superOptions: 'rw,discard,resv_strict,resuid=65534,resgid=65534',
    });
  });

  it('unescapes space, tab, newline and backslash in mount points and sources', () => {
    expect(entries.slice(1, 5).map((entry) => entry.mountPoint)).toEqual([
      '/tmp/mi.R1sa/a b',
      '/tmp/mi.R1sa/t\tab',
      '/tmp/mi.R1sa/n\nl',
      '/tmp/mi.R1sa/back\\slash',
    ]);
    expect(entries[1].source).toBe('my src');
    expect(entries[4].source).toBe('x\\y');
  });

  it('does not read an escaped backslash followed by digits as another escape', () => {
    const [entry] = parseMountInfo('70 27 0:50 /\\134040 /mnt/\\134134 rw - tmpfs tmpfs rw\n');
    expect(entry.root).toBe('/\\040');
    expect(entry.mountPoint).toBe('/mnt/\\134');
  });

  it('tells a bind mount by its root: same device, another directory of it', () => {
    const [disk] = at('/tmp/mi.R1sa/src');
    const [bind] = at('/tmp/mi.R1sa/bind');
    expect(deviceOf(bind)).toBe(deviceOf(disk));
    expect(disk.root).toBe('/');
    expect(bind.root).toBe('/sub');
  });

  it('keeps an empty source as an empty string', () => {
    const [, onBind] = at('/tmp/mi.R1sa/bind');
    expect(onBind.source).toBe('');
    expect(onBind.fsType).toBe('tmpfs');
    expect(onBind.superOptions).toBe('rw');
  });

  it('skips optional fields up to the separator', () => {
    const [root, tikv] = parseMountInfo(withOptionalFields);
    expect(root.fsType).toBe('ext4');
    expect(root.options).toBe('rw,relatime');
    expect(tikv).toMatchObject({
      mountPoint: '/var/lib/tikv',
      options: 'rw,noatime',
      fsType: 'xfs',
      source: '/dev/nvme0n1p3',
      superOptions: 'rw,attr2,inode64,logbufs=8,logbsize=32k,noquota',
    });
    expect(deviceOf(tikv)).toBe('259:3');
  });

  it('throws naming the line number of a malformed line', () => {
    const good = '22 27 0:21 / /proc rw,relatime - proc proc rw';
    const parseSecond = (bad: string) => () => parseMountInfo(`${good}\n${bad}\n`);
    expect(parseSecond('22 27 0:21 / /proc rw,relatime proc proc rw')).toThrow(/line 2\b/);
    expect(parseSecond('22 27 0:21 / /proc rw,relatime - proc proc')).toThrow(/line 2\b/);
    expect(parseSecond('22 27 0:21 / /proc - proc proc rw')).toThrow(/line 2\b/);
    expect(parseSecond('x 27 0:21 / /proc rw,relatime - proc proc rw')).toThrow(/line 2: mount ID/);
    expect(parseSecond('22 27 021 / /proc rw,relatime - proc proc rw')).toThrow(/line 2: device/);
  });

  it('reads nothing from an empty file', () => {
    expect(parseMountInfo('')).toEqual([]);
  });
});

describe('MountTable', () => {
  const table = new MountTable(parseMountInfo(escapedAndStacked));

  it('finds entries by mount ID', () => {
    expect(table.byId(46)?.mountPoint).toBe('/tmp/mi.R1sa/src');
    expect(table.byId(999)).toBeUndefined();
  });

  it('keeps every mount stacked on a mount point and knows the one on top', () => {
    expect(table.entries.filter((entry) => entry.mountPoint === '/tmp/mi.R1sa/stack')).toHaveLength(2);
    expect(table.topmostAt('/tmp/mi.R1sa/stack')?.source).toBe('second');
    expect(table.topmostAt('/tmp/mi.R1sa/bind')?.mountId).toBe(50);
    expect(table.topmostAt('/tmp/mi.R1sa/src')?.mountId).toBe(46);
    expect(table.topmostAt('/tmp/mi.R1sa')).toBeUndefined();
  });

  it('finds the top of a stack by parenthood, not by where it is listed', () => {
    const [under, over] = table.entries.filter((entry) => entry.mountPoint === '/tmp/mi.R1sa/stack');
    expect(new MountTable([over, under]).topmostAt('/tmp/mi.R1sa/stack')).toBe(over);
  });

  it('reads a mountinfo file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slowdisk-mountinfo-'));
    try {
      writeFileSync(join(dir, 'mountinfo'), withOptionalFields);
      expect(MountTable.read(join(dir, 'mountinfo')).entries).toHaveLength(3);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it("reads this machine's mount table and finds the root mount in it", () => {
    expect(MountTable.read().topmostAt('/')?.mountPoint).toBe('/');
  });
});
