// The layout rule for mounts that change under a path: a vanished filesystem keeps its path
// in place (shown down, not probed below); a new mount on the path is followed.
import { describe, expect, it } from 'vitest';
import { hasVanished, layoutChanged, placeDisks } from '../../src/layout/disk-layout.js';
import { MountTable, parseMountInfo } from '../../src/mounts/mount-table.js';
import type { Resolution } from '../../src/probe/prober-protocol.js';

const EXT4 = 0xef53;
const ROOT = '27 1 254:0 / / rw - ext4 /dev/vda rw';
const RAFT = '40 27 7:0 / /data/raft rw - ext4 /dev/loop0 rw';
const KV = '41 27 7:1 / /data/kv rw - ext4 /dev/loop1 rw';
const table = (...lines: string[]) => new MountTable(parseMountInfo(lines.join('\n')));
const on = (mntId: number, major: number, minor: number): Resolution => ({ mntId, devMajor: major, devMinor: minor, fsMagic: EXT4 });
const targets = [
  { name: 'raft', dir: '/data/raft' },
  { name: 'kv', dir: '/data/kv' },
];

describe('placeDisks when mounts change', () => {
  const before = placeDisks(targets, new Map([['raft', on(40, 7, 0)], ['kv', on(41, 7, 1)]]), table(ROOT, RAFT, KV));

  it('keeps a path whose filesystem was unmounted on it, flagged vanished, without a layout change', () => {
    // kv now resolves through the root mount, a proper ancestor of /data/kv.
    const after = placeDisks(targets, new Map([['raft', on(40, 7, 0)], ['kv', on(27, 254, 0)]]), table(ROOT, RAFT), before);
    expect(after[1]).toEqual({ ...before[1], vanished: true });
    expect(layoutChanged(before, after)).toBe(false);
  });

  it('keeps it too while the only resolution known is of the mount that is gone', () => {
    const after = placeDisks(targets, new Map([['raft', on(40, 7, 0)], ['kv', on(41, 7, 1)]]), table(ROOT, RAFT), before);
    expect(after[1]!.vanished).toBe(true);
  });

  it('places it as before once its filesystem is mounted again, under a new mount id', () => {
    const vanished = placeDisks(targets, new Map([['raft', on(40, 7, 0)], ['kv', on(27, 254, 0)]]), table(ROOT, RAFT), before);
    const restored = placeDisks(
      targets,
      new Map([['raft', on(40, 7, 0)], ['kv', on(52, 7, 1)]]),
      table(ROOT, RAFT, '52 27 7:1 / /data/kv rw - ext4 /dev/loop1 rw'),
      vanished,
    );
    expect(restored).toEqual(before);
  });

  it("follows a bind mount of raft's filesystem onto kv: kv is skipped", () => {
    const after = placeDisks(
      targets,
      new Map([['raft', on(40, 7, 0)], ['kv', on(60, 7, 0)]]),
      table(ROOT, RAFT, KV, '60 41 7:0 /shared /data/kv rw - ext4 /dev/loop0 rw'),
      before,
    );
    expect(after[1]).toMatchObject({ inspected: false, sameAs: 'raft', device: '7:0' });
    expect(after[1]!.vanished).toBeUndefined();
    expect(layoutChanged(before, after)).toBe(true);
  });

  it('follows another disk mounted where the old one was', () => {
    const after = placeDisks(
      targets,
      new Map([['raft', on(40, 7, 0)], ['kv', on(61, 7, 2)]]),
      table(ROOT, RAFT, '61 27 7:2 / /data/kv rw - xfs /dev/loop2 rw'),
      before,
    );
    expect(after[1]).toMatchObject({ inspected: true, device: '7:2', mount: { source: '/dev/loop2', fsType: 'xfs' } });
  });
});

describe('hasVanished', () => {
  const placedOn = { mountPoint: '/data/kv', fsType: 'ext4', source: '/dev/loop1', device: '7:1' };
  const [root, deeper, same] = parseMountInfo([ROOT, '70 41 0:50 / /data/kv/db rw - tmpfs tmpfs rw', KV].join('\n'));

  it('is true when the path now resolves through a proper ancestor of its mount point, or through nothing known', () => {
    expect(hasVanished(placedOn, root)).toBe(true);
    expect(hasVanished(placedOn, undefined)).toBe(true);
  });

  it('is false for a mount at the same point or below it, and for a path placed on no known mount', () => {
    expect(hasVanished(placedOn, same)).toBe(false);
    expect(hasVanished(placedOn, deeper)).toBe(false);
    expect(hasVanished(undefined, root)).toBe(false);
  });

  it('does not take /data/kv2 for a descendant of /data/kv', () => {
    expect(hasVanished({ ...placedOn, mountPoint: '/data/kv2' }, same)).toBe(false);
  });
});
