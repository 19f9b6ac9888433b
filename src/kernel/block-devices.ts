// Which block devices a filesystem's I/O goes through, from the device number statx gives
// for a path: the devices whose /proc/diskstats counters tell how that path's disk is doing.
// A partition's disk, a device-mapper or md device's members and a loop device's backing
// disk are followed down to the disks that hold the data.
//
// sysfs answers from memory. The one call that leaves it is the stat of a loop device's
// backing file, which touches another filesystem than the probed one (the one that holds
// the file), and may be slow or hang with it: it is bounded by a timeout. The tree changes
// only when devices do, so this is meant to run once per layout change, not every round.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';

export interface BlockDeviceNode {
  /** MAJ:MIN. */
  device: string;
  /** The kernel's name, as in /proc/diskstats and /sys/block; null when sysfs has no block device by that number. */
  name: string | null;
  /** For a partition, the disk it is on. */
  wholeDisk: BlockDeviceNode | null;
  /** For a device-mapper, md (or other stacked) device, the devices it is built on. */
  members: BlockDeviceNode[];
  /** For a loop device, the file it is attached to. */
  backing?: LoopBacking;
  /** A device behind a controller (sysfs links it to one): a drive SMART can be asked about. */
  physical?: true;
  /** Why the walk stops here with no block device, or with a loop device's backing unknown. */
  reason?: string;
}

export interface LoopBacking {
  /** As the kernel shows it, in the mount namespace of the reader. */
  file: string;
  /** The device of the filesystem that holds the file, followed the same way; null when unknown (see reason). */
  filesystem: BlockDeviceNode | null;
  reason?: string;
}

/** How a device in the flat list relates to the one above it in the tree. */
export type DeviceRole = 'filesystem' | 'whole-disk' | 'member' | 'backing';

export interface CountedDevice {
  device: string;
  name: string;
  role: DeviceRole;
}

export interface BlockDeviceOptions {
  /** Where sysfs is mounted; tests point it at a tree of their own. */
  sysRoot?: string;
  /** MAJ:MIN of the filesystem that holds a loop device's backing file; by default deviceOfFile(), a stat bounded in time. */
  deviceOfFile?: (file: string) => Promise<string>;
}

/** A stat on a healthy filesystem answers in microseconds; one on a hung NFS server never does. */
const BACKING_STAT_TIMEOUT_MS = 2000;

// glibc's major() and minor() of a 64-bit dev_t, as libuv fills st_dev from statx.
function majMinOf(dev: bigint): string {
  const major = ((dev & 0x00000000000fff00n) >> 8n) | ((dev & 0xfffff00000000000n) >> 32n);
  const minor = (dev & 0x00000000000000ffn) | ((dev & 0x00000ffffff00000n) >> 12n);
  return `${major}:${minor}`;
}

/**
 * MAJ:MIN of the filesystem that holds `file`. Rejects after timeoutMs if stat does not
 * answer; the stat itself cannot be cancelled and keeps one libuv thread until it does.
 */
export async function deviceOfFile(file: string, timeoutMs = BACKING_STAT_TIMEOUT_MS): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`stat ${file} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([stat(file, { bigint: true }).then(({ dev }) => majMinOf(dev)), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

interface Walk {
  sysRoot: string;
  deviceOfFile: (file: string) => Promise<string>;
  /** The devices on the way down to this one: sysfs has no cycles, a hand-made tree might. */
  above: ReadonlySet<string>;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function unknownDevice(device: string, reason: string): BlockDeviceNode {
  return { device, name: null, wholeDisk: null, members: [], reason };
}

function membersOf(sysPath: string): string[] {
  const slaves = path.join(sysPath, 'slaves');
  if (!existsSync(slaves)) return [];
  return readdirSync(slaves)
    .sort()
    .map((entry) => realpathSync(path.join(slaves, entry)));
}

async function loopBacking(backingFile: string, name: string, walk: Walk): Promise<LoopBacking> {
  const file = readFileSync(backingFile, 'utf8').replace(/\n$/, '');
  // The kernel marks an unlinked backing file; the path may name another file by now.
  if (file.endsWith(' (deleted)')) return { file, filesystem: null, reason: `the backing file of ${name} was deleted` };
  let device: string;
  try {
    device = await walk.deviceOfFile(file);
  } catch (error) {
    return { file, filesystem: null, reason: `the backing file of ${name} could not be looked at: ${messageOf(error)}` };
  }
  return { file, filesystem: await resolveDevice(device, walk) };
}

async function nodeAt(sysPath: string, walk: Walk): Promise<BlockDeviceNode> {
  const name = path.basename(sysPath);
  const device = readFileSync(path.join(sysPath, 'dev'), 'utf8').trim();
  if (walk.above.has(device)) {
    return { device, name, wholeDisk: null, members: [], reason: `${name} (${device}) is built on itself` };
  }
  const below: Walk = { ...walk, above: new Set([...walk.above, device]) };
  // Present only while a loop device is attached to a file.
  const backingFile = path.join(sysPath, 'loop', 'backing_file');
  return {
    device,
    name,
    wholeDisk: existsSync(path.join(sysPath, 'partition')) ? await nodeAt(path.dirname(sysPath), below) : null,
    members: await Promise.all(membersOf(sysPath).map((member) => nodeAt(member, below))),
    ...(existsSync(backingFile) ? { backing: await loopBacking(backingFile, name, below) } : {}),
    // A device the kernel makes up (loop, dm, md, zram) has no `device` link.
    ...(existsSync(path.join(sysPath, 'device')) ? { physical: true as const } : {}),
  };
}

async function resolveDevice(device: string, walk: Walk): Promise<BlockDeviceNode> {
  // Major 0 is the kernel's pool of anonymous device numbers, for filesystems on no block device.
  if (device.startsWith('0:')) {
    return unknownDevice(device, `${device} is an anonymous device: no block device of its own (tmpfs, overlay, NFS, a btrfs subvolume)`);
  }
  let sysPath: string;
  try {
    sysPath = realpathSync(path.join(walk.sysRoot, 'dev', 'block', device));
  } catch {
    return unknownDevice(device, `sysfs has no block device ${device}`);
  }
  return nodeAt(sysPath, walk);
}

/**
 * The block device behind a filesystem's device number (MAJ:MIN), with what it is built on.
 * Rejects when a device goes away in the middle of the walk (its sysfs entries go with it):
 * the next layout change resolves it again.
 */
export function resolveBlockDevices(device: string, options: BlockDeviceOptions = {}): Promise<BlockDeviceNode> {
  return resolveDevice(device, {
    sysRoot: options.sysRoot ?? '/sys',
    deviceOfFile: options.deviceOfFile ?? ((file) => deviceOfFile(file)),
    above: new Set(),
  });
}

/** Every block device in the tree, once each, from the filesystem's own device down. */
export function devicesToCount(tree: BlockDeviceNode): CountedDevice[] {
  const found = new Map<string, CountedDevice>();
  const visit = (node: BlockDeviceNode, role: DeviceRole) => {
    if (node.name !== null && !found.has(node.device)) found.set(node.device, { device: node.device, name: node.name, role });
    if (node.wholeDisk) visit(node.wholeDisk, 'whole-disk');
    node.members.forEach((member) => visit(member, 'member'));
    if (node.backing?.filesystem) visit(node.backing.filesystem, 'backing');
  };
  visit(tree, 'filesystem');
  return [...found.values()];
}

/** A device node under /dev: sysfs writes a '/' in a kernel name as '!' (cciss!c0d0 is /dev/cciss/c0d0). */
export function devNodeOf(name: string): string {
  return `/dev/${name.replaceAll('!', '/')}`;
}

/** What a replacement ticket names and what smartctl is asked about. */
export interface DriveOfFilesystem {
  /** The device the filesystem is on, e.g. /dev/nvme0n1p1. */
  node: string;
  /** The disk that holds it: itself, or for a partition its parent, e.g. /dev/nvme0n1. */
  wholeDisk: string;
  /** Why the whole disk is no physical device SMART could be read from (a loop, dm, md or zram device). */
  virtualBecause?: string;
}

/** null when sysfs knows no block device by the filesystem's number (btrfs, overlayfs and the like). */
export function driveOf(tree: BlockDeviceNode): DriveOfFilesystem | null {
  if (tree.name === null) return null;
  const disk = tree.wholeDisk ?? tree;
  const wholeDisk = devNodeOf(disk.name ?? tree.name);
  return {
    node: devNodeOf(tree.name),
    wholeDisk,
    ...(disk.physical ? {} : { virtualBecause: `${wholeDisk} is a virtual block device, not a physical disk` }),
  };
}
