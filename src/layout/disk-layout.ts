// Which paths are inspected: paths on one filesystem are inspected once, as TiKV skips its
// KV probe when the KV engine shares the Raft disk's mount. Pure; re-run every round.
import { deviceOf, type MountEntry, type MountTable } from '../mounts/mount-table.js';
import { MEMORY_FS_MAGICS } from '../native/addon.js';
import type { ProbeTarget, Resolution } from '../probe/prober-protocol.js';

export interface MountDescription {
  mountPoint: string;
  fsType: string;
  source: string;
  device: string;
}

export interface DiskPlacement {
  name: string;
  dir: string;
  /** Where `dir` led at start through symlinks, when that is somewhere else. */
  resolvedDir?: string;
  /** false when another path on the same filesystem is inspected instead. */
  inspected: boolean;
  /** For a skipped path: the inspected path that covers its filesystem. */
  sameAs?: string;
  /** The filesystem's device, MAJ:MIN, as statx reports it for the directory. */
  device?: string;
  mount?: MountDescription;
  /** tmpfs and the like accept O_DIRECT but never reach a disk. */
  memoryBacked: boolean;
  /** The filesystem is no longer mounted: the path keeps its place, and is down until it is back. */
  vanished?: true;
}

type Filesystem = Pick<DiskPlacement, 'device' | 'mount' | 'memoryBacked'>;

function isProperAncestor(ancestor: string, path: string): boolean {
  return ancestor !== path && (ancestor === '/' || path.startsWith(`${ancestor}/`));
}

/**
 * Whether the filesystem a path was placed on has vanished from under it: the mount the
 * directory now resolves through is a proper ancestor of the one it was placed on (it was
 * unmounted and the directory fell through to the filesystem below), or that mount is gone
 * and nothing newer is known. A new mount on the directory, a bind mount onto it, or another
 * disk mounted where the old one was, is not a vanish: the layout follows those.
 */
export function hasVanished(placedOn: MountDescription | undefined, now: MountEntry | undefined): boolean {
  if (!placedOn) return false;
  return now === undefined || isProperAncestor(now.mountPoint, placedOn.mountPoint);
}

function filesystemOf(resolution: Resolution, entry: MountEntry | undefined): Filesystem {
  return {
    device: `${resolution.devMajor}:${resolution.devMinor}`,
    mount: entry && { mountPoint: entry.mountPoint, fsType: entry.fsType, source: entry.source, device: deviceOf(entry) },
    memoryBacked: MEMORY_FS_MAGICS.has(resolution.fsMagic),
  };
}

/**
 * `previous` is the layout in use: a path whose filesystem vanished keeps its place there
 * (it is not probed on the filesystem below, and shows as down until it is mounted again).
 */
export function placeDisks(
  targets: readonly ProbeTarget[],
  resolutions: ReadonlyMap<string, Resolution>,
  mounts: MountTable,
  previous: readonly DiskPlacement[] = [],
): DiskPlacement[] {
  const inspectedByDevice = new Map<string, string>();
  const previousByName = new Map(previous.map((placement) => [placement.name, placement]));
  return targets.map(({ name, dir: given, resolvedDir }) => {
    const dir = { dir: given, ...(resolvedDir !== undefined && resolvedDir !== given ? { resolvedDir } : {}) };
    const resolution = resolutions.get(name);
    // A path that cannot be resolved is still inspected, so that it shows as down.
    if (!resolution) return { name, ...dir, inspected: true, memoryBacked: false };
    const before = previousByName.get(name);
    const entry = mounts.byId(resolution.mntId);
    const vanished = before !== undefined && hasVanished(before.mount, entry);
    const { device, mount, memoryBacked } = vanished ? before : filesystemOf(resolution, entry);
    const flag = vanished ? { vanished: true as const } : {};
    const sameAs = device === undefined ? undefined : inspectedByDevice.get(device);
    if (sameAs !== undefined) return { name, ...dir, inspected: false, sameAs, device, mount, memoryBacked, ...flag };
    if (device !== undefined) inspectedByDevice.set(device, name);
    return { name, ...dir, inspected: true, device, mount, memoryBacked, ...flag };
  });
}

/**
 * Whether two layouts differ in which path is inspected on which filesystem. A vanished
 * filesystem changes no place: its path shows as down instead.
 */
export function layoutChanged(before: readonly DiskPlacement[], after: readonly DiskPlacement[]): boolean {
  return before.length !== after.length || before.some((place, index) => !samePlace(place, after[index]!));
}

// Field by field: a round's layout of 2,000 paths, stringified twice, was some 10 ms a round.
function samePlace(a: DiskPlacement, b: DiskPlacement): boolean {
  return (
    a.name === b.name &&
    a.dir === b.dir &&
    a.inspected === b.inspected &&
    a.sameAs === b.sameAs &&
    a.device === b.device &&
    a.memoryBacked === b.memoryBacked &&
    a.mount?.mountPoint === b.mount?.mountPoint &&
    a.mount?.fsType === b.mount?.fsType &&
    a.mount?.source === b.mount?.source &&
    a.mount?.device === b.mount?.device
  );
}
