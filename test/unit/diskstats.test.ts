import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deviceOfFile } from '../../src/kernel/block-devices.js';
import { deviceRates, type DeviceRates } from '../../src/kernel/device-rates.js';
import { parseDiskstats, readDiskstats, type DiskCounters } from '../../src/kernel/diskstats.js';

// Copied from /proc/diskstats of a 6.18 kernel (20 fields: with discards and flushes).
const REAL = [
  '   7       0 loop0 14405 7 124014 3803 49752 9932 13392807 103757 0 30968 116915 69 28 4081030 58 16566 9295',
  ' 254       0 vda 299504 17130 6434100 122456 800829 46615 34301590 296112 0 72052 445640 43765 62 34678512 10551 146394 16519',
  ' 253       0 zram0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0',
].join('\n');

describe('parseDiskstats', () => {
  it('reads every field of a real 20-field line, keyed by MAJ:MIN', () => {
    const devices = parseDiskstats(`${REAL}\n`);
    expect([...devices.keys()]).toEqual(['7:0', '254:0', '253:0']);
    expect(devices.get('254:0')).toEqual({
      device: '254:0',
      name: 'vda',
      reads: { completed: 299504, merged: 17130, sectors: 6434100, ms: 122456 },
      writes: { completed: 800829, merged: 46615, sectors: 34301590, ms: 296112 },
      inFlight: 0,
      ioTicksMs: 72052,
      timeInQueueMs: 445640,
      discards: { completed: 43765, merged: 62, sectors: 34678512, ms: 10551 },
      flushes: { completed: 146394, ms: 16519 },
    } satisfies DiskCounters);
  });

  it('reads a 14-field line (before 4.18) with neither discards nor flushes, and an 18-field one (before 5.5) with discards only', () => {
    const devices = parseDiskstats(['   8       0 sda 10 1 80 5 20 2 160 9 3 30 40', '   8       1 sda1 10 1 80 5 20 2 160 9 3 30 40 7 0 56 2'].join('\n'));
    expect(devices.get('8:0')).toMatchObject({ name: 'sda', inFlight: 3, ioTicksMs: 30, timeInQueueMs: 40, discards: null, flushes: null });
    expect(devices.get('8:1')).toMatchObject({ discards: { completed: 7, merged: 0, sectors: 56, ms: 2 }, flushes: null });
  });

  it('leaves fields a newer kernel may append alone', () => {
    const devices = parseDiskstats('259 0 nvme0n1 1 0 8 1 2 0 16 3 0 4 4 0 0 0 0 5 6 99 98');
    expect(devices.get('259:0')).toMatchObject({ name: 'nvme0n1', flushes: { completed: 5, ms: 6 } });
  });

  it('names the line of a malformed entry', () => {
    expect(() => parseDiskstats(`${REAL}\n   8 0 sda 1 2 3`)).toThrow(/^diskstats line 4: expected 14, 18 or 20 fields, got 6/);
    expect(() => parseDiskstats('8 0 sda 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16')).toThrow(/^diskstats line 1: expected 14, 18 or 20 fields, got 19/);
    expect(() => parseDiskstats('8 0 sda 1 2 3 4 5 6 x 8 9 10 11')).toThrow(/^diskstats line 1: field 10 is not a number: 'x'/);
    expect(() => parseDiskstats('8 a sda 1 2 3 4 5 6 7 8 9 10 11')).toThrow(/^diskstats line 1: field 2 is not a number: 'a'/);
  });
});

describe('readDiskstats', () => {
  it("reads this machine's /proc/diskstats, where the root filesystem's device is, unless it has none (0:N, as in a container)", async () => {
    const root = await deviceOfFile('/');
    const devices = readDiskstats();
    expect(devices.size).toBeGreaterThan(0);
    expect(devices.has(root)).toBe(!root.startsWith('0:'));
  });

  it('reads the file it is given', () => {
    const dir = mkdtempSync(join(tmpdir(), 'slowdisk-diskstats-'));
    try {
      writeFileSync(join(dir, 'diskstats'), REAL);
      expect([...readDiskstats(join(dir, 'diskstats')).keys()]).toEqual(['7:0', '254:0', '253:0']);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });
});

type Changes = Partial<Omit<DiskCounters, 'reads' | 'writes'>> & { reads?: Partial<DiskCounters['reads']>; writes?: Partial<DiskCounters['writes']> };

// A device's counters: a quiet base with what a round changed on top.
function counters(changes: Changes = {}): DiskCounters {
  const { reads, writes, ...rest } = changes;
  return {
    device: '259:1',
    name: 'nvme0n1p1',
    reads: { completed: 1000, merged: 10, sectors: 80_000, ms: 500, ...reads },
    writes: { completed: 2000, merged: 20, sectors: 160_000, ms: 3000, ...writes },
    inFlight: 0,
    ioTicksMs: 10_000,
    timeInQueueMs: 40_000,
    discards: { completed: 5, merged: 0, sectors: 40, ms: 1 },
    flushes: { completed: 300, ms: 600 },
    ...rest,
  };
}

describe('deviceRates', () => {
  const before = counters();

  it('gives IOPS, mean latencies, throughput, utilisation and queue depth over the round', () => {
    const after = counters({
      reads: { completed: 1200, sectors: 80_000 + 200 * 8, ms: 500 + 200 * 0.5 },
      writes: { completed: 2400, sectors: 160_000 + 400 * 16, ms: 3000 + 400 * 2 },
      flushes: { completed: 350, ms: 600 + 50 * 4 },
      inFlight: 3,
      ioTicksMs: 10_000 + 1500,
      timeInQueueMs: 40_000 + 1100,
    });
    expect(deviceRates(before, after, 2000)).toEqual({
      device: '259:1',
      name: 'nvme0n1p1',
      elapsedMs: 2000,
      readIops: 100,
      writeIops: 200,
      flushIops: 25,
      readLatencyMs: 0.5,
      writeLatencyMs: 2,
      flushLatencyMs: 4,
      readBytesPerSecond: (200 * 8 * 512) / 2,
      writeBytesPerSecond: (400 * 16 * 512) / 2,
      inFlight: 3,
      utilisation: 0.75,
      averageQueueDepth: 0.55,
      stalled: false,
    } satisfies DeviceRates);
  });

  it('has no latency for a kind of request that did not complete, and no flush figures on a kernel that does not count flushes', () => {
    const rates = deviceRates(counters({ flushes: null }), counters({ flushes: null, writes: { completed: 2001, ms: 3007 }, ioTicksMs: 10_007 }), 1000)!;
    expect(rates).toMatchObject({ readIops: 0, readLatencyMs: null, writeIops: 1, writeLatencyMs: 7, flushIops: null, flushLatencyMs: null });
  });

  it('counts a device busy for more than the round (io_ticks is kept in jiffies) as busy for the round', () => {
    expect(deviceRates(before, counters({ writes: { completed: 2001 }, ioTicksMs: 10_000 + 1004 }), 1000)!.utilisation).toBe(1);
  });

  it('follows the ms fields and io_ticks across their 32-bit wrap', () => {
    const nearWrap = counters({ writes: { ms: 2 ** 32 - 10 }, ioTicksMs: 2 ** 32 - 100, timeInQueueMs: 2 ** 32 - 10 });
    const wrapped = counters({ writes: { completed: 2010, ms: 40 }, ioTicksMs: 400, timeInQueueMs: 40 });
    expect(deviceRates(nearWrap, wrapped, 1000)).toMatchObject({ writeIops: 10, writeLatencyMs: 5, utilisation: 0.5, averageQueueDepth: 0.05 });
  });

  it('gives nothing, rather than negative or absurd rates, for a round in which the counters began again', () => {
    const recreated = counters({
      reads: { completed: 3, merged: 0, sectors: 24, ms: 1 },
      writes: { completed: 5, merged: 0, sectors: 40, ms: 2 },
      ioTicksMs: 3,
      timeInQueueMs: 3,
      discards: { completed: 0, merged: 0, sectors: 0, ms: 0 },
      flushes: { completed: 1, ms: 0 },
    });
    expect(deviceRates(before, recreated, 1000)).toBeNull();
    // Made again and busier since than it had been: the counts went up, but io_ticks went
    // back by more than a wrap within one round could explain.
    const busierSince = counters({ reads: { completed: 5000 }, writes: { completed: 9000, ms: 10 }, ioTicksMs: 900 });
    expect(deviceRates(before, busierSince, 1000)).toBeNull();
    // Another device at the same number.
    expect(deviceRates(before, counters({ name: 'loop7' }), 1000)).toBeNull();
  });

  it('refuses a round that took no time', () => {
    expect(() => deviceRates(before, before, 0)).toThrow(RangeError);
  });

  describe('the stall flag', () => {
    const stalled = (was: Changes, is: Changes) => deviceRates(counters(was), counters(is), 1000)!.stalled;

    it('is set when requests were in flight at both ends of the round and none completed', () => {
      expect(stalled({ inFlight: 1 }, { inFlight: 1, ioTicksMs: 11_000 })).toBe(true);
      expect(stalled({ inFlight: 4 }, { inFlight: 9, ioTicksMs: 11_000 })).toBe(true);
    });

    it('is set when the device, idle as the round began, had requests in flight for nearly all of it and completed none', () => {
      expect(stalled({ inFlight: 0 }, { inFlight: 1, ioTicksMs: 10_000 + 950 })).toBe(true);
    });

    it('is not set for a request that came in late in the round and may be on its way', () => {
      expect(stalled({ inFlight: 0 }, { inFlight: 1, ioTicksMs: 10_000 + 400 })).toBe(false);
    });

    it('is not set once anything completes, be it a read, a write, a discard or a flush', () => {
      expect(stalled({ inFlight: 1 }, { inFlight: 1, ioTicksMs: 11_000, reads: { completed: 1001 } })).toBe(false);
      expect(stalled({ inFlight: 1 }, { inFlight: 1, ioTicksMs: 11_000, discards: { completed: 6, merged: 0, sectors: 48, ms: 1 } })).toBe(false);
      expect(stalled({ inFlight: 1 }, { inFlight: 1, ioTicksMs: 11_000, flushes: { completed: 301, ms: 900 } })).toBe(false);
    });

    it('is not set for an idle device, nor one whose requests all completed', () => {
      expect(stalled({}, {})).toBe(false);
      expect(stalled({ inFlight: 2 }, { inFlight: 0, ioTicksMs: 10_500, writes: { completed: 2002 } })).toBe(false);
    });
  });
});
