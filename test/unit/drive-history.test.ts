// The drives' history as watch and check keep it: intervals between snapshots turned into
// Perseus-shaped series (and refused across a reboot, a replaced drive, restarted counters, a
// long gap); a cron check every 20 minutes reaching the verdict of a long-running watch over
// the same counters; and slices of the real Perseus cluster C, sampled as if live, reaching
// the verdict `slowdisk analyze` reaches on the same files.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DriveRun, DriveStartError } from '../../src/commands/drive-run.js';
import { driveIdentity, readDeviceClass } from '../../src/drives/block-disks.js';
import { deviceClass } from '../../src/drives/device-class.js';
import { driveLine, driveSummaryLine } from '../../src/formats/drive-verdicts.js';
import { DriveMonitor, type DriveJudgement, type DriveSource } from '../../src/drives/drive-monitor.js';
import { alignOpenDay, emptyHistory, judgeHistory, recordSnapshot, type Snapshot } from '../../src/drives/history.js';
import { DEFAULT_DRIVE_PARAMS } from '../../src/drives/drive-params.js';
import { decodeHistory, encodeHistory } from '../../src/drives/state-file.js';
import type { DiskCounters } from '../../src/kernel/diskstats.js';
import { DEFAULT_PEER_PARAMS } from '../../src/drives/peer-params.js';
import { analyzeHost } from '../../src/drives/series-analysis.js';
import { newCounters } from '../../src/drives/series-csv.js';
import { findHosts } from '../../src/drives/series-files.js';
import { cachedUnpack } from '../../dev/perseus/archive.js';
import { readHostDays } from '../../dev/perseus/host-days.js';
import { countersOf, SyntheticHost } from '../helpers/synthetic-diskstats.js';

const PEER = DEFAULT_PEER_PARAMS;
const PARAMS = DEFAULT_DRIVE_PARAMS;
const T0 = Date.parse('2026-01-05T00:00:00Z');
const MIN = 60_000;
const DAY = 86_400_000;

// The cron runs rewrite the history some 300 times: in memory where the machine has it.
const scratch = mkdtempSync(path.join(existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'slowdisk-drives-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// The output deadline (3 s) on fake timers: the saves are real writes, and one that a busy
// machine makes late is not what these tests are about (a late one is, in test/e2e/).
beforeEach(() => void vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] }));
afterEach(() => void vi.useRealTimers());

function snapshot(timeMs: number, devices: Record<string, { id?: string; counters: DiskCounters }>, bootId = 'boot-1'): Snapshot {
  return {
    timeMs,
    bootId,
    devices: Object.fromEntries(Object.entries(devices).map(([name, { id, counters }]) => [name, { id: id ?? `wwid:${name}`, counters }])),
  };
}

/** ios I/Os of `latency` ms and `bytes` bytes, cumulative. */
const at = (name: string, bytes: number, ios: number, ms: number) => ({ counters: countersOf('8:0', name, bytes / 512, ios, ms) });

describe('turning snapshots into series', () => {
  it('shares an interval among the minutes it spans, by time: throughput in bytes/s, latency in ms per I/O', () => {
    const history = emptyHistory();
    recordSnapshot(history, snapshot(T0 + 30_000, { sda: at('sda', 0, 0, 0) }), PEER, PARAMS);
    // 120 s later: 1,200 I/Os of 5 ms, 120 MB.
    const done = recordSnapshot(history, snapshot(T0 + 150_000, { sda: at('sda', 120e6, 1200, 6000) }), PEER, PARAMS);
    expect(done.recorded).toEqual(['sda']);
    const day = alignOpenDay('2026-01-05', history.open['2026-01-05']!, PEER);
    expect(Array.from(day.bucketStart)).toEqual([0, 60, 120].map((s) => T0 / 1000 + s));
    // Minute 0 is covered 30 s of 120, minute 1 fully, minute 2 for 30 s: the rates are the interval's in each.
    for (const b of [0, 1, 2]) {
      expect(day.throughput[0]![b]).toBeCloseTo(1e6, 0);
      expect(day.latency[0]![b]).toBeCloseTo(5, 6);
    }
  });

  it('records nothing across a reboot, a replaced drive, restarted counters, a long gap or a clock set back', () => {
    const history = emptyHistory();
    const first = recordSnapshot(history, snapshot(T0, { sda: at('sda', 1e6, 10, 50), sdb: at('sdb', 1e6, 10, 50) }), PEER, PARAMS);
    expect(first.recorded).toEqual([]);
    const why = (result: ReturnType<typeof recordSnapshot>, device: string) => result.skipped.find((one) => one.device === device)?.why;

    const replaced = recordSnapshot(history, snapshot(T0 + MIN, { sda: { id: 'wwid:new-drive', ...at('sda', 2e6, 20, 100) }, sdb: at('sdb', 0.5e6, 5, 20) }), PEER, PARAMS);
    expect(why(replaced, 'sda')).toMatch(/another drive than at the last sample \(wwid:sda, now wwid:new-drive\)/);
    expect(why(replaced, 'sdb')).toBe('its counters restarted since the last sample');
    expect(replaced.recorded).toEqual([]);

    const rebooted = recordSnapshot(history, snapshot(T0 + 2 * MIN, { sda: { id: 'wwid:new-drive', ...at('sda', 3e6, 30, 150) } }, 'boot-2'), PEER, PARAMS);
    expect(why(rebooted, 'sda')).toBe('the host rebooted since the last sample');

    const gap = recordSnapshot(history, snapshot(T0 + 2 * MIN + PARAMS.maxIntervalMs + 1, { sda: { id: 'wwid:new-drive', ...at('sda', 4e6, 40, 200) } }, 'boot-2'), PEER, PARAMS);
    expect(why(gap, 'sda')).toMatch(/min since the last sample, more than 30/);

    const back = recordSnapshot(history, snapshot(T0, { sda: { id: 'wwid:new-drive', ...at('sda', 5e6, 50, 250) } }, 'boot-2'), PEER, PARAMS);
    expect(why(back, 'sda')).toBe('the clock went back since the last sample');
    expect(history.open).toEqual({});

    const fine = recordSnapshot(history, snapshot(T0 + MIN, { sda: { id: 'wwid:new-drive', ...at('sda', 6e6, 60, 300) } }, 'boot-2'), PEER, PARAMS);
    expect(fine.recorded).toEqual(['sda']);
  });

  it('judges a day once it is over and keeps judged days for the retention only', () => {
    const history = emptyHistory();
    const devices = ['sda', 'sdb', 'sdc', 'sdd'];
    const host = new SyntheticHost({ devices, seed: 7, factor: () => 1 }, T0);
    const source = sourceOf(host);
    const monitor = new DriveMonitor(devices, history, source, () => clock, PEER, { ...PARAMS, retentionDays: 2 });
    let clock = T0;
    for (; clock <= T0 + 3 * DAY + 15 * MIN; clock += 15 * MIN) {
      host.advanceTo(clock);
      monitor.sample();
    }
    expect(history.judged.map((day) => day.day)).toEqual(['2026-01-06', '2026-01-07']);
    expect(Object.keys(history.open)).toEqual(['2026-01-08']);
    expect(monitor.judge().days).toBe(3);
  });

  it('reads a history from before classes: the drives of its judged days go to their classes, with those days\' judgements', () => {
    const devices = ['sda', 'sdb', 'sdc', 'sdd', 'nvme0n1', 'nvme1n1', 'nvme2n1', 'nvme3n1'];
    const host = new SyntheticHost({ devices, seed: 3, factor: (device) => (device.startsWith('nvme') ? 0.1 : 1) * (device === 'sdb' ? 1.6 : 1) }, T0);
    let clock = T0;
    const source = { ...sourceOf(host), deviceClass: (name: string) => (name.startsWith('nvme') ? 'nvme-ssd' : 'sata-hdd') };
    const monitor = new DriveMonitor(devices, emptyHistory(), source, () => clock, PEER, PARAMS);
    for (; clock <= T0 + 5 * DAY + 15 * MIN; clock += 15 * MIN) {
      host.advanceTo(clock);
      monitor.sample();
    }
    const now = judgeHistory(monitor.history, PEER);
    expect(now.groups.map((group) => [group.peerClass, group.drives, group.judged])).toEqual([['nvme-ssd', 4, true], ['sata-hdd', 4, true]]);
    expect(now.drives.filter((drive) => drive.verdict === 'slow').map((drive) => drive.disk)).toEqual(['wwid:sdb']);
    // The same days as an older slowdisk kept them: one judged day per day, no class on it.
    const old = structuredClone(monitor.history);
    const days = [...new Set(old.judged.map((day) => day.day))];
    old.judged = days.map((day) => {
      const parts = old.judged.filter((one) => one.day === day);
      const { peerClass: _dropped, ...rest } = { ...parts[0]!, drives: parts.flatMap((one) => one.drives) };
      return rest as typeof parts[0];
    });
    const reread = judgeHistory(decodeHistory(encodeHistory(old)), PEER);
    const pick = (verdict: typeof now) => verdict.drives.map(({ disk, peerClass, verdict: v, slowDays, days: n }) => ({ disk, peerClass, v, slowDays, n }));
    expect(pick(reread)).toEqual(pick(now));
  });
});

describe('a sample stamped far from the history\'s clock', () => {
  it('records nothing and judges no day; the judged days and the open day are kept, and sampling goes on once the clock is right', () => {
    const devices = ['sda', 'sdb', 'sdc', 'sdd'];
    const host = new SyntheticHost({ devices, seed: 3, factor: () => 1 }, T0);
    const history = emptyHistory();
    let clock = T0;
    const monitor = new DriveMonitor(devices, history, sourceOf(host), () => clock, PEER, PARAMS);
    // A watch over 7 days and 10 hours: 7 days judged, the 8th open.
    for (; clock <= T0 + 7 * DAY + 10 * 60 * MIN; clock += 15 * MIN) {
      host.advanceTo(clock);
      expect(monitor.sample().clockJump).toBeUndefined();
    }
    const judgedBefore = structuredClone(history.judged);
    const openBefore = structuredClone(history.open);
    expect(judgedBefore).toHaveLength(7);
    expect(Object.keys(openBefore)).toEqual(['2026-01-12']);

    // One sample with the clock 400 days ahead (an RTC or NTP step gone wrong).
    const rightMs = clock;
    clock = rightMs + 400 * DAY;
    const jumped = monitor.sample();
    expect(jumped.clockJump).toBe(
      `the clock (${new Date(clock).toISOString()}) is 400.0 days past the drive history's last sample (${new Date(rightMs - 15 * MIN).toISOString()}): this sample is not recorded and judges no day; the next one goes on from it`,
    );
    expect(jumped.recorded).toEqual([]);
    expect(history.judged).toEqual(judgedBefore);
    expect(history.open).toEqual(openBefore);

    // The clock is right again: the day goes on being recorded where it was.
    const recorded: string[][] = [];
    for (clock = rightMs + 15 * MIN; clock <= rightMs + 60 * MIN; clock += 15 * MIN) {
      host.advanceTo(clock);
      const result = monitor.sample();
      expect(result.clockJump).toBeUndefined();
      recorded.push(result.recorded);
    }
    // The first interval is from the sample 400 days ahead: the clock went back.
    expect(recorded).toEqual([[], devices, devices, devices]);
    expect(history.judged).toEqual(judgedBefore);
    const buckets = (open: typeof openBefore) => Object.keys(open['2026-01-12']!['wwid:sda']!).length;
    expect(buckets(history.open)).toBeGreaterThan(buckets(openBefore));
    expect(monitor.judge().days).toBe(8);
  });

  it('is said in one line on stderr', async () => {
    const devices = ['sda', 'sdb', 'sdc', 'sdd'];
    const host = new SyntheticHost({ devices, seed: 3, factor: () => 1 }, T0);
    let clock = T0;
    const warned: string[] = [];
    const run = await DriveRun.start(
      { devices, stateDir: path.join(scratch, 'clock-jump') },
      { json: true, source: sourceOf(host), clock: () => clock, write: () => {}, warn: (line) => warned.push(line) },
    );
    clock = T0 + 400 * DAY;
    run.sample();
    expect(warned).toEqual([expect.stringMatching(/^the clock \(\S+\) is 400\.0 days past the drive history's last sample \(2026-01-05T00:00:00\.000Z\): this sample is not recorded/)]);
    await run.finish();
  });
});

describe('choosing the drives', () => {
  /** A /sys of whole disks, each with what sysfs tells of it. */
  function fakeSys(disks: Record<string, Record<string, string>>): string {
    const root = mkdtempSync(path.join(scratch, 'sys-'));
    for (const [name, files] of Object.entries(disks)) {
      mkdirSync(path.join(root, 'block', name), { recursive: true });
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(path.dirname(path.join(root, 'block', name, file)), { recursive: true });
        writeFileSync(path.join(root, 'block', name, file), text);
      }
    }
    return root;
  }

  it('knows a drive by its WWID, its serial, a loop device by its backing file, else by MAJ:MIN', () => {
    const sys = fakeSys({
      sda: { 'device/wwid': 'naa.5000c500a1b2c3d4\n', 'device/serial': 'ZA1\n' },
      nvme0n1: { wwid: 'eui.0025388b91b2c3d4\n' },
      vdb: { serial: 'disk-7\n' },
      loop3: { 'loop/backing_file': '/srv/disk.img\n' },
      sdb: { 'device/wwid': '\n' },
    });
    expect(driveIdentity('sda', '8:0', sys)).toBe('wwid:naa.5000c500a1b2c3d4');
    expect(driveIdentity('nvme0n1', '259:0', sys)).toBe('wwid:eui.0025388b91b2c3d4');
    expect(driveIdentity('vdb', '252:16', sys)).toBe('serial:disk-7');
    expect(driveIdentity('loop3', '7:3', sys)).toBe('loop:/srv/disk.img');
    expect(driveIdentity('sdb', '8:16', sys)).toBe('dev:8:16');
  });

  it('--all-devices takes the whole disks but loop, ram, zram, dm, md and sr, says which it left out, and picks up a drive plugged in later', async () => {
    const names = ['sda', 'sdb', 'sdc', 'sdd', 'sde'];
    const sys = fakeSys(Object.fromEntries([...names.slice(0, 4), 'loop0', 'loop1', 'ram0', 'zram0', 'dm-0', 'md127', 'sr0'].map((name) => [name, {}])));
    const host = new SyntheticHost({ devices: names, seed: 9, factor: () => 1 }, T0);
    let clock = T0;
    const inSys = () => new Set(readdirSync(path.join(sys, 'block')));
    const source: DriveSource = {
      diskstats: () => new Map([...host.diskstats()].filter(([, counters]) => inSys().has(counters.name))),
      bootId: () => 'b',
      identity: (name) => `wwid:${name}`,
      deviceClass: () => expect.fail('the class is read from the sysfs root given'),
    };
    let printed = '';
    const run = await DriveRun.start({ devices: 'all', stateDir: path.join(scratch, 'all-devices') }, { json: true, source, clock: () => clock, sysRoot: sys, write: (text) => (printed += text) });
    expect(run.devices).toEqual(['sda', 'sdb', 'sdc', 'sdd']);
    mkdirSync(path.join(sys, 'block', 'sde'));
    clock += 15_000;
    host.advanceTo(clock);
    run.sample();
    expect(run.devices).toEqual(names);
    run.report(await run.finish());
    const summary = JSON.parse(printed.trimEnd().split('\n').at(-1)!) as Record<string, unknown>;
    expect(summary).toMatchObject({ type: 'drives', drives: 5, excluded: { loop: ['loop0', 'loop1'], ram: ['ram0'], zram: ['zram0'], dm: ['dm-0'], md: ['md127'], sr: ['sr0'] } });

    const small = fakeSys({ vda: {}, loop0: {} });
    await expect(DriveRun.start({ devices: 'all', stateDir: path.join(scratch, 'small') }, { json: true, source: { ...source, diskstats: () => new Map([['252:0', countersOf('252:0', 'vda', 0, 0, 0)]]) }, sysRoot: small })).rejects.toThrow(
      new DriveStartError('a drive is judged against at least 3 peers of its class: 4 drives of one class are needed, the host has 1 (1 other-unknown)'),
    );
  });
});

function sourceOf(host: SyntheticHost): DriveSource {
  return { diskstats: () => host.diskstats(), bootId: () => 'boot-1', identity: (name) => `wwid:${name}`, deviceClass: () => 'sata-hdd' };
}

const verdictsOf = (judgement: DriveJudgement) =>
  judgement.drives.map((drive) => ({ device: drive.device, verdict: drive.verdict?.verdict, slowDays: drive.verdict?.slowDays, days: drive.verdict?.days, hostWideDays: drive.verdict?.hostWideDays }));

describe('a cron check every 20 minutes and a long-running watch', () => {
  it('reach the same verdict over the same counters: the slow drive slow, a host-wide slow day charged to none', async () => {
    // Four drives, the fewest judged against each other: every cron run reads, judges and
    // twice writes the whole open day of every drive. sdc slow all along; on day 2 sda too, so
    // that half the host is slow together: host-wide, charged to neither.
    const devices = ['sda', 'sdb', 'sdc', 'sdd'];
    const factor = (device: string, day: number) => (device === 'sdc' ? 1.6 : 1) * (day === 2 && device === 'sda' ? 1.6 : 1);
    // A window of three days, two of them slow enough for a verdict (the --window-days and
    // --min-slow-days a user may give): sdc's 2 slow days besides the host-wide one. Both set
    // up at 21:00 on the first, judged on its three hours like any other day; the third still
    // open three hours in, judged as it stands.
    const peer = { ...PEER, windowDays: 3, minSlowDays: 2 };
    const begin = T0 + 21 * 60 * MIN;
    const end = T0 + 2 * DAY + 3 * 60 * MIN + 32_000;

    // watch: one process, a sample every 15 s.
    const watched = new SyntheticHost({ devices, seed: 42, factor }, T0);
    let watchClock = begin;
    const watch = new DriveMonitor(devices, emptyHistory(), sourceOf(watched), () => watchClock, peer, PARAMS);
    for (; watchClock <= end; watchClock += PARAMS.sampleIntervalMs) {
      watched.advanceTo(watchClock);
      watch.sample();
    }
    const watchVerdict = watch.judge();

    // cron: `check --devices ... --duration 30s` every 20 minutes, started 2 s past the minute,
    // each a new run on the state directory, as the CLI runs it.
    const warned: string[] = [];
    const stateDir = path.join(scratch, 'cron');
    const cronHost = new SyntheticHost({ devices, seed: 42, factor }, T0);
    let cronClock = begin;
    let printed = '';
    let cronVerdict: DriveJudgement | null = null;
    for (let start = begin + 2000; start + 30_000 <= end; start += 20 * MIN) {
      const moveTo = (ms: number) => {
        cronClock = ms;
        cronHost.advanceTo(ms);
      };
      moveTo(start);
      printed = '';
      const run = await DriveRun.start({ devices, stateDir }, { json: true, peer, source: sourceOf(cronHost), clock: () => cronClock, write: (text) => (printed += text), warn: (line) => warned.push(line) });
      moveTo(start + 15_000);
      run.sample();
      moveTo(start + 30_000);
      cronVerdict = await run.finish();
      run.report(cronVerdict);
      expect(run.exitCode(cronVerdict)).toBe(cronVerdict.drives.some((drive) => drive.verdict?.verdict === 'slow') ? 1 : 0);
    }

    expect(warned).toEqual([]);
    expect(watchVerdict.days).toBe(3);
    expect(watchVerdict.hostWideDays).toBe(1);
    const expected = devices.map((device) =>
      device === 'sdc'
        ? { device, verdict: 'slow', slowDays: 2, days: 2, hostWideDays: 1 }
        : { device, verdict: 'ok', slowDays: 0, days: expect.any(Number), hostWideDays: expect.any(Number) },
    );
    expect(verdictsOf(watchVerdict)).toEqual(expected);
    expect(verdictsOf(cronVerdict!)).toEqual(verdictsOf(watchVerdict));
    const ratio = (judgement: DriveJudgement) => judgement.drives.find((drive) => drive.device === 'sdc')!.verdict!.ratio;
    expect(ratio(watchVerdict)).toBeGreaterThan(1.4);
    expect(Math.abs(ratio(cronVerdict!) / ratio(watchVerdict) - 1)).toBeLessThan(0.05);

    // What the last check printed: a line per drive and the summary.
    const lines = printed.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(lines.filter((line) => line.type === 'drive').map((line) => [line.device, line.verdict])).toEqual(devices.map((device) => [device, device === 'sdc' ? 'slow' : 'ok']));
    expect(lines.at(-1)).toMatchObject({ type: 'drives', drives: 4, slow: ['sdc'], days: 3, host_wide_days: 1 });
  }, 180_000);
});

describe('real Perseus drives sampled as if live', () => {
  const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const ARCHIVE = path.join(REPO, 'data', 'perseus', 'cluster_C-1min.tar.xz');
  const SLICE = ['host_2', 'host_5'];

  it('reach the verdict analyze reaches on the same files, labelled slow drives included', async () => {
    const unpacked = path.join(cachedUnpack(ARCHIVE, SLICE.map((host) => `cluster_C/${host}`)), 'cluster_C');
    const counters = newCounters();
    // Their first 8 days: a day more than the verdict's window, so that its last window is not
    // its first and the oldest day is judged but outside it.
    const hosts = (await findHosts(unpacked, counters)).filter((host) => SLICE.includes(host.host)).map((host) => ({ ...host, files: host.files.slice(0, 8) }));
    expect(hosts.map((host) => host.host)).toEqual(SLICE);
    const slowSeen: string[] = [];
    for (const host of hosts) {
      const offline = await analyzeHost(host, PEER, counters);
      // The same rows, as the counters a kernel would have kept: every minute's bytes and
      // I/Os added, read once a minute.
      const days = await readHostDays(host, PEER, counters);
      const disks = days[0]!.disks;
      const acc = new Map(disks.map((disk) => [disk, { sectors: 0, ios: 0, ms: 0 }]));
      const IOS_PER_MINUTE = 100;
      let clock = 0;
      const source: DriveSource = {
        diskstats: () => new Map(disks.map((disk, index) => [`8:${index}`, countersOf(`8:${index}`, disk, acc.get(disk)!.sectors, acc.get(disk)!.ios, acc.get(disk)!.ms)])),
        bootId: () => 'boot',
        identity: (name) => `serial:${name}`,
        deviceClass: () => 'sas-hdd',
      };
      const live = new DriveMonitor(disks, emptyHistory(), source, () => clock, PEER, PARAMS);
      for (const day of days) {
        for (let b = 0; b < day.bucketStart.length; b += 1) {
          clock = day.bucketStart[b]! * 1000;
          live.sample();
          day.disks.forEach((disk, d) => {
            const throughput = day.throughput[d]![b]!;
            const latency = day.latency[d]![b]!;
            if (!(throughput >= 0)) return;
            const one = acc.get(disk)!;
            one.sectors += Math.round((throughput * 60) / 512);
            const ios = throughput > 0 ? IOS_PER_MINUTE : 0;
            one.ios += ios;
            one.ms += Math.round(latency * ios);
          });
        }
        clock = day.bucketStart[day.bucketStart.length - 1]! * 1000 + MIN;
        live.sample();
      }
      // Through the file format and back, as the next cron run would read it.
      const stored = decodeHistory(encodeHistory(live.history));
      const liveVerdict = judgeHistory(stored, PEER);
      const pick = (drives: typeof liveVerdict.drives) => drives.map((drive) => ({ disk: drive.disk.replace(/^serial:/, ''), verdict: drive.verdict, slowDays: drive.slowDays, days: drive.days }));
      expect(pick(liveVerdict.drives)).toEqual(pick(offline.verdict.drives));
      for (const drive of liveVerdict.drives) {
        const theirs = offline.verdict.drives.find((one) => `serial:${one.disk}` === drive.disk)!;
        expect(Math.abs(drive.ratio / theirs.ratio - 1)).toBeLessThan(0.02);
        if (drive.verdict === 'slow') slowSeen.push(`${host.host}/${theirs.disk}`);
      }
    }
    // host_2 holds drives the operators labelled fail-slow.
    expect(slowSeen.some((drive) => drive.startsWith('host_2/'))).toBe(true);
  }, 120_000);
});

describe('live drives judged by device class, read from a sysfs root of the test', () => {
  /** A /sys where NVMe drives hang on PCIe, SATA drives behind libata and SAS drives behind an expander (symlinks, as the kernel makes them). */
  function classedSys(disks: Record<string, 'nvme-ssd' | 'sata-hdd' | 'sas-hdd' | 'sata-ssd'>): string {
    const root = mkdtempSync(path.join(scratch, 'sys-classes-'));
    mkdirSync(path.join(root, 'block'));
    Object.entries(disks).forEach(([name, kind], i) => {
      const bus = { 'nvme-ssd': `pci0000:00/0000:00:0${i}.0/nvme/nvme${i}`, 'sata-hdd': `pci0000:00/0000:00:17.0/ata${i + 1}/host${i}/target${i}:0:0/${i}:0:0:0`, 'sata-ssd': `pci0000:00/0000:00:17.0/ata${i + 1}/host${i}/target${i}:0:0/${i}:0:0:0`, 'sas-hdd': `pci0000:00/0000:3b:00.0/host0/port-0:0/expander-0:0/port-0:0:${i}/end_device-0:0:${i}/target0:0:${i}/0:0:${i}:0` }[kind];
      const dir = path.join(root, 'devices', bus, 'block', name);
      mkdirSync(path.join(dir, 'queue'), { recursive: true });
      mkdirSync(path.join(dir, 'device'));
      writeFileSync(path.join(dir, 'queue', 'rotational'), kind.endsWith('hdd') ? '1\n' : '0\n');
      if (kind === 'nvme-ssd') writeFileSync(path.join(dir, 'device', 'transport'), 'pcie\n');
      writeFileSync(path.join(dir, 'device', 'vendor'), kind.startsWith('sata') ? 'ATA     \n' : 'SEAGATE \n');
      symlinkSync(path.relative(path.join(root, 'block'), dir), path.join(root, 'block', name));
    });
    return root;
  }

  /** `days` days of a host sampled every 10 minutes through DriveRun (--all-devices on the sysfs root), then its final report. */
  async function liveRun(sys: string, devices: string[], factor: (device: string, day: number) => number, days: number) {
    const host = new SyntheticHost({ devices, seed: 7, factor }, T0);
    let clock = T0;
    let printed = '';
    const run = await DriveRun.start(
      { devices: 'all', stateDir: mkdtempSync(path.join(scratch, 'classes-')) },
      {
        json: true,
        source: { ...sourceOf(host), deviceClass: () => expect.fail('read from the sysfs root') },
        clock: () => clock,
        sysRoot: sys,
        params: { ...PARAMS, saveIntervalMs: DAY },
        serveMetrics: true,
        write: (text) => (printed += text),
        warn: (line) => expect.fail(line),
      },
    );
    for (clock += 10 * MIN; clock <= T0 + days * DAY + 30 * MIN; clock += 10 * MIN) {
      host.advanceTo(clock);
      run.sample();
    }
    const judgement = await run.finish();
    run.report(judgement);
    const lines = printed.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    return { run, judgement, drives: lines.filter((line) => line.type === 'drive'), summary: lines.at(-1)! };
  }

  const nvme = (n: number) => Array.from({ length: n }, (_, i) => `nvme${i}n1`);
  const sd = (n: number) => Array.from({ length: n }, (_, i) => `sd${String.fromCharCode(97 + i)}`);
  // NVMe drives at a tenth of the HDDs' latency.
  const speed = (device: string) => (device.startsWith('nvme') ? 0.1 : 1);

  it('the class of a drive, from sysfs: NVMe, SATA (libata) and SAS (an expander), spinning or not', () => {
    const sys = classedSys({ nvme0n1: 'nvme-ssd', sda: 'sata-hdd', sdb: 'sas-hdd', sdc: 'sata-ssd' });
    expect(['nvme0n1', 'sda', 'sdb', 'sdc'].map((name) => readDeviceClass(name, sys))).toEqual(['nvme-ssd', 'sata-hdd', 'sas-hdd', 'sata-ssd']);
    expect(deviceClass({ name: 'vdb', devicePath: '/sys/devices/pci0000:00/0000:00:05.0/virtio2/block/vdb', rotational: '1', transport: null, vendor: null })).toBe('virtio-hdd');
    expect(deviceClass({ name: 'nvme1n1', devicePath: null, rotational: '0', transport: 'tcp', vendor: null })).toBe('nvme_tcp-ssd');
    expect(deviceClass({ name: 'sdz', devicePath: null, rotational: null, transport: null, vendor: null })).toBe('other-unknown');
  });

  it('2 NVMe + 10 HDD: the HDDs judged among themselves, the NVMe drives said to be too few to judge, not given a verdict', async () => {
    const devices = [...nvme(2), ...sd(10)];
    const sys = classedSys(Object.fromEntries(devices.map((name) => [name, name.startsWith('nvme') ? 'nvme-ssd' : 'sata-hdd'])));
    const factor = (device: string) => speed(device) * (device === 'nvme0n1' ? 2 : 1) * (device === 'sde' ? 1.6 : 1);
    const { run, judgement, drives, summary } = await liveRun(sys, devices, factor, 5);
    expect(run.exitCode(judgement)).toBe(1);
    expect(drives.filter((line) => line.verdict === 'slow').map((line) => line.device)).toEqual(['sde']);
    for (const name of nvme(2)) {
      expect(drives.find((line) => line.device === name)).toMatchObject({ class: 'nvme-ssd', verdict: null, not_judged: 'too few drives to judge (2 of class nvme-ssd, 4 needed)' });
    }
    expect(drives.find((line) => line.device === 'sde')).toMatchObject({ class: 'sata-hdd', verdict: 'slow', episodes: [{ ongoing: true }] });
    expect(summary).toMatchObject({
      type: 'drives',
      slow: ['sde'],
      groups: [
        { class: 'nvme-ssd', drives: 2, judged: false },
        { class: 'sata-hdd', drives: 10, judged: true },
      ],
    });
    const context = { stateDir: '/state', excluded: {}, peer: PEER };
    expect(driveSummaryLine(judgement, context)).toMatch(
      /^drives: 1 of 10 drives slow \(sde\); 6 days of history in \/state; judged by class: 2 nvme-ssd not judged: too few drives to judge \(2 of class nvme-ssd, 4 needed\), 10 sata-hdd$/,
    );
    const metrics = await run.registry!.metrics();
    expect(metrics).toContain('slowdisk_drive_slow{device="sde",id="wwid:sde",class="sata-hdd"} 1\n');
    expect(metrics).not.toMatch(/slowdisk_drive_slow\{device="nvme0n1"/);
  }, 120_000);

  it('6 NVMe + 6 HDD over 10 days: a slow drive found in each class; one that recovered reads ok, with its episode, and counts for nothing', async () => {
    const devices = [...nvme(6), ...sd(6)];
    const sys = classedSys(Object.fromEntries(devices.map((name) => [name, name.startsWith('nvme') ? 'nvme-ssd' : 'sas-hdd'])));
    // nvme2n1 slow all along; sdc slow on days 0 to 4, fine since (the run ends 30 min into an 11th day:
    // the last 7 days, 01-09 to 01-15, hold sdc's last slow day).
    const factor = (device: string, day: number) => speed(device) * (device === 'nvme2n1' || (device === 'sdc' && day < 5) ? 1.6 : 1);
    const { run, judgement, drives, summary } = await liveRun(sys, devices, factor, 10);
    expect(drives.filter((line) => line.verdict === 'slow').map((line) => line.device)).toEqual(['nvme2n1']);
    expect(summary).toMatchObject({ slow: ['nvme2n1'], recovered: ['sdc'], groups: [{ class: 'nvme-ssd', drives: 6, judged: true }, { class: 'sas-hdd', drives: 6, judged: true }] });
    const sdc = judgement.drives.find((drive) => drive.device === 'sdc')!;
    expect(sdc.verdict!.verdict).toBe('ok');
    expect(sdc.verdict!.episodes).toMatchObject([{ from: '2026-01-05', to: '2026-01-09', days: 5, slowDays: 5, ongoing: false }]);
    expect(driveLine(sdc)).toMatch(/^sdc: ok, was slow from 2026-01-05 to 2026-01-09 \(on 5 of 5 days, 1\.[5-7]\dx its peers\); now (0\.9|1\.0)\dx its peers' latency at \d\.\d\dx their load, slow on 1 of 7 days \(2026-01-09 to 2026-01-15\), confidence 0\.86; class sas-hdd$/);
    expect(driveLine(judgement.drives.find((drive) => drive.device === 'nvme2n1')!)).toMatch(/^nvme2n1: SLOW now, 1\.[5-7]\dx .*; slow since 2026-01-05 \(on 11 of 11 days, 1\.[5-7]\dx its peers\); class nvme-ssd$/);
    expect(run.exitCode(judgement)).toBe(1);
    const metrics = await run.registry!.metrics();
    expect(metrics).toContain('slowdisk_drive_slow{device="sdc",id="wwid:sdc",class="sas-hdd"} 0\n');
    expect(metrics).toContain('slowdisk_drive_slow{device="nvme2n1",id="wwid:nvme2n1",class="nvme-ssd"} 1\n');
  }, 120_000);

  it('one class only: judged as one group; no class with 4 drives: exit UNKNOWN at start, the classes named', async () => {
    const devices = sd(6);
    const { drives, summary } = await liveRun(classedSys(Object.fromEntries(devices.map((name) => [name, 'sata-hdd']))), devices, (device) => (device === 'sdb' ? 1.6 : 1), 5);
    expect(drives.filter((line) => line.verdict === 'slow').map((line) => line.device)).toEqual(['sdb']);
    expect(summary).toMatchObject({ groups: [{ class: 'sata-hdd', drives: 6, judged: true }] });

    const few = [...nvme(2), ...sd(3)];
    const sys = classedSys(Object.fromEntries(few.map((name) => [name, name.startsWith('nvme') ? 'nvme-ssd' : 'sata-hdd'])));
    const host = new SyntheticHost({ devices: few, seed: 1, factor: () => 1 }, T0);
    await expect(DriveRun.start({ devices: 'all', stateDir: path.join(scratch, 'few') }, { json: true, source: sourceOf(host), sysRoot: sys })).rejects.toThrow(
      new DriveStartError('a drive is judged against at least 3 peers of its class: 4 drives of one class are needed, the host has 5 (2 nvme-ssd, 3 sata-hdd)'),
    );
  }, 120_000);
});
