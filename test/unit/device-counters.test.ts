// The devices behind the inspected disks, round by round, on counters and sysfs trees of the
// test's making: which devices a disk shows, what each did, and that one that goes away is
// looked for again and shown again once it is back.
import { describe, expect, it, vi } from 'vitest';
import type { BlockDeviceNode } from '../../src/kernel/block-devices.js';
import { DeviceCounters, INCOMPLETE_RETRY_MS, type DeviceCounterSources } from '../../src/kernel/device-counters.js';
import { parseDiskstats, type DiskCounters } from '../../src/kernel/diskstats.js';
import type { CgroupLevel } from '../../src/kernel/cgroup-io.js';

const node = (device: string, name: string | null, more: Partial<BlockDeviceNode> = {}): BlockDeviceNode => ({ device, name, wholeDisk: null, members: [], ...more });
const nvme = node('259:0', 'nvme0n1');
/** Two loop devices with their backing files on one NVMe drive. */
const TREES: Record<string, BlockDeviceNode> = {
  '7:3': node('7:3', 'loop3', { backing: { file: '/srv/a.img', filesystem: nvme } }),
  '7:4': node('7:4', 'loop4', { backing: { file: '/srv/b.img', filesystem: nvme } }),
};

/** A diskstats line: reads, writes, flushes completed with their ms, in flight, io_ticks. */
interface Line {
  reads?: [number, number];
  writes?: [number, number];
  flushes?: [number, number];
  inFlight?: number;
  ioTicks?: number;
}

function diskstats(devices: Record<string, Line>): Map<string, DiskCounters> {
  const text = Object.entries(devices).map(([id, { reads = [0, 0], writes = [0, 0], flushes = [0, 0], inFlight = 0, ioTicks = 0 }]) => {
    const [major, minor, name] = id.split(':');
    return `${major} ${minor} ${name} ${reads[0]} 0 0 ${reads[1]} ${writes[0]} 0 0 ${writes[1]} ${inFlight} ${ioTicks} 0 0 0 0 0 ${flushes[0]} ${flushes[1]}`;
  });
  return parseDiskstats(text.join('\n'));
}

/** Sources whose counters and clock the test sets; each round is 3 s. */
function fakeKernel() {
  let now = 0;
  let counters = new Map<string, DiskCounters>();
  let limits: CgroupLevel[] = [];
  const resolve = vi.fn(async (device: string) => TREES[device] ?? node(device, null, { reason: `sysfs has no block device ${device}` }));
  const sources: DeviceCounterSources = { read: () => counters, resolve, readLimits: () => limits, now: () => now };
  return {
    sources,
    resolve,
    /** The next round's counters, 3 s on, and the cgroup's limits and counts then. */
    round(devices: Record<string, Line>, cgroup: CgroupLevel[] = []) {
      now += 3000;
      counters = diskstats(devices);
      limits = cgroup;
    },
    advance(ms: number) {
      now += ms;
    },
    fail() {
      sources.read = () => {
        throw new Error('ENOENT: open /proc/diskstats');
      };
    },
  };
}

describe('DeviceCounters', () => {
  it("shows each disk's devices, and each device's figures over the round once, with every disk it serves", async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    kernel.round({ '7:3:loop3': {}, '7:4:loop4': {}, '259:0:nvme0n1': {} });
    await counters.follow([{ name: 'raft', device: '7:3' }, { name: 'kv', device: '7:4' }]);
    expect(counters.devicesOf('raft')).toEqual(['loop3', 'nvme0n1']);
    expect(counters.devicesOf('kv')).toEqual(['loop4', 'nvme0n1']);
    // The first read is the start of the first round: no figures yet.
    expect(counters.sample()).toEqual([]);
    kernel.round({ '7:3:loop3': { writes: [30, 60], flushes: [15, 15], ioTicks: 300 }, '7:4:loop4': { reads: [6, 3] }, '259:0:nvme0n1': { writes: [300, 150], inFlight: 1 } });
    const figures = counters.sample();
    expect(figures.map(({ name, disks, role }) => `${name} ${disks.join(',')} ${role}`)).toEqual(['loop3 raft filesystem', 'nvme0n1 raft,kv backing', 'loop4 kv filesystem']);
    expect(figures[0]).toMatchObject({ device: '7:3', readIops: 0, writeIops: 10, flushIops: 5, readLatencyMs: null, writeLatencyMs: 2, flushLatencyMs: 1, utilisation: 0.1, stalled: false });
    expect(figures[1]).toMatchObject({ writeIops: 100, writeLatencyMs: 0.5, inFlight: 1, stalled: false });
  });

  it("gives a device with an I/O limit in slowdisk's cgroup the share of it used over the round; none to the others", async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    const group = (writes: number): CgroupLevel[] => [{ dir: '/sys/fs/cgroup/blkio/', limits: new Map([['7:3', { writeIops: 20 }]]), done: new Map([['7:3', { readIops: 0, writeIops: writes, readBps: 0, writeBps: 0 }]]) }];
    kernel.round({ '7:3:loop3': {}, '7:4:loop4': {}, '259:0:nvme0n1': {} }, group(100));
    await counters.follow([{ name: 'raft', device: '7:3' }, { name: 'kv', device: '7:4' }]);
    counters.sample();
    // 57 writes in 3 s against a limit of 20 a second: 0.95 of it.
    kernel.round({ '7:3:loop3': { writes: [57, 57] }, '7:4:loop4': {}, '259:0:nvme0n1': {} }, group(157));
    expect(counters.sample().map(({ name, limitUse }) => [name, limitUse])).toEqual([
      ['loop3', 0.95],
      ['nvme0n1', null],
      ['loop4', null],
    ]);
  });

  it('flags a device that completed nothing with requests in flight all round, for each disk behind it', async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    kernel.round({ '7:3:loop3': { writes: [10, 10], inFlight: 1, ioTicks: 100 }, '259:0:nvme0n1': {} });
    await counters.follow([{ name: 'raft', device: '7:3' }]);
    counters.sample();
    kernel.round({ '7:3:loop3': { writes: [10, 10], inFlight: 1, ioTicks: 3100 }, '259:0:nvme0n1': {} });
    expect(counters.sample().map(({ name, stalled }) => `${name} ${stalled}`)).toEqual(['loop3 true', 'nvme0n1 false']);
    expect(counters.stalledOf('raft')).toEqual(['loop3']);
    kernel.round({ '7:3:loop3': { writes: [11, 3010], ioTicks: 3200 }, '259:0:nvme0n1': {} });
    expect(counters.sample()[0]).toMatchObject({ stalled: false, writeLatencyMs: 3000 });
    expect(counters.stalledOf('raft')).toEqual([]);
  });

  it('looks again for a device that went away, and shows it again once it is back, counters begun anew', async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    const disks = [{ name: 'raft', device: '7:3' }];
    kernel.round({ '7:3:loop3': { writes: [10, 10] }, '259:0:nvme0n1': {} });
    await counters.follow(disks);
    counters.sample();
    // Detached: gone from the counters, and from sysfs.
    kernel.round({ '259:0:nvme0n1': {} });
    expect(counters.sample().map(({ name }) => name)).toEqual(['nvme0n1']);
    delete TREES['7:3'];
    try {
      await counters.follow(disks);
      expect(kernel.resolve).toHaveBeenCalledTimes(2);
      expect(counters.devicesOf('raft')).toEqual([]);
      // Still gone: looked for at every round.
      kernel.round({ '259:0:nvme0n1': {} });
      counters.sample();
      await counters.follow(disks);
      expect(kernel.resolve).toHaveBeenCalledTimes(3);
    } finally {
      TREES['7:3'] = node('7:3', 'loop3', { backing: { file: '/srv/a.img', filesystem: nvme } });
    }
    // Attached again under the same number.
    kernel.round({ '7:3:loop3': { writes: [2, 2] }, '259:0:nvme0n1': {} });
    counters.sample();
    await counters.follow(disks);
    expect(counters.devicesOf('raft')).toEqual(['loop3', 'nvme0n1']);
    kernel.round({ '7:3:loop3': { writes: [32, 32] }, '259:0:nvme0n1': {} });
    expect(counters.sample().map(({ name, writeIops }) => `${name} ${writeIops}`)).toEqual(['loop3 10', 'nvme0n1 0']);
    // Found and counted: not looked for again while it stays.
    await counters.follow(disks);
    expect(kernel.resolve).toHaveBeenCalledTimes(4);
  });

  it("follows a disk onto another filesystem, and drops a disk the layout no longer inspects", async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    kernel.round({ '7:3:loop3': {}, '7:4:loop4': {}, '259:0:nvme0n1': {} });
    await counters.follow([{ name: 'raft', device: '7:3' }]);
    counters.sample();
    await counters.follow([{ name: 'raft', device: '7:4' }]);
    expect(counters.devicesOf('raft')).toEqual(['loop4', 'nvme0n1']);
    kernel.round({ '7:3:loop3': {}, '7:4:loop4': {}, '259:0:nvme0n1': {} });
    expect(counters.sample().map(({ name }) => name)).toEqual(['loop4', 'nvme0n1']);
    await counters.follow([]);
    expect(counters.devicesOf('raft')).toEqual([]);
    kernel.round({ '7:3:loop3': {}, '7:4:loop4': {}, '259:0:nvme0n1': {} });
    expect(counters.sample()).toEqual([]);
  });

  it('a second follow while a walk is under way waits for it rather than starting another', async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    let answer: (tree: BlockDeviceNode) => void = () => {};
    kernel.resolve.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    const first = counters.follow([{ name: 'raft', device: '7:3' }]);
    let secondDone = false;
    const second = counters.follow([{ name: 'raft', device: '7:3' }]).then(() => (secondDone = true));
    await Promise.resolve();
    expect(secondDone).toBe(false);
    answer(TREES['7:3']);
    await Promise.all([first, second]);
    expect(kernel.resolve).toHaveBeenCalledTimes(1);
    expect(counters.devicesOf('raft')).toEqual(['loop3', 'nvme0n1']);
  });

  it("looks at a loop device's backing file again a minute later when it could not be looked at, not every round", async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    const hung = node('7:6', 'loop6', { backing: { file: '/mnt/nfs/c.img', filesystem: null, reason: 'the backing file of loop6 could not be looked at: stat timed out' } });
    kernel.resolve.mockImplementation(async () => hung);
    await counters.follow([{ name: 'raft', device: '7:6' }]);
    expect(counters.devicesOf('raft')).toEqual(['loop6']);
    kernel.advance(INCOMPLETE_RETRY_MS - 1);
    await counters.follow([{ name: 'raft', device: '7:6' }]);
    expect(kernel.resolve).toHaveBeenCalledTimes(1);
    kernel.advance(1);
    await counters.follow([{ name: 'raft', device: '7:6' }]);
    expect(kernel.resolve).toHaveBeenCalledTimes(2);
  });

  it('gives no figures while /proc/diskstats cannot be read, and starts again from the next read that works', async () => {
    const kernel = fakeKernel();
    const counters = new DeviceCounters(kernel.sources);
    kernel.round({ '7:3:loop3': {}, '259:0:nvme0n1': {} });
    await counters.follow([{ name: 'raft', device: '7:3' }]);
    counters.sample();
    const read = kernel.sources.read;
    kernel.fail();
    expect(counters.sample()).toEqual([]);
    kernel.sources.read = read;
    kernel.round({ '7:3:loop3': {}, '259:0:nvme0n1': {} });
    expect(counters.sample()).toEqual([]);
    kernel.round({ '7:3:loop3': { reads: [3, 3] }, '259:0:nvme0n1': {} });
    expect(counters.sample().map(({ name, readIops }) => `${name} ${readIops}`)).toEqual(['loop3 1', 'nvme0n1 0']);
  });
});
