// Where each probed path was at the last run with the same --state-dir: its filesystem's
// device, source, type and mount point. A path found on another filesystem than last time (its
// disk not mounted now, so that it probes the root filesystem underneath; another disk mounted
// there) is a finding, WARNING, naming both: a cron check or a restarted service starts with
// no memory of the layout otherwise. The file is the output writer's to read and replace.
import type { DiskPlacement, MountDescription } from './disk-layout.js';

/** The file in the state directory: one per store, so that several services share a directory. */
export function filesystemsStateName(store?: string): string {
  return store === undefined ? 'filesystems.state' : `filesystems-${store}.state`;
}

const FORMAT = 'slowdisk-filesystems';
const VERSION = 1;

export interface FilesystemIdentity {
  /** MAJ:MIN, as statx reports it for the directory. */
  device: string;
  source: string;
  fsType: string;
  mountPoint: string;
}

/** A path whose filesystem is not the one it was on at the last run. */
export interface FilesystemChange {
  disk: string;
  dir: string;
  was: FilesystemIdentity;
  now: FilesystemIdentity;
}

/** The identity of the filesystem a path is placed on; null while it has none (vanished, not resolved). */
export function identityOf(placement: Pick<DiskPlacement, 'device' | 'vanished'> & { mount?: MountDescription }): FilesystemIdentity | null {
  if (placement.vanished || placement.device === undefined || placement.mount === undefined) return null;
  return { device: placement.device, source: placement.mount.source, fsType: placement.mount.fsType, mountPoint: placement.mount.mountPoint };
}

/** "/dev/loop3 (7:3) ext4 on /mnt/kv": how a change names each side. */
export function describeFilesystem(identity: FilesystemIdentity): string {
  return `${identity.source || '?'} (${identity.device}) ${identity.fsType} on ${identity.mountPoint}`;
}

function sameFilesystem(a: FilesystemIdentity, b: FilesystemIdentity): boolean {
  return a.device === b.device && a.source === b.source && a.fsType === b.fsType && a.mountPoint === b.mountPoint;
}

const isText = (value: unknown): value is string => typeof value === 'string';

/** The paths remembered in the file's text (null: no file), by directory; throws an Error saying what is wrong with it. */
export function decodeRemembered(text: string | null): Map<string, FilesystemIdentity> {
  const remembered = new Map<string, FilesystemIdentity>();
  if (text === null) return remembered;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`unparsable: ${(error as Error).message}`);
  }
  const file = parsed as { format?: unknown; version?: unknown; paths?: unknown };
  if (typeof file !== 'object' || file === null || file.format !== FORMAT) throw new Error('not a slowdisk filesystems file');
  if (file.version !== VERSION) throw new Error(`version ${String(file.version)}, this slowdisk reads version ${VERSION}`);
  if (!Array.isArray(file.paths)) throw new Error('no paths');
  for (const entry of file.paths as Record<string, unknown>[]) {
    const { dir, device, source, fsType, mountPoint } = entry ?? {};
    if (!isText(dir) || !isText(device) || !isText(source) || !isText(fsType) || !isText(mountPoint)) throw new Error('a path without its filesystem');
    remembered.set(dir, { device, source, fsType, mountPoint });
  }
  return remembered;
}

export function encodeRemembered(remembered: ReadonlyMap<string, FilesystemIdentity>): string {
  const paths = [...remembered].map(([dir, identity]) => ({ dir, ...identity }));
  return `${JSON.stringify({ format: FORMAT, version: VERSION, paths })}\n`;
}

/** The paths now on another filesystem than the one remembered for them. */
export function changesSince(remembered: ReadonlyMap<string, FilesystemIdentity>, placements: readonly DiskPlacement[]): FilesystemChange[] {
  const changes: FilesystemChange[] = [];
  for (const placement of placements) {
    const was = remembered.get(placement.dir);
    const now = identityOf(placement);
    if (was !== undefined && now !== null && !sameFilesystem(was, now)) changes.push({ disk: placement.name, dir: placement.dir, was, now });
  }
  return changes;
}

/** What to remember now: the paths placed, each on its filesystem; paths of other runs kept as they were. */
export function remembering(remembered: ReadonlyMap<string, FilesystemIdentity>, placements: readonly DiskPlacement[]): Map<string, FilesystemIdentity> {
  const next = new Map(remembered);
  for (const placement of placements) {
    const identity = identityOf(placement);
    if (identity !== null) next.set(placement.dir, identity);
  }
  return next;
}
