// The I/O limits of slowdisk's cgroup and what its I/O did against them, from the files of
// both cgroup hierarchies as the kernel writes them: which groups apply, what each limits,
// and the share of a limit used between two readings.
import { describe, expect, it } from 'vitest';
import { limitingGroups, limitUse, parseV1Done, parseV1Limits, parseV2, type CgroupLevel } from '../../src/kernel/cgroup-io.js';

describe('the cgroup I/O limits', () => {
  it("finds v1's blkio group and its ancestors, or v2's, from /proc/self/cgroup", () => {
    expect(limitingGroups('12:pids:/\n7:blkio:/tikv/store-1\n0::/\n')).toEqual({ version: 1, dirs: ['/sys/fs/cgroup/blkio/tikv/store-1', '/sys/fs/cgroup/blkio/tikv', '/sys/fs/cgroup/blkio/'] });
    expect(limitingGroups('7:blkio:/\n')).toEqual({ version: 1, dirs: ['/sys/fs/cgroup/blkio/'] });
    expect(limitingGroups('0::/system.slice/tikv.service\n')).toEqual({ version: 2, dirs: ['/sys/fs/cgroup/system.slice/tikv.service', '/sys/fs/cgroup/system.slice', '/sys/fs/cgroup/'] });
    expect(limitingGroups('')).toBeNull();
  });

  it("reads v1's limits and counts, each device on its own lines", () => {
    const limits = parseV1Limits({ readIops: '', writeIops: '7:3 20\n8:0 500\n', readBps: '7:3 1048576\n', writeBps: '' });
    expect(limits).toEqual(new Map([['7:3', { writeIops: 20, readBps: 1048576 }], ['8:0', { writeIops: 500 }]]));
    const done = parseV1Done('7:3 Read 4\n7:3 Write 120\n7:3 Sync 120\n7:3 Async 4\n7:3 Total 124\nTotal 124\n', '7:3 Read 16384\n7:3 Write 491520\n');
    expect(done).toEqual(new Map([['7:3', { readIops: 4, writeIops: 120, readBps: 16384, writeBps: 491520 }]]));
  });

  it("reads v2's io.max, where 'max' is no limit, and io.stat", () => {
    const level = parseV2('259:0 rbps=max wbps=10485760 riops=max wiops=300\n8:0 rbps=max wbps=max riops=max wiops=max\n', '259:0 rbytes=4096 wbytes=8192 rios=1 wios=2 dbytes=0 dios=0\n');
    expect(level.limits).toEqual(new Map([['259:0', { writeBps: 10485760, writeIops: 300 }]]));
    expect(level.done).toEqual(new Map([['259:0', { readIops: 1, writeIops: 2, readBps: 4096, writeBps: 8192 }]]));
  });

  it('gives the largest share of a limit used between two readings, per device and level', () => {
    const level = (dir: string, writes: number, bytes: number): CgroupLevel => ({
      dir,
      limits: new Map([['7:3', dir === 'own' ? { writeIops: 100 } : { writeBps: 1000 }]]),
      done: new Map([['7:3', { readIops: 0, writeIops: writes, readBps: 0, writeBps: bytes }]]),
    });
    // Over 2 s: 40 writes against 100 a second in its own group (0.2), 1800 bytes against
    // 1000 a second in the parent (0.9): the tighter one tells.
    expect(limitUse([level('own', 10, 0), level('parent', 10, 200)], [level('own', 50, 0), level('parent', 50, 2000)], 2000)).toEqual(new Map([['7:3', 0.9]]));
    // A group new since the last reading says nothing yet.
    expect(limitUse([], [level('own', 50, 0)], 2000)).toEqual(new Map());
  });
});
