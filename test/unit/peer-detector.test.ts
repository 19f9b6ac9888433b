// The peer (fail-slow) detector: its rules on small synthetic hosts, then on slices of the real
// Perseus cluster C (hosts unpacked from the archive in data/perseus, read in place).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { judgeDay, type HostDay } from '../../src/drives/peer-day.js';
import { DayBuilder, type AlignedDay, type DriveSeries } from '../../src/drives/aligned-series.js';
import { DEFAULT_PEER_PARAMS, peerParams, type PeerParams } from '../../src/drives/peer-params.js';
import { medianInPlace } from '../../src/common/robust-stats.js';
import { median } from '../../src/drives/order-statistics.js';
import { judgeHost, type DriveVerdict } from '../../src/drives/peer-verdict.js';
import { newCounters } from '../../src/drives/series-csv.js';
import { findHosts, type HostDir } from '../../src/drives/series-files.js';
import { daysToDetection } from '../../dev/peer/days-to-detection.js';
import { cachedUnpack } from '../../dev/perseus/archive.js';
import { readHostDays } from '../../dev/perseus/host-days.js';
import { readLabels, type Labels } from '../../dev/perseus/labels.js';
import { Rng } from '../../dev/scenarios/prng.js';
import { alignDay, detectHost } from '../helpers/peer-days.js';

const params = peerParams();

// ---------------------------------------------------------------------------------------------
// Synthetic hosts: 12 drives, a latency that follows the host's load through the day, noise.

interface Scenario {
  drives?: number;
  days?: number;
  minutes?: number;
  seed?: number;
  /** The latency factor of a drive at a minute (1: healthy). */
  slowness?: (drive: number, day: number, minute: number) => number;
  /** The throughput factor of a drive at a minute (1: its share of the host's load). */
  load?: (drive: number, day: number, minute: number) => number;
  /** A drive's latency at a minute, replacing the model (for idle minutes). */
  latencyOverride?: (drive: number, day: number, minute: number) => number | null;
  /** How latency follows a drive's own load: latency ~ load^elasticity. */
  elasticity?: number;
  /** A drive's device class (none: one class). */
  classOf?: (drive: number) => string;
}

const dayName = (day: number) => new Date(Date.UTC(2024, 0, 1 + day)).toISOString().slice(0, 10);

function synthetic(scenario: Scenario = {}): AlignedDay[] {
  const { drives = 12, days = 14, minutes = 180, seed = 1, elasticity = 0.3 } = scenario;
  const rng = new Rng(seed);
  const random = () => rng.next();
  const gauss = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const out: AlignedDay[] = [];
  for (let day = 0; day < days; day += 1) {
    const start = Date.UTC(2024, 0, 1 + day, 13) / 1000;
    const series: DriveSeries[] = [];
    for (let d = 0; d < drives; d += 1) {
      const ts: number[] = [];
      const throughput: number[] = [];
      const latency: number[] = [];
      for (let m = 0; m < minutes; m += 1) {
        const hostLoad = 1 + 0.3 * Math.sin((2 * Math.PI * m) / 90 + day);
        const share = (scenario.load?.(d, day, m) ?? 1) * Math.exp(0.1 * gauss());
        const tp = 50e6 * hostLoad * share;
        const lat = 20 * Math.sqrt(hostLoad) * share ** elasticity * (scenario.slowness?.(d, day, m) ?? 1) * Math.exp(0.08 * gauss());
        ts.push(start + 60 * m);
        throughput.push(tp);
        latency.push(scenario.latencyOverride?.(d, day, m) ?? lat);
      }
      series.push({ disk: `disk${d + 1}`, peerClass: scenario.classOf?.(d), ts, throughput, latency });
    }
    out.push(alignDay(dayName(day), series, params.bucketSeconds));
  }
  return out;
}

function verdicts(days: AlignedDay[], with_: PeerParams = params): Map<string, DriveVerdict> {
  return new Map(detectHost(days, with_).verdict.drives.map((drive) => [drive.disk, drive]));
}

const slowOnes = (result: Map<string, DriveVerdict>) => [...result.values()].filter((drive) => drive.verdict === 'slow').map((drive) => drive.disk);

describe('peer detector rules (synthetic hosts)', () => {
  it('a healthy host has no slow drive, and its drives sit at about 1x their peers', () => {
    const result = verdicts(synthetic());
    expect(slowOnes(result)).toEqual([]);
    for (const drive of result.values()) {
      expect(drive.ratio).toBeGreaterThan(0.93);
      expect(drive.ratio).toBeLessThan(1.07);
      expect(drive.days).toBe(7);
    }
  });

  it('a drive 1.5x its peers on most days is slow, with its evidence', () => {
    const quietDays = new Set([2, 6, 9, 12]);
    const result = verdicts(synthetic({ slowness: (d, day) => (d === 4 && !quietDays.has(day) ? 1.5 : 1) }));
    expect(slowOnes(result)).toEqual(['disk5']);
    const drive = result.get('disk5')!;
    expect(drive.ratio).toBeGreaterThan(1.35);
    expect(drive.ratio).toBeLessThan(1.65);
    expect(drive.slowDays).toBe(5); // the last 7 days, 2024-01-08 to 01-14, less days 9 and 12
    expect(drive.days).toBe(7);
    expect(drive.z).toBeGreaterThan(5);
    expect(drive.confidence).toBeCloseTo(5 / 7, 5);
    expect(drive.loadRatio).toBeCloseTo(1, 1);
    // One episode, still going: from its first slow day; judged slow as of day 4 (days 0, 1, 3, 4
    // slow, 2 quiet: the 4th slow day is the 5th day); the quiet days inside it counted.
    expect(drive.episodes).toEqual([
      { from: dayName(0), to: dayName(13), days: 14, slowDays: 10, ratio: expect.any(Number), detected: dayName(4), daysToDetect: 5, ongoing: true },
    ]);
    expect(drive.episodes[0].ratio).toBeGreaterThan(1.4);
  });

  it('a drive high on one day only is not slow (that day is, the drive is not)', () => {
    const days = synthetic({ slowness: (d, day) => (d === 7 && day === 5 ? 2 : 1) });
    const judged = days.map((day) => judgeDay(day, params));
    expect(judged[5].drives[7].slow).toBe(true);
    expect(judged[5].drives[7].ratio).toBeGreaterThan(1.8);
    const host = judgeHost(judged, params);
    expect(host.drives.filter((drive) => drive.verdict === 'slow')).toEqual([]);
  });

  it('a drive high on three days of a week (and one more, earlier) is not slow either: it takes 4 of 7', () => {
    const result = verdicts(synthetic({ slowness: (d, day) => (d === 0 && [2, 9, 10, 12].includes(day) ? 1.8 : 1) }));
    expect(slowOnes(result)).toEqual([]);
    expect(result.get('disk1')!.slowDays).toBe(3);
    expect(result.get('disk1')!.episodes).toEqual([]);
  });

  it('all drives slow together is not a drive fault', () => {
    const result = verdicts(synthetic({ slowness: (_d, day) => (day >= 3 ? 1.8 : 1) }));
    expect(slowOnes(result)).toEqual([]);
    for (const drive of result.values()) expect(Math.abs(Math.log(drive.ratio))).toBeLessThan(0.07);
  });

  it('a third or more of the drives slow together is host-wide: counted as such, charged to none', () => {
    const days = synthetic({ slowness: (d) => (d < 5 ? 1.6 : 1) });
    const { days: judged, verdict } = detectHost(days, params);
    expect(judged.every((day) => day.hostWide)).toBe(true);
    expect(verdict.hostWideDays).toBe(14);
    expect(verdict.drives.filter((drive) => drive.verdict === 'slow')).toEqual([]);
    expect(verdict.drives[0].hostWideDays).toBe(14); // host-wide days do not count towards the 7: the window reaches back over all of them
    // Two slow drives out of twelve are drive faults, not host-wide.
    expect(slowOnes(verdicts(synthetic({ slowness: (d) => (d < 2 ? 1.6 : 1) })))).toEqual(['disk1', 'disk2']);
  });

  it('host-wide days in the last week do not push a slow drive\'s evidence out: the window reaches back over them', () => {
    // disk12 1.6x all along; on the last 4 days five more drives are slow too (host-wide).
    const days = synthetic({ slowness: (d, day) => (d === 11 || (d < 5 && day >= 10) ? 1.6 : 1) });
    const { days: judged, verdict } = detectHost(days, params);
    expect(judged.map((day) => day.hostWide)).toEqual([...Array(10).fill(false), ...Array(4).fill(true)]);
    const drive = verdict.drives.find((one) => one.disk === 'disk12')!;
    expect(drive.verdict).toBe('slow');
    expect([drive.from, drive.to, drive.days, drive.slowDays, drive.hostWideDays]).toEqual([dayName(3), dayName(13), 7, 7, 4]);
    expect(drive.episodes).toMatchObject([{ from: dayName(0), to: dayName(9), days: 10, slowDays: 10, ongoing: true }]);
    expect(verdict.drives.filter((one) => one.verdict === 'slow').map((one) => one.disk)).toEqual(['disk12']);
  });

  it('minutes in which a drive is nearly idle are not compared: its latency spikes there do not make it slow', () => {
    const idle = (d: number, m: number) => d === 2 && m % 5 !== 0; // idle 80 % of the time
    const days = synthetic({
      load: (d, _day, m) => (idle(d, m) ? 0.01 : 1),
      latencyOverride: (d, _day, m) => (idle(d, m) ? 200 : null), // 10x, from a handful of I/Os
    });
    const result = verdicts(days);
    expect(slowOnes(result)).toEqual([]);
    const judged = judgeDay(days[0], params);
    expect(judged.drives[2].buckets).toBe(36); // only the minutes with load
    expect(judged.drives[3].buckets).toBe(180);
    // Without the rule, the spikes would make it slow.
    expect(slowOnes(verdicts(days, peerParams({ minLoadShare: 0 })))).toEqual(['disk3']);
  });

  it('minutes in which the whole host is idle are skipped', () => {
    const hostIdle = (m: number) => m >= 60 && m < 120;
    const days = synthetic({
      load: (_d, _day, m) => (hostIdle(m) ? 0.001 : 1),
      latencyOverride: (d, _day, m) => (hostIdle(m) && d === 9 ? 300 : null),
    });
    const judged = judgeDay(days[0], params);
    expect(judged.drives[9].buckets).toBe(120);
    expect(slowOnes(verdicts(days))).toEqual([]);
  });

  it('compares at comparable load: a busier drive is expected to be slower by the host\'s own elasticity', () => {
    // disk4 serves twice its peers' throughput; every drive's latency follows load^0.6, so it runs 2^0.6 = 1.52x.
    const days = synthetic({ elasticity: 0.6, load: (d, _day, m) => (d === 3 ? 2 : 1) * (1 + 0.25 * Math.sin(m / 7 + d)) });
    const judged = judgeDay(days[0], params);
    expect(judged.loadElasticity).toBeGreaterThan(0.45);
    expect(judged.loadElasticity).toBeLessThan(0.75);
    const aware = verdicts(days);
    expect(slowOnes(aware)).toEqual([]);
    expect(aware.get('disk4')!.loadRatio).toBeGreaterThan(1.7);
    expect(aware.get('disk4')!.ratio).toBeLessThan(1.1);
    // The same data compared on latency alone flags it.
    expect(slowOnes(verdicts(days, peerParams({ maxLoadElasticity: 0 })))).toEqual(['disk4']);
  });

  it('a slow drive whose throughput falls with its speed is still slow', () => {
    const result = verdicts(synthetic({ slowness: (d) => (d === 6 ? 1.5 : 1), load: (d) => (d === 6 ? 1 / 1.5 : 1) }));
    expect(slowOnes(result)).toEqual(['disk7']);
  });

  it('days to detection: the detector on growing prefixes of days agrees with the verdict', () => {
    // Slow from day 4 (the 5th day) on: its 4th slow day is day 7, the 8th day of data.
    const days = synthetic({ slowness: (d, day) => (d === 10 && day >= 4 ? 1.7 : 1) });
    const judged = days.map((day) => judgeDay(day, params));
    const found = daysToDetection(judged, params);
    expect([...found.keys()]).toEqual(['disk11']);
    expect(found.get('disk11')).toEqual({ days: 8, day: dayName(7) });
    const drive = judgeHost(judged, params).drives.find((one) => one.disk === 'disk11')!;
    expect(drive.episodes).toMatchObject([{ from: dayName(4), to: dayName(13), detected: dayName(7), daysToDetect: 8, ongoing: true }]);
    // Fewer than minSlowDays days of data can never be slow.
    expect(daysToDetection(judged.slice(4, 7), params).size).toBe(0);
  });

  it('a drive slow for six days and fine for ten since is ok now, its episode beside it', () => {
    const result = verdicts(synthetic({ days: 16, slowness: (d, day) => (d === 1 && day < 6 ? 1.6 : 1) }));
    const drive = result.get('disk2')!;
    expect(drive.verdict).toBe('ok');
    expect(slowOnes(result)).toEqual([]);
    expect(drive.slowDays).toBe(0); // the last 7 days
    expect(drive.ratio).toBeLessThan(1.1);
    expect(drive.episodes).toEqual([{ from: dayName(0), to: dayName(5), days: 6, slowDays: 6, ratio: expect.any(Number), detected: dayName(3), daysToDetect: 4, ongoing: false }]);
    expect(drive.episodes[0].ratio).toBeGreaterThan(1.45);
    expect(drive.episodes[0].ratio).toBeLessThan(1.75);
  });

  it('slow now needs 4 slow days among the last 7: it recovers on the 4th good day, and a relapse is a second episode', () => {
    // Slow on days 0-5, fine on 6-9, slow again on 10-15.
    const slowDay = (day: number) => day < 6 || day >= 10;
    const days = synthetic({ days: 16, slowness: (d, day) => (d === 8 && slowDay(day) ? 1.6 : 1) });
    const at = (n: number) => verdicts(days.slice(0, n)).get('disk9')!;
    expect(at(9).verdict).toBe('slow'); // days 2-8: 4 slow (2, 3, 4, 5)
    expect(at(10).verdict).toBe('ok'); // days 3-9: 3 slow
    expect(at(10).episodes).toMatchObject([{ from: dayName(0), to: dayName(5), days: 6, slowDays: 6, ongoing: false }]);
    const drive = at(16);
    expect(drive.verdict).toBe('slow');
    expect(drive.episodes).toMatchObject([
      { from: dayName(0), to: dayName(5), days: 6, slowDays: 6, ongoing: false },
      { from: dayName(10), to: dayName(15), days: 6, slowDays: 6, detected: dayName(13), ongoing: true },
    ]);
  });

  it('a host with too few drives to have peers judges none', () => {
    const result = verdicts(synthetic({ drives: 3, slowness: (d) => (d === 0 ? 2 : 1) }));
    expect(slowOnes(result)).toEqual([]);
    expect(result.get('disk1')!.days).toBe(0);
    expect(result.get('disk1')!.confidence).toBe(0);
  });

  it('a drive missing on some days is judged on the days it has', () => {
    const days = synthetic({ slowness: (d) => (d === 5 ? 1.5 : 1) });
    for (const day of days.slice(8, 11)) day.latency[5].fill(NaN);
    const drive = verdicts(days).get('disk6')!;
    expect(drive.verdict).toBe('slow');
    expect(drive.days).toBe(4);
    expect(drive.slowDays).toBe(4);
  });
});

describe('peers of the same kind (device classes)', () => {
  // NVMe drives run at a tenth of the HDDs' latency, at the same throughput share.
  const nvmeFirst = (count: number) => (d: number) => (d < count ? 'nvme-ssd' : 'sata-hdd');
  const speed = (count: number) => (d: number) => (d < count ? 0.1 : 1);
  const judged = (days: AlignedDay[]) => {
    const { verdict } = detectHost(days, params);
    const groups = new Map(verdict.groups.map((group) => [group.peerClass, group]));
    const drives = new Map(verdict.drives.map((drive) => [drive.disk, drive]));
    const slow = verdict.drives.filter((drive) => groups.get(drive.peerClass)!.judged && drive.verdict === 'slow').map((drive) => drive.disk);
    return { verdict, groups, drives, slow };
  };
  const unclassed = (days: AlignedDay[]) => days.map((day) => ({ ...day, classes: day.classes.map(() => '') }));

  it('2 NVMe + 10 HDD: the HDDs are judged among themselves, the two NVMe drives are too few to judge', () => {
    const slowness = (d: number) => speed(2)(d) * (d === 0 ? 2 : 1) * (d === 5 ? 1.5 : 1);
    const days = synthetic({ classOf: nvmeFirst(2), slowness });
    const { verdict, drives, slow } = judged(days);
    expect(verdict.groups).toEqual([
      { peerClass: 'nvme-ssd', drives: 2, judged: false, hostWideDays: 0 },
      { peerClass: 'sata-hdd', drives: 10, judged: true, hostWideDays: 0 },
    ]);
    expect(slow).toEqual(['disk6']);
    expect(drives.get('disk6')!.peerClass).toBe('sata-hdd');
    expect(drives.get('disk6')!.ratio).toBeGreaterThan(1.35);
    expect(drives.get('disk1')!.days).toBe(0); // no peer of its class to compare it with
    // As one group, the NVMe drive twice as slow as its twin reads as a fifth of its peers' latency: hidden.
    const mixed = verdicts(unclassed(days));
    expect(mixed.get('disk1')!.verdict).toBe('ok');
    expect(mixed.get('disk1')!.ratio).toBeLessThan(0.3);
  });

  it('6 NVMe + 6 HDD: each class judged against itself finds one slow drive in each', () => {
    const slowness = (d: number) => speed(6)(d) * (d === 2 || d === 8 ? 1.6 : 1);
    const days = synthetic({ classOf: nvmeFirst(6), slowness });
    const { verdict, drives, slow } = judged(days);
    expect(verdict.groups.map((group) => [group.peerClass, group.drives, group.judged, group.hostWideDays])).toEqual([
      ['nvme-ssd', 6, true, 0],
      ['sata-hdd', 6, true, 0],
    ]);
    expect(slow).toEqual(['disk3', 'disk9']);
    expect([drives.get('disk3')!.peerClass, drives.get('disk9')!.peerClass]).toEqual(['nvme-ssd', 'sata-hdd']);
    for (const disk of ['disk3', 'disk9']) expect(drives.get(disk)!.ratio).toBeGreaterThan(1.45);
    for (const [disk, drive] of drives) if (!slow.includes(disk)) expect(Math.abs(Math.log(drive.ratio))).toBeLessThan(0.07);
    // As one group, every HDD stands 10x above a peer median that is an NVMe drive's: the whole
    // slower class is slow together every day, a host-wide slowdown, and neither slow drive is found.
    const mixed = detectHost(unclassed(days), params);
    expect(mixed.verdict.hostWideDays).toBe(14);
    expect(mixed.verdict.drives.filter((drive) => drive.verdict === 'slow')).toEqual([]);
  });

  it('one class only: the same verdicts as with no class at all', () => {
    const days = synthetic({ classOf: () => 'sas-hdd', slowness: (d) => (d === 3 ? 1.5 : 1) });
    const { verdict, slow } = judged(days);
    expect(verdict.groups).toEqual([{ peerClass: 'sas-hdd', drives: 12, judged: true, hostWideDays: 0 }]);
    expect(slow).toEqual(['disk4']);
    const without = detectHost(unclassed(days), params).verdict;
    const pick = (drives: DriveVerdict[]) => drives.map(({ disk, verdict: v, ratio, slowDays, days: n, episodes }) => ({ disk, v, ratio, slowDays, n, episodes }));
    expect(pick(verdict.drives)).toEqual(pick(without.drives));
  });
});

describe('peer detector building blocks', () => {
  it('DayBuilder averages samples into buckets, in any order, and aligns the drives', () => {
    const builder = new DayBuilder('d', 60);
    const a = builder.indexOf('sda');
    const b = builder.indexOf('sdb');
    builder.add(120 + 15, a, 10, 4);
    builder.add(60, b, 7, 1);
    builder.add(120, a, 20, 2);
    builder.add(60 + 45, a, 5, 8);
    expect(builder.indexOf('sda')).toBe(a);
    const day = builder.build();
    expect(day.disks).toEqual(['sda', 'sdb']);
    expect([...day.bucketStart]).toEqual([60, 120]);
    expect([...day.latency[a]]).toEqual([8, 3]);
    expect([...day.throughput[a]]).toEqual([5, 15]);
    expect(day.latency[b][0]).toBe(1);
    expect(day.latency[b][1]).toBeNaN();
  });

  it('medianInPlace on short and long arrays', () => {
    expect(medianInPlace(Float64Array.from([3, 1, 2]))).toBe(2);
    expect(medianInPlace(Float64Array.from([4, 1, 3, 2]))).toBe(2.5);
    expect(medianInPlace(Float64Array.from([5, 9, 1, 7]), 3)).toBe(5);
    expect(medianInPlace(new Float64Array(0))).toBeNaN();
    const long = Float64Array.from({ length: 101 }, (_, i) => (i * 37) % 101);
    expect(medianInPlace(long)).toBe(50);
  });

  it('the params object validates its values and keeps its defaults', () => {
    expect(peerParams()).toEqual(DEFAULT_PEER_PARAMS);
    expect(peerParams({ slowRatio: 1.3 }).slowRatio).toBe(1.3);
    expect(() => peerParams({ slowRatio: 0.9 })).toThrow(RangeError);
    expect(() => peerParams({ windowDays: 0 })).toThrow(/windowDays/);
    expect(() => peerParams({ windowDays: 3 })).toThrow(/minSlowDays/);
    expect(Object.isFrozen(DEFAULT_PEER_PARAMS)).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Real data: three hosts of Perseus cluster C, two with labelled fail-slow drives.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DATA = path.join(REPO, 'data', 'perseus');
const ARCHIVE = path.join(DATA, 'cluster_C-1min.tar.xz');
const SLICE = ['host_2', 'host_5', 'host_40', 'host_77'];

describe('peer detector on real slices of Perseus cluster C (data/perseus)', () => {
  let hosts: HostDir[];
  let labels: Labels;
  const series = new Map<string, AlignedDay[]>();

  beforeAll(async () => {
    const root = cachedUnpack(ARCHIVE, SLICE.map((host) => `cluster_C/${host}`));
    const counters = newCounters();
    hosts = await findHosts(path.join(root, 'cluster_C'), counters);
    for (const host of hosts.filter((one) => SLICE.includes(one.host))) series.set(host.host, await readHostDays(host, params, counters));
    labels = await readLabels(path.join(DATA, 'slow_drives_cluster_C.csv'));
    expect(counters.badRows).toBe(0);
    expect(counters.badFiles).toBe(0);
  });

  it('reads the labels: 32 drives, disk1 and disk2 of 16 hosts', () => {
    expect(labels.keys.size).toBe(32);
    expect(labels.keys.has('host_2/disk1')).toBe(true);
    expect(labels.keys.has('host_5/disk1')).toBe(false);
    expect(labels.badLines).toBe(0);
  });

  it('finds exactly the labelled drives of the slice, on 4 days of data each', () => {
    expect([...series.keys()].sort()).toEqual([...SLICE].sort());
    for (const [host, days] of series) {
      expect(days.length).toBeGreaterThanOrEqual(13);
      const { days: judged, verdict } = detectHost(days, params);
      const slow = verdict.drives.filter((drive) => drive.verdict === 'slow').map((drive) => `${host}/${drive.disk}`);
      const labelled = verdict.drives.map((drive) => `${host}/${drive.disk}`).filter((key) => labels.keys.has(key));
      expect(slow).toEqual(labelled);
      for (const drive of verdict.drives) {
        if (drive.verdict !== 'slow') continue;
        expect(drive.ratio).toBeGreaterThan(1.25);
        expect(drive.loadRatio).toBeGreaterThan(0.9);
        expect(drive.loadRatio).toBeLessThan(1.1);
        expect(drive.slowDays).toBe(drive.days);
        expect(drive.episodes).toHaveLength(1);
        expect(drive.episodes[0]).toMatchObject({ ongoing: true, daysToDetect: 4, from: judged[0].day });
        expect(daysToDetection(judged, params).get(drive.disk)?.days).toBe(4);
      }
    }
  });

  it('a labelled host\'s third drive, 1.1x to 1.2x its peers, is not slow: the rule needs 1.2x on most of a day', () => {
    const { verdict } = detectHost(series.get('host_2')!, params);
    const disk3 = verdict.drives.find((drive) => drive.disk === 'disk3')!;
    expect(disk3.ratio).toBeGreaterThan(1.05);
    expect(disk3.ratio).toBeLessThan(1.2);
    expect(disk3.verdict).toBe('ok');
  });

  /** The figures of a drive's verdict and episodes, checked against its day judgements: they must agree with each other. */
  function expectConsistent(drive: DriveVerdict, judged: HostDay[]) {
    const mine = judged
      .filter((day) => day.peerClass === drive.peerClass)
      .sort((a, b) => a.day.localeCompare(b.day))
      .map((day) => ({ day: day.day, one: day.drives.find((one) => one.disk === drive.disk) }))
      .filter(({ one }) => one?.observed && !one.hostWide);
    // The last windowDays days of its class, host-wide days not counted (the window reaches back over them).
    const counted = judged.filter((day) => day.peerClass === drive.peerClass && !day.hostWide).map((day) => day.day).sort();
    const inWindow = mine.filter(({ day }) => day >= counted.slice(-params.windowDays)[0]!);
    expect(drive.days).toBe(inWindow.length);
    expect(drive.slowDays).toBe(inWindow.filter(({ one }) => one!.slow).length);
    expect(drive.verdict).toBe(drive.slowDays >= params.minSlowDays ? 'slow' : 'ok');
    expect(drive.episodes.some((episode) => episode.ongoing)).toBe(drive.verdict === 'slow');
    let previousTo = '';
    for (const episode of drive.episodes) {
      const span = mine.filter(({ day }) => day >= episode.from && day <= episode.to);
      expect(episode.from > previousTo).toBe(true);
      expect(span[0].day).toBe(episode.from);
      expect(span.at(-1)!.day).toBe(episode.to);
      expect(span[0].one!.slow && span.at(-1)!.one!.slow).toBe(true);
      expect(episode.days).toBe(span.length);
      expect(episode.slowDays).toBe(span.filter(({ one }) => one!.slow).length);
      expect(episode.slowDays).toBeGreaterThanOrEqual(params.minSlowDays);
      const calendarDays = (Date.parse(episode.to) - Date.parse(episode.from)) / 86_400_000 + 1;
      expect(episode.days).toBeLessThanOrEqual(calendarDays);
      expect(episode.detected >= episode.from && episode.detected <= episode.to).toBe(true);
      expect(episode.ratio).toBeCloseTo(median(span.filter(({ one }) => one!.slow).map(({ one }) => one!.ratio)), 10);
      previousTo = episode.to;
    }
  }

  it('every figure of every drive agrees with its day judgements: counts, dates, verdict now and episodes', () => {
    for (const days of series.values()) {
      const { days: judged, verdict } = detectHost(days, params);
      for (const drive of verdict.drives) expectConsistent(drive, judged);
    }
  });

  it('a labelled drive made healthy on its last 4 or 5 days is ok now, with its episode beside; healthy on its last 3 only, still slow', () => {
    // host_2's disk1 given disk3's figures (a healthy drive of the host) on the last days.
    const healed = (count: number) =>
      series.get('host_2')!.map((day, i, all) => {
        if (i < all.length - count) return day;
        const [one, three] = [day.disks.indexOf('disk1'), day.disks.indexOf('disk3')];
        return { ...day, latency: day.latency.map((row, d) => (d === one ? day.latency[three] : row)), throughput: day.throughput.map((row, d) => (d === one ? day.throughput[three] : row)) };
      });
    for (const count of [4, 5]) {
      const { days: judged, verdict } = detectHost(healed(count), params);
      const drive = verdict.drives.find((one) => one.disk === 'disk1')!;
      expectConsistent(drive, judged);
      const days = verdict.days;
      expect(drive.episodes).toHaveLength(1);
      expect(drive.episodes[0]).toMatchObject({ from: days[0], to: days[days.length - 1 - count], days: days.length - count, slowDays: days.length - count });
      // 4 healthy days leave 3 slow days of the last 7: recovered.
      expect(drive.verdict).toBe(7 - count >= params.minSlowDays ? 'slow' : 'ok');
      expect(drive.episodes[0].ongoing).toBe(drive.verdict === 'slow');
      expect(verdict.drives.find((one) => one.disk === 'disk2')!.verdict).toBe('slow');
    }
    const three = detectHost(healed(3), params).verdict.drives.find((one) => one.disk === 'disk1')!;
    expect(three.verdict).toBe('slow'); // 4 slow days of the last 7 still
    expect(three.episodes[0].ongoing).toBe(true);
  });

  it('with only a host\'s first three days, nothing is judged slow yet', () => {
    const { verdict } = detectHost(series.get('host_40')!.slice(0, 3), params);
    expect(verdict.drives.filter((drive) => drive.verdict === 'slow')).toEqual([]);
  });
});
