// Which drives a host has, and who each one is. --all-devices takes every whole disk in
// /sys/block but the kinds that are not drives of their own; --devices takes the names given,
// whatever their kind. A drive's identity (its WWID or serial) follows the drive itself: a
// name that comes back after a reboot on another drive, or a drive replaced in its slot, is
// told apart, so that one drive's counters or history are never charged to another.
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { naturalCompare } from '../common/natural-compare.js';
import { deviceClass } from './device-class.js';

/** Kinds of /sys/block entries left out of --all-devices, with why. */
export const EXCLUDED_KINDS: readonly { kind: string; pattern: RegExp; why: string }[] = [
  { kind: 'loop', pattern: /^loop\d+$/, why: 'a file, not a drive' },
  { kind: 'ram', pattern: /^ram\d+$/, why: 'memory' },
  { kind: 'zram', pattern: /^zram\d+$/, why: 'compressed memory' },
  { kind: 'dm', pattern: /^dm-\d+$/, why: 'built on other drives' },
  { kind: 'md', pattern: /^md\d+/, why: 'built on other drives' },
  { kind: 'sr', pattern: /^sr\d+$/, why: 'an optical drive' },
];

export interface DiskSelection {
  /** Kernel names, in /sys/block order. */
  devices: string[];
  /** Whole disks left out, by kind: { loop: ['loop0', ...] }. */
  excluded: Record<string, string[]>;
}

/** Every whole disk of the host but the excluded kinds. Partitions are not in /sys/block. */
export function allDisks(sysRoot = '/sys'): DiskSelection {
  const devices: string[] = [];
  const excluded: Record<string, string[]> = {};
  for (const name of readdirSync(path.join(sysRoot, 'block')).sort(naturalCompare)) {
    const kind = EXCLUDED_KINDS.find((one) => one.pattern.test(name));
    if (kind) (excluded[kind.kind] ??= []).push(name);
    else devices.push(name);
  }
  return { devices, excluded };
}

/** `/dev/sda` or `sda`, as the kernel names it in /proc/diskstats. */
export function kernelName(given: string): string {
  return given.startsWith('/dev/') ? given.slice('/dev/'.length) : given;
}

function firstLine(file: string): string | null {
  try {
    const text = readFileSync(file, 'utf8').split('\n')[0]!.trim();
    return text === '' ? null : text;
  } catch {
    return null;
  }
}

/**
 * Who the device is: its WWID or serial number where the kernel knows one, a loop device's
 * backing file, else its major:minor (a drive replaced under the same number is then seen
 * only by its counters going back).
 */
export function driveIdentity(name: string, majorMinor: string, sysRoot = '/sys'): string {
  const dir = path.join(sysRoot, 'block', name);
  for (const [label, file] of [
    ['wwid', path.join(dir, 'wwid')],
    ['wwid', path.join(dir, 'device', 'wwid')],
    ['serial', path.join(dir, 'serial')],
    ['serial', path.join(dir, 'device', 'serial')],
    ['loop', path.join(dir, 'loop', 'backing_file')],
  ] as const) {
    if (!existsSync(file)) continue;
    const value = firstLine(file);
    if (value !== null) return `${label}:${value}`;
  }
  return `dev:${majorMinor}`;
}

/** The device class of a whole disk (./device-class.ts), read from sysfs under `sysRoot`. */
export function readDeviceClass(name: string, sysRoot = '/sys'): string {
  const dir = path.join(sysRoot, 'block', name);
  let devicePath: string | null;
  try {
    devicePath = realpathSync(dir);
  } catch {
    devicePath = null;
  }
  return deviceClass({
    name,
    devicePath,
    rotational: firstLine(path.join(dir, 'queue', 'rotational')),
    transport: firstLine(path.join(dir, 'device', 'transport')),
    vendor: firstLine(path.join(dir, 'device', 'vendor')),
  });
}
