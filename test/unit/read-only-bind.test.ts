import { describe, expect, it } from 'vitest';
import { MountTable, parseMountInfo } from '../../src/mounts/mount-table.js';
import { isReadOnlyBind, readOnlyBindAt } from '../../src/mounts/read-only-bind.js';

// Modelled on /proc/self/mountinfo after `mount --bind src/data bind` and
// `mount -o remount,ro,bind bind` (the per-mount options say ro, the superblock's rw); after
// `mount -o remount,ro src` (both say ro, on every mount of the filesystem); and in a
// systemd service with ProtectSystem=strict, whose root filesystem has errors=remount-ro.
const [roBind, roSuperblock, rwBindOfRoSuperblock, protectSystem, rwRoot] = parseMountInfo(`\
47 27 7:0 /data /tmp/x/bind ro,relatime - ext4 /dev/loop0 rw
46 27 7:0 / /tmp/x/src ro,relatime - ext4 /dev/loop0 ro
48 27 7:0 /data /tmp/x/other rw,relatime - ext4 /dev/loop0 ro
61 29 259:3 / /data ro,nosuid,nodev,noatime shared:5 master:2 - xfs /dev/nvme0n1p3 rw,attr2,inode64,noquota
29 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw,errors=remount-ro
`);

describe('a read-only bind, told from a read-only filesystem', () => {
  it('ro on the mount, rw on the superblock: a read-only bind', () => {
    expect(isReadOnlyBind(roBind!)).toBe(true);
    expect(isReadOnlyBind(protectSystem!)).toBe(true);
  });

  it('ro on the superblock: the filesystem itself is read-only, through any mount of it', () => {
    expect(isReadOnlyBind(roSuperblock!)).toBe(false);
    expect(isReadOnlyBind(rwBindOfRoSuperblock!)).toBe(false);
  });

  it('errors=remount-ro is an option of its own, not ro', () => {
    expect(isReadOnlyBind(rwRoot!)).toBe(false);
    expect(isReadOnlyBind({ ...rwRoot!, options: 'rw,relatime', superOptions: 'ro,errors=remount-ro' })).toBe(false);
    expect(isReadOnlyBind({ ...rwRoot!, options: 'ro,relatime', superOptions: 'rw,errors=remount-ro' })).toBe(true);
  });

  it('asks the topmost mount at a mount point: a read-write mount over a read-only bind is written through', () => {
    const stacked = new MountTable(parseMountInfo(`\
47 27 7:0 /data /tmp/x/bind ro,relatime - ext4 /dev/loop0 rw
50 47 0:45 / /tmp/x/bind rw,relatime - tmpfs tmp rw
`));
    expect(readOnlyBindAt('/tmp/x/bind', stacked)).toBe(false);
    expect(readOnlyBindAt('/tmp/x/bind', new MountTable([roBind!]))).toBe(true);
    expect(readOnlyBindAt('/tmp/x/gone', new MountTable([roBind!]))).toBe(false);
  });
});
