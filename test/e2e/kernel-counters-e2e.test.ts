// The kernel's counters of a real disk under load, throttled and hung. The disk under test
// is a loop device whose backing file lives on a second test disk, the "media": a fault
// put on the media (a throttle, a freeze) is then a fault of the storage under the disk,
// which its requests wait on while the block layer counts them, as they would wait on a
// failing drive. The same faults put on the disk itself act above its request queue (a
// frozen filesystem holds writes before they are requests, blk-throttle holds bios before
// they are), where its counters cannot see the wait: the last tests show what they see.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { devicesToCount, resolveBlockDevices } from '../../src/kernel/block-devices.js';
import { deviceRates, type DeviceRates } from '../../src/kernel/device-rates.js';
import { readDiskstats, type DiskCounters } from '../../src/kernel/diskstats.js';
import { MountTable, deviceOf } from '../../src/mounts/mount-table.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { makeTestDisk, removeAllTestDisks, runKit, type TestDisk } from '../helpers/test-disk.js';

const kit = (script: string, ...args: string[]) => runKit(script, args);

const ROUND_MS = 1000;
// dd's load lasts one to a few seconds: shorter rounds see it from the inside.
const LOAD_ROUND_MS = 250;
// 100 MB, on a disk of 160 MiB.
const LOAD_WRITES = 25_000;

interface Snapshot {
  atMs: number;
  devices: Map<string, DiskCounters>;
}

function snapshot(): Snapshot {
  const devices = readDiskstats();
  return { atMs: performance.now(), devices };
}

function ratesOf(device: string, from: Snapshot, to: Snapshot): DeviceRates {
  const rates = deviceRates(from.devices.get(device)!, to.devices.get(device)!, to.atMs - from.atMs);
  expect(rates, `${device}'s counters restarted`).not.toBeNull();
  return rates!;
}

/** The next snapshot, a round after `from`. */
async function nextRound(from: Snapshot, roundMs = ROUND_MS): Promise<Snapshot> {
  await sleep(Math.max(0, from.atMs + roundMs - performance.now()));
  return snapshot();
}

interface Writer {
  child: ChildProcess;
  /** dd's own figures: the writes it made and the seconds it took for them. */
  done: Promise<{ writes: number; seconds: number }>;
}

const writers = new Set<ChildProcess>();

/** `count` 4 KiB O_DIRECT writes, one after the other, as dd makes them. */
function startWriter(file: string, count: number): Writer {
  const child = spawn('dd', ['if=/dev/zero', `of=${file}`, 'bs=4k', `count=${count}`, 'oflag=direct'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, LC_ALL: 'C' },
  });
  writers.add(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ writes: number; seconds: number }>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      writers.delete(child);
      const records = /^(\d+)\+0 records out$/m.exec(stderr);
      const seconds = /copied, ([\d.e-]+) s,/.exec(stderr);
      if (code !== 0 || !records || !seconds) reject(new Error(`dd exited with ${code}: ${stderr}`));
      else resolve({ writes: Number(records[1]), seconds: Number(seconds[1]) });
    });
  });
  return { child, done };
}

/** Kills the writers still running, by their PIDs, and waits for them to be gone. */
async function stopWriters(): Promise<void> {
  await Promise.all(
    [...writers].map(async (child) => {
      const gone = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGKILL');
      await gone;
    }),
  );
}

interface DiskUnderTest {
  dir: string;
  majMin: string;
  name: string;
}

const gate = requireRootFacilities(['root', 'loop', 'blkio', 'fsfreeze']);

describe.skipIf(gate.skip)("a real disk's kernel counters", () => {
  let media: TestDisk;
  let disk: DiskUnderTest;

  beforeAll(async () => {
    // Its own backing file on a tmpfs: this suite's load never reaches the machine's disk.
    media = await makeTestDisk({ backingTmpfs: true, sizeMiB: 200 });
    const dir = await mkdtemp(join(tmpdir(), 'slowdisk-disk-on-media-'));
    // Known before it is made, so that a disk left half-made is removed too.
    disk = { dir, majMin: '', name: '' };
    await kit('make-disk', dir, '--backing-dir', media.dir, '--size-mib', '160');
    const mount = MountTable.read().topmostAt(dir);
    if (!mount) throw new Error(`make-disk ${dir} succeeded but nothing is mounted there`);
    disk = { dir, majMin: deviceOf(mount), name: basename(mount.source) };
  });

  // Thawed first: a writer blocked on a frozen filesystem cannot die before the thaw.
  afterEach(async () => {
    await kit('thaw', media.dir);
    await kit('thaw', disk.dir);
    await kit('unslow', disk.dir);
    await kit('unthrottle', disk.dir);
    await stopWriters();
  });

  afterAll(async () => {
    try {
      // A frozen media would hold up the unmount of the disk on it; remove-disk lifts the disk's own faults.
      if (media) await kit('thaw', media.dir);
      await stopWriters();
      if (disk) {
        await kit('remove-disk', disk.dir);
        await rm(disk.dir, { recursive: true, force: true });
      }
    } finally {
      await removeAllTestDisks();
    }
  });

  it('resolves to the loop device, then to the media disk that holds its backing file', async () => {
    const tree = await resolveBlockDevices(disk.majMin);
    expect(tree).toMatchObject({ device: disk.majMin, name: disk.name, backing: { filesystem: { device: media.majMin, name: basename(media.device) } } });
    expect(tree.backing!.file.startsWith(`${media.dir}/`)).toBe(true);
    // The media's own backing file is on a tmpfs: no block device, and the walk says why.
    expect(tree.backing!.filesystem!.backing!.filesystem).toMatchObject({ name: null, reason: expect.stringContaining('anonymous device') });
    expect(devicesToCount(tree)).toEqual([
      { device: disk.majMin, name: disk.name, role: 'filesystem' },
      { device: media.majMin, name: basename(media.device), role: 'backing' },
    ]);
  });

  it("under dd's O_DIRECT writes: the write IOPS and latency are dd's own", async () => {
    const start = snapshot();
    const writer = startWriter(join(disk.dir, 'load'), LOAD_WRITES);
    const rounds: DeviceRates[] = [];
    let finished = false;
    writer.child.once('close', () => (finished = true));
    for (let round = start; !finished; ) {
      const next = await nextRound(round, LOAD_ROUND_MS);
      rounds.push(ratesOf(disk.majMin, round, next));
      round = next;
    }
    const dd = await writer.done;
    const whole = ratesOf(disk.majMin, start, snapshot());
    const ddIops = dd.writes / dd.seconds;
    // A count, back from a rate: rounded, as the rate was a count divided by the span.
    const writes = Math.round((whole.writeIops * whole.elapsedMs) / 1000);
    console.log(
      `load: dd ${dd.writes} writes in ${dd.seconds.toFixed(2)} s (${ddIops.toFixed(0)}/s); counters ${writes.toFixed(0)} writes, ` +
        `${whole.writeIops.toFixed(0)}/s over ${(whole.elapsedMs / 1000).toFixed(2)} s, ${whole.writeLatencyMs!.toFixed(3)} ms each, ` +
        `utilisation ${whole.utilisation.toFixed(2)}; ${LOAD_ROUND_MS} ms rounds: ` +
        rounds.map((r) => `${r.writeIops.toFixed(0)}/s ${r.writeLatencyMs?.toFixed(3)} ms util ${r.utilisation.toFixed(2)}`).join(', '),
    );
    // Each of dd's writes is one request (one at a time, none to merge); the journal adds a few.
    expect(writes).toBeGreaterThanOrEqual(dd.writes);
    expect(writes).toBeLessThan(dd.writes * 1.1);
    // The counters' span holds dd's run and a little more: the start of the process, its exit.
    expect(whole.writeIops / ddIops).toBeGreaterThan(0.5);
    expect(whole.writeIops / ddIops).toBeLessThan(1.1);
    // The rounds inside dd's run (all but the last, in which it ended) go at dd's pace.
    const inside = rounds.slice(0, -1).map((r) => r.writeIops).sort((x, y) => x - y);
    expect(inside.length, 'rounds inside the run of dd').toBeGreaterThan(0);
    const median = inside[Math.floor(inside.length / 2)];
    expect(median / ddIops).toBeGreaterThan(0.7);
    expect(median / ddIops).toBeLessThan(1.3);
    expect(whole.writeBytesPerSecond / whole.writeIops).toBeGreaterThanOrEqual(4096);
    expect(whole.writeBytesPerSecond / whole.writeIops).toBeLessThan(4096 * 1.1);
    // One write at a time: each took at most dd's time per write.
    expect(whole.writeLatencyMs).toBeGreaterThan(0);
    expect(whole.writeLatencyMs!).toBeLessThan((1000 / ddIops) * 1.1);
    expect(whole.utilisation).toBeGreaterThan(0.25);
    expect(rounds.some((r) => r.stalled)).toBe(false);
  });

  it("with the disk slowed, its media capped at 5 write IOPS: each write of the disk takes about the cap's 200 ms", async () => {
    await kit('slow', disk.dir, '--write-iops', '5');
    const start = snapshot();
    const dd = await startWriter(join(disk.dir, 'throttled'), 10).done;
    const rates = ratesOf(disk.majMin, start, snapshot());
    console.log(
      `media throttled to 5 IOPS: dd ${(dd.writes / dd.seconds).toFixed(1)} writes/s; counters ${rates.writeIops.toFixed(1)} writes/s, ` +
        `${rates.writeLatencyMs!.toFixed(0)} ms each, utilisation ${rates.utilisation.toFixed(2)}`,
    );
    expect(rates.writeIops).toBeLessThan(7);
    expect(rates.writeLatencyMs!).toBeGreaterThan(150);
    expect(rates.utilisation).toBeGreaterThan(0.8);
  });

  it('with the disk itself throttled, its counters show the IOPS cap but not the wait: blk-throttle holds bios before they are requests', async () => {
    await kit('throttle', disk.dir, '--write-iops', '5');
    const start = snapshot();
    await startWriter(join(disk.dir, 'capped'), 10).done;
    const rates = ratesOf(disk.majMin, start, snapshot());
    console.log(`disk throttled to 5 IOPS: counters ${rates.writeIops.toFixed(1)} writes/s, ${rates.writeLatencyMs!.toFixed(2)} ms each, utilisation ${rates.utilisation.toFixed(2)}`);
    expect(rates.writeIops).toBeLessThan(7);
    expect(rates.writeLatencyMs!).toBeLessThan(50);
    expect(rates.utilisation).toBeLessThan(0.5);
  });

  it('with the media hung under a writer: the disk is flagged stalled within two 1 s rounds, and no longer once the media is thawed', async () => {
    await media.hang();
    let round = snapshot();
    const writer = startWriter(join(disk.dir, 'stalled'), 20);
    const writingAt = performance.now();
    const stalledRounds: DeviceRates[] = [];
    let mediaRates: DeviceRates | undefined;
    for (let i = 0; i < 2 && stalledRounds.length === 0; i++) {
      const next = await nextRound(round);
      const rates = ratesOf(disk.majMin, round, next);
      if (rates.stalled) {
        stalledRounds.push(rates);
        mediaRates = ratesOf(media.majMin, round, next);
      }
      round = next;
    }
    const flaggedAfterMs = round.atMs - writingAt;
    expect(stalledRounds, 'a stalled round within two rounds of the writer').toHaveLength(1);
    // A second round: stalled still, the request still in flight.
    const next = await nextRound(round);
    stalledRounds.push(ratesOf(disk.majMin, round, next));
    round = next;
    for (const rates of stalledRounds) expect(rates).toMatchObject({ stalled: true, writeIops: 0, writeLatencyMs: null });
    expect(stalledRounds[1].inFlight).toBeGreaterThan(0);
    expect(stalledRounds[1].utilisation).toBeGreaterThan(0.9);
    // The media's requests never reached it: its filesystem holds them, above its queue.
    expect(mediaRates).toMatchObject({ stalled: false, inFlight: 0 });

    await media.thaw();
    const thawedAt = performance.now();
    const after = await nextRound(round);
    const cleared = ratesOf(disk.majMin, round, after);
    const dd = await writer.done;
    console.log(
      `hung media: stalled flagged ${flaggedAfterMs.toFixed(0)} ms after the writer started (in flight ${stalledRounds.map((r) => r.inFlight).join(', ')}, ` +
        `utilisation ${stalledRounds.map((r) => r.utilisation.toFixed(2)).join(', ')}); thawed: cleared ${(after.atMs - thawedAt).toFixed(0)} ms later, ` +
        `${cleared.writeIops.toFixed(0)} writes/s, ${cleared.writeLatencyMs?.toFixed(0)} ms each (the stalled write counted whole); dd ${dd.writes} writes`,
    );
    expect(cleared.stalled).toBe(false);
    expect(cleared.writeIops).toBeGreaterThan(0);
    // The request that waited out the freeze completed in this round, with all its wait.
    const writeMs = (cleared.writeLatencyMs! * cleared.writeIops * cleared.elapsedMs) / 1000;
    expect(writeMs).toBeGreaterThan(0.9 * (thawedAt - writingAt));
  });

  it("with the disk's own filesystem frozen, writes block above the device: it shows idle, not stalled", async () => {
    await kit('hang', disk.dir);
    let round = snapshot();
    const writer = startWriter(join(disk.dir, 'frozen'), 20);
    for (let i = 0; i < 2; i++) {
      const next = await nextRound(round);
      expect(ratesOf(disk.majMin, round, next)).toMatchObject({ stalled: false, inFlight: 0, writeIops: 0 });
      round = next;
    }
    await kit('thaw', disk.dir);
    expect((await writer.done).writes).toBe(20);
  });
});
