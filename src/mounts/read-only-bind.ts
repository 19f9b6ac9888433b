// A read-only bind is not a read-only filesystem. A filesystem that went read-only (ext4's
// errors=remount-ro after I/O errors, `mount -o remount,ro`) has `ro` in its superblock's
// options; a bind made read-only (systemd's ProtectSystem=, `mount -o remount,ro,bind`) has
// it in that one mount's options only, and the disk under it still takes writes through any
// other mount. A write refused there with EROFS says nothing of the disk.
import { MountTable, type MountEntry } from './mount-table.js';

function hasOption(options: string, option: string): boolean {
  return options.split(',').includes(option);
}

/** The mount is read-only while its filesystem is read-write. */
export function isReadOnlyBind(entry: MountEntry): boolean {
  return hasOption(entry.options, 'ro') && hasOption(entry.superOptions, 'rw');
}

/**
 * Whether the mount at mountPoint (the topmost there) is a read-only bind. Read from this
 * process's mountinfo: the prober that made the write is its child, in the same mount
 * namespace (nothing here or in the prober unshares one), so what is read-only here is
 * read-only there.
 */
export function readOnlyBindAt(mountPoint: string, mounts: MountTable = MountTable.read()): boolean {
  const entry = mounts.topmostAt(mountPoint);
  return entry !== undefined && isReadOnlyBind(entry);
}
