// How a failed inspection reads in every output: the errno name, the syscall and the path
// are kept; the message says what the error means for the disk, and what to do.
import { constants } from 'node:os';
import type { DiskPlacement } from '../layout/disk-layout.js';
import type { SerializedProbeError } from '../probe/prober-protocol.js';
import { NOT_JUDGED_CODE } from '../verdict/down-verdict.js';

/** One line that keeps the errno name, the syscall and the path, and says what to do. */
export function describeError(error: SerializedProbeError, placement?: DiskPlacement): string {
  if (error.code === 'EINVAL' && error.syscall === 'open' && placement?.mount) {
    const { fsType, mountPoint } = placement.mount;
    return `the ${fsType} filesystem at ${mountPoint} refuses O_DIRECT (EINVAL: open ${error.path}); --buffered probes it through the page cache instead`;
  }
  if (error.code === 'ELOOP' && error.syscall === 'open') {
    return `refusing to follow a symbolic link at the probe file's name (ELOOP: open ${error.path})`;
  }
  return error.message;
}

/**
 * The error as the outputs show it, its message described once here so that the event, the
 * round lines and the structured outputs all say the same. On a path whose filesystem
 * vanished, the prober's EOTHERFS (the directory is on the filesystem below now) and ENOENT
 * (the directory was on the vanished one only) are the ENOENT of a disk that is not mounted.
 */
export function shownError(error: SerializedProbeError, placement: DiskPlacement): SerializedProbeError {
  if ((error.code === 'EOTHERFS' || error.code === 'ENOENT') && placement.vanished && placement.mount) {
    const { source, mountPoint } = placement.mount;
    return {
      code: 'ENOENT',
      errno: constants.errno.ENOENT,
      syscall: error.syscall,
      path: error.path,
      message: `ENOENT: ${placement.dir}: its filesystem (${source} at ${mountPoint}) is no longer mounted`,
    };
  }
  return { ...error, message: describeError(error, placement) };
}

/**
 * An EROFS from a read-only bind of a read-write filesystem (src/mounts/read-only-bind.ts):
 * not a disk that cannot be written, but one that cannot be judged from this mount namespace.
 * Its code is slowdisk's own (NOT_JUDGED_CODE), so that nothing counts it as unwritable; the message
 * keeps the errno name, the syscall and the path.
 */
export function readOnlyBindError(error: SerializedProbeError, dir: string, mountPoint: string): SerializedProbeError {
  return {
    ...error,
    code: NOT_JUDGED_CODE,
    message:
      `${dir} is on a read-only bind of ${mountPoint} (the filesystem itself is read-write; ${error.code}: ${error.syscall} ${error.path}): ` +
      "it cannot be probed from here, and its disk is not judged; a systemd unit's ReadWritePaths= must name it",
  };
}
