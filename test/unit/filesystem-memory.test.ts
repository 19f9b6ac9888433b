// Each path's filesystem remembered between runs: a path on another one is a change naming
// both; the file a run leaves is what the next reads; a damaged file says what is wrong.
import { describe, expect, it } from 'vitest';
import { changesSince, decodeRemembered, describeFilesystem, encodeRemembered, remembering } from '../../src/layout/filesystem-memory.js';
import type { DiskPlacement } from '../../src/layout/disk-layout.js';

const placed = (name: string, dir: string, device: string, mountPoint: string, source: string): DiskPlacement => ({
  name,
  dir,
  inspected: true,
  device,
  mount: { mountPoint, fsType: 'ext4', source, device },
  memoryBacked: false,
});

describe('filesystem memory', () => {
  const onData = placed('kv', '/data/kv', '259:3', '/data', '/dev/nvme1n1');
  const onRoot = placed('kv', '/data/kv', '254:1', '/', '/dev/vda1');

  it('a path found on another filesystem than the one remembered is a change naming both', () => {
    const remembered = decodeRemembered(encodeRemembered(remembering(new Map(), [onData])));
    expect(changesSince(remembered, [onData])).toEqual([]);
    const [change] = changesSince(remembered, [onRoot]);
    expect(change).toMatchObject({ disk: 'kv', dir: '/data/kv' });
    expect(describeFilesystem(change!.was)).toBe('/dev/nvme1n1 (259:3) ext4 on /data');
    expect(describeFilesystem(change!.now)).toBe('/dev/vda1 (254:1) ext4 on /');
  });

  it('nothing remembered, a vanished path, or one of another run: no change; other paths are kept', () => {
    expect(changesSince(new Map(), [onRoot])).toEqual([]);
    const remembered = remembering(new Map(), [onData, placed('raft', '/data/raft', '259:3', '/data', '/dev/nvme1n1')]);
    expect(changesSince(remembered, [{ ...onRoot, vanished: true }])).toEqual([]);
    expect([...remembering(remembered, [onRoot]).keys()]).toEqual(['/data/kv', '/data/raft']);
    expect(remembering(remembered, [onRoot]).get('/data/kv')).toMatchObject({ mountPoint: '/' });
  });

  it('a damaged file says what is wrong with it', () => {
    expect(decodeRemembered(null).size).toBe(0);
    expect(() => decodeRemembered('{')).toThrow(/^unparsable/);
    expect(() => decodeRemembered('{"format":"other"}')).toThrow('not a slowdisk filesystems file');
    expect(() => decodeRemembered('{"format":"slowdisk-filesystems","version":9,"paths":[]}')).toThrow('version 9, this slowdisk reads version 1');
    expect(() => decodeRemembered('{"format":"slowdisk-filesystems","version":1,"paths":[{"dir":"/d"}]}')).toThrow('a path without its filesystem');
  });
});
