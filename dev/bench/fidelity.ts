// Fidelity: does slowdisk time what the disk does? On one loop-device ext4 filesystem,
// in one run, slowdisk's write+sync phases against `ioping -D -W` (the same O_DIRECT
// pwrite then fdatasync, same 4 KiB requests, 100 ms apart, over the same 256 KiB of
// blocks at the same offsets), and its whole inspection against a plain C loop of the
// same syscalls; then, on the same disk throttled with blkio, against the latency the
// throttle imposes.
import { join } from 'node:path';
import type { HarnessOutput } from './harness.js';
import {
  HARNESS,
  SETTINGS,
  benchDir,
  deviceWrites,
  isMain,
  makeDisk,
  median,
  medianOver,
  ms,
  note,
  numbersOf,
  onPath,
  p99,
  plainLoop,
  progress,
  ratio,
  row,
  run,
  runParts,
  sleep,
  startWatch,
  throttleDisk,
  unthrottleDisk,
  type PartResult,
  type Row,
} from './lib.js';
import type { Observation } from './observation.js';

const INTERVAL_MS = 100;
const IO_SIZE = 4096;
const BLOCKS = 64;

const PHASES = ['open', 'write', 'sync', 'read', 'close'] as const;
/** The sides timed whole, phase by phase: ioping gives write+sync alone. */
const SIDES = ['addon', 'plain', 'cli'] as const;
type Side = (typeof SIDES)[number];
type Tool = 'ioping' | Side;

/** Per-inspection timings in ms, each phase's and write+sync's and the whole inspection's. */
type Timings = Record<(typeof PHASES)[number] | 'writeSync' | 'total', number[]>;
type WriteSync = Pick<Timings, 'writeSync'>;

/** A timing over the runs: the median of the runs' medians and of their p99s, and the inspections in all. */
interface Summary {
  median: number;
  p99: number;
  samples: number;
}

/** Per-inspection phases in ms from rows of ns: open, write, sync, read, close, total[, round trip]. */
function fromNsRows(rows: readonly number[][]): Timings {
  return {
    open: rows.map((r) => r[0] / 1e6),
    read: rows.map((r) => r[3] / 1e6),
    close: rows.map((r) => r[4] / 1e6),
    write: rows.map((r) => r[1] / 1e6),
    sync: rows.map((r) => r[2] / 1e6),
    writeSync: rows.map((r) => (r[1] + r[2]) / 1e6),
    total: rows.map((r) => r[5] / 1e6),
  };
}

/** An entry of `ioping -J`: a request's time in ns, `ignored` for the warm-up. */
interface IopingEntry {
  io?: { time: number; ignored?: boolean };
}

/**
 * ioping -D -W: O_DIRECT pwrite + fdatasync per request, timed around both (not -Y,
 * which would open with O_SYNC and flush twice). -L -o 4k -S 256k: sequential over the
 * 64 blocks at 4 KiB..256 KiB, the offsets of slowdisk's data blocks. -c N+1: ioping
 * leaves its first request out of its statistics (-a 1), as the others drop theirs.
 */
async function ioping(dir: string, count: number): Promise<WriteSync> {
  const args = ['-D', '-W', '-s', '4k', '-S', `${(IO_SIZE * BLOCKS) / 1024}k`, '-L', '-o', `${IO_SIZE / 1024}k`];
  args.push('-i', `${INTERVAL_MS}ms`, '-c', String(count + 1), '-J', dir);
  const { stdout } = await run('ioping', args);
  const entries = JSON.parse(stdout) as IopingEntry[];
  return { writeSync: entries.flatMap(({ io }) => (io && !io.ignored ? [io.time / 1e6] : [])) };
}

const phaseArgs = (phasesMs?: readonly number[]): string[] => (phasesMs === undefined ? [] : [phasesMs.map((p) => p.toFixed(3)).join(',')]);

/** The addon directly, one request an inspection from JS (harness.ts worker). */
async function addon(dir: string, count: number, intervalMs: number, phasesMs?: readonly number[]): Promise<Timings> {
  const { stdout } = await run(process.execPath, [HARNESS, 'worker', dir, String(count), String(intervalMs), ...phaseArgs(phasesMs)]);
  return fromNsRows((JSON.parse(stdout) as HarnessOutput).rows);
}

/**
 * The CLI's path without the CLI: the real prober child on its own ticks (harness.ts
 * prober). At 1 ms ticks an inspection slower than that starts the next at the first tick
 * after it: back to back, as the throttle's own pace needs.
 */
async function prober(dir: string, count: number, intervalMs: number): Promise<Timings> {
  const { stdout } = await run(process.execPath, [HARNESS, 'prober', dir, String(count), String(Math.max(1, intervalMs))]);
  return fromNsRows((JSON.parse(stdout) as HarnessOutput).rows);
}

/** plain-loop.c: the same syscalls, nothing else. */
async function plain(dir: string, count: number, intervalMs: number, { unwritten = false, phasesMs }: { unwritten?: boolean; phasesMs?: readonly number[] } = {}): Promise<Timings> {
  const args = [dir, String(count + 1), String(intervalMs), String(IO_SIZE), String(BLOCKS), unwritten ? 'unwritten' : 'written'];
  const { stdout } = await run(plainLoop(), [...args, ...phaseArgs(phasesMs)]);
  return fromNsRows(numbersOf(stdout).slice(1));
}

/** Every inspection the real CLI's observer recorded between its two marks. */
function cliSamples(observed: Observation): Timings {
  const [from, to] = observed.snapshots;
  const kept = observed.samples?.x;
  if (!kept) throw new Error('the observer kept no inspections of disk x (SLOWDISK_BENCH_SAMPLES=1)');
  const samples = kept.slice(from.disks.x?.samples ?? 0, to.disks.x?.samples ?? 0);
  // [tick, open, write, sync, read, close, total] in ms
  return {
    open: samples.map((s) => s[1]),
    read: samples.map((s) => s[4]),
    close: samples.map((s) => s[5]),
    write: samples.map((s) => s[2]),
    sync: samples.map((s) => s[3]),
    writeSync: samples.map((s) => s[2] + s[3]),
    total: samples.map((s) => s[6]),
  };
}

function summary<Key extends string>(runs: readonly Record<Key, number[]>[], key: Key): Summary {
  return {
    median: medianOver(runs, (r) => median(r[key])),
    p99: medianOver(runs, (r) => p99(r[key])),
    samples: runs.reduce((n, r) => n + r[key].length, 0),
  };
}

function summaries(runs: readonly Timings[]): Record<keyof Timings, Summary> {
  const of = (key: keyof Timings): Summary => summary(runs, key);
  return { open: of('open'), write: of('write'), sync: of('sync'), read: of('read'), close: of('close'), writeSync: of('writeSync'), total: of('total') };
}

/** One throttle's runs, back to back. */
interface Throttled {
  iops: number;
  addon: Timings[];
  prober: Timings[];
  plain: Timings[];
  unwritten: Timings[];
}

export async function fidelity(): Promise<PartResult> {
  const spin = progress('fidelity: making a loop-device ext4 disk');
  const base = benchDir('fidelity');
  const disk = makeDisk(join(base, 'disk'), 64);
  const count = SETTINGS.fidelitySamples;
  const repeats = SETTINGS.repeats;
  const haveIoping = onPath('ioping');
  if (!haveIoping) note('ioping not found: install it with `apt-get install -y ioping` (or dnf/yum install ioping); the ioping comparison is skipped');

  // Side by side: all tools run at once on the same disk, so that whatever else the
  // machine does weighs on all of them alike, and take turns within each 100 ms: the
  // CLI's ticks at +0 ms; the addon and the plain loop in two of the slots at +25, +50
  // and +75 ms, changing slots every 10 inspections so that each spends as long in each
  // (other periodic I/O on the machine, another prober say, favours some slots).
  // ioping sleeps 100 ms after each request rather than keeping deadlines: it drifts by
  // its own latency per request through all the slots, crossing the others' turns now
  // and then; that touches tails, not medians.
  const names: Tool[] = [...(haveIoping ? ['ioping' as const] : []), ...SIDES];
  const runs = { ioping: [] as WriteSync[], addon: [] as Timings[], plain: [] as Timings[], cli: [] as Timings[], written: [] as Timings[], unwritten: [] as Timings[] };
  for (let r = 0; r < repeats; r += 1) {
    spin.set(`fidelity: ${names.join(', ')} side by side, run ${r + 1}/${repeats} (${count} inspections at ${INTERVAL_MS} ms)`);
    const watch = await startWatch([{ name: 'x', dir: disk.dir }], { observe: true, samples: true, phase: true, waitForRound: false });
    const phase = await watch.tickPhaseMs();
    await sleep(500);
    watch.mark();
    const at = (offset: number): number => (phase + offset) % INTERVAL_MS;
    const startIoping = async () => {
      const now = Number(process.hrtime.bigint() % BigInt(INTERVAL_MS * 1e6)) / 1e6;
      await sleep((at(75) - now + INTERVAL_MS) % INTERVAL_MS);
      return ioping(disk.dir, count);
    };
    const [io, ad, pl] = await Promise.all([
      haveIoping ? startIoping() : null,
      addon(disk.dir, count, INTERVAL_MS, [at(25), at(50), at(75)]),
      plain(disk.dir, count, INTERVAL_MS, { phasesMs: [at(50), at(75), at(25)] }),
    ]);
    watch.mark();
    await watch.stop();
    if (io) runs.ioping.push(io);
    runs.addon.push(ad);
    runs.plain.push(pl);
    runs.cli.push(cliSamples(watch.readObservation()));

    // Unwritten extents, what slowdisk avoids by writing its data blocks when it makes
    // the probe file: the plain loop on both kinds of file, side by side, over one pass
    // of the 64 blocks (only the first pass converts extents).
    spin.set(`fidelity: plain loop on written and unwritten extents, run ${r + 1}/${repeats}`);
    const [w, u] = await Promise.all([
      plain(disk.dir, BLOCKS - 1, INTERVAL_MS, { phasesMs: [0, 50] }),
      plain(disk.dir, BLOCKS - 1, INTERVAL_MS, { unwritten: true, phasesMs: [50, 0] }),
    ]);
    runs.written.push(w);
    runs.unwritten.push(u);
  }

  // The throttle. Write bios per inspection, counted by the device itself: the
  // difference between a long and a short back-to-back run of the plain loop, so that
  // making and removing its file cancel out.
  spin.set('fidelity: counting write requests per inspection');
  // On unwritten extents both runs stay within the first pass over the 64 blocks.
  const perInspection = async (unwritten: boolean): Promise<{ writes: number; flushes: number }> => {
    const [short, long] = unwritten ? [10, 60] : [10, 410];
    const a = deviceWrites(disk.loop);
    await plain(disk.dir, short, 0, { unwritten });
    const b = deviceWrites(disk.loop);
    await plain(disk.dir, long, 0, { unwritten });
    const c = deviceWrites(disk.loop);
    const extra = (key: 'writes' | 'flushes'): number => (c[key] - b[key] - (b[key] - a[key])) / (long - short);
    return { writes: extra('writes'), flushes: extra('flushes') };
  };
  const written = await perInspection(false);
  const unwrittenIo = await perInspection(true);

  const throttled: Throttled[] = [];
  const throttledCount = SETTINGS.quick ? 10 : 20;
  for (const iops of [20, 10]) {
    throttleDisk(disk, iops);
    const t: Throttled = { iops, addon: [], prober: [], plain: [], unwritten: [] };
    try {
      for (let r = 0; r < repeats; r += 1) {
        spin.set(`fidelity: throttled to ${iops} write IOPS, run ${r + 1}/${repeats}`);
        // Back to back: the throttle is the only thing that sets the pace.
        t.addon.push(await addon(disk.dir, throttledCount, 0));
        t.prober.push(await prober(disk.dir, throttledCount, 0));
        t.plain.push(await plain(disk.dir, throttledCount, 0));
      }
      if (iops === 20) t.unwritten.push(await plain(disk.dir, 10, 0, { unwritten: true }));
    } finally {
      unthrottleDisk(disk);
    }
    throttled.push(t);
  }
  spin.done('fidelity');

  const s = { addon: summaries(runs.addon), plain: summaries(runs.plain), cli: summaries(runs.cli) };
  const io = haveIoping ? summary(runs.ioping, 'writeSync') : null;
  const unwrittenFirstPass = summary(runs.unwritten, 'writeSync');
  const writtenSideBySide = summary(runs.written, 'writeSync');

  const rows: Row[] = [];
  const P = 'fidelity';
  const within = (value: number, lo: number, hi: number): boolean => Number.isFinite(value) && value >= lo && value <= hi;
  rows.push(row(P, 'write+sync median: slowdisk addon / CLI', `${ms(s.addon.writeSync.median)} / ${ms(s.cli.writeSync.median)}`));
  rows.push(row(P, 'write+sync p99: slowdisk addon / CLI', `${ms(s.addon.writeSync.p99)} / ${ms(s.cli.writeSync.p99)}`));
  if (io) {
    rows.push(row(P, 'write+sync median / p99: ioping -D -W', `${ms(io.median)} / ${ms(io.p99)}`));
    const addonMedianRatio = s.addon.writeSync.median / io.median;
    const cliMedianRatio = s.cli.writeSync.median / io.median;
    rows.push(row(P, 'ratio of medians addon / ioping', ratio(addonMedianRatio), '0.8-1.25', within(addonMedianRatio, 0.8, 1.25)));
    rows.push(row(P, 'ratio of medians CLI / ioping', ratio(cliMedianRatio), '0.8-1.25', within(cliMedianRatio, 0.8, 1.25)));
    rows.push(row(P, 'ratio of p99s addon / ioping, CLI / ioping', `${ratio(s.addon.writeSync.p99 / io.p99)}, ${ratio(s.cli.writeSync.p99 / io.p99)}`));
  } else {
    rows.push(row(P, 'ioping comparison', 'skipped: ioping not installed (apt-get install -y ioping)'));
  }
  rows.push(row(P, 'write+sync median: plain C loop', ms(s.plain.writeSync.median)));
  rows.push(row(P, 'inspection median: addon / CLI / plain C', `${ms(s.addon.total.median)} / ${ms(s.cli.total.median)} / ${ms(s.plain.total.median)}`));
  const addonTotal = s.addon.total.median / s.plain.total.median;
  const cliTotal = s.cli.total.median / s.plain.total.median;
  rows.push(row(P, 'inspection ratio addon / plain C', ratio(addonTotal), '0.9-1.1', within(addonTotal, 0.9, 1.1)));
  rows.push(row(P, 'inspection ratio CLI / plain C', ratio(cliTotal), '0.9-1.1', within(cliTotal, 0.9, 1.1)));
  rows.push(row(P, 'write+sync plain C: unwritten / written extents', `${ms(unwrittenFirstPass.median)} / ${ms(writtenSideBySide.median)} (${ratio(unwrittenFirstPass.median / writtenSideBySide.median)} x)`));
  rows.push(row(P, 'write bios per inspection: written / unwritten', `${written.writes.toFixed(2)} / ${unwrittenIo.writes.toFixed(2)} (flushes ${written.flushes.toFixed(2)} / ${unwrittenIo.flushes.toFixed(2)})`));
  const throttledFigures = [];
  for (const t of throttled) {
    // cgroup v1 blk-throttle hands out IOPS x 100 ms bios per 100 ms slice; with
    // back-to-back inspections of k write bios each, one inspection takes k / IOPS.
    const expected = (written.writes / t.iops) * 1000;
    const addonMedian = medianOver(t.addon, (r) => median(r.writeSync));
    const proberMedian = medianOver(t.prober, (r) => median(r.writeSync));
    const plainMedian = medianOver(t.plain, (r) => median(r.writeSync));
    const err = addonMedian / expected - 1;
    const proberErr = proberMedian / expected - 1;
    rows.push(
      row(P, `${t.iops} write IOPS: write+sync addon / prober / plain C`, `${ms(addonMedian)} / ${ms(proberMedian)} / ${ms(plainMedian)} (throttle: ${ms(expected)})`),
    );
    rows.push(row(P, `${t.iops} write IOPS: error vs throttle (addon, prober)`, `${(err * 100).toFixed(1)} %, ${(proberErr * 100).toFixed(1)} %`, '±10 %', Math.abs(err) <= 0.1 && Math.abs(proberErr) <= 0.1));
    const unwrittenMedian = t.unwritten.length > 0 ? median(t.unwritten[0].writeSync) : NaN;
    if (Number.isFinite(unwrittenMedian)) rows.push(row(P, `${t.iops} write IOPS: unwritten extents (plain C)`, ms(unwrittenMedian)));
    throttledFigures.push({
      iops: t.iops,
      expectedMs: expected,
      writeSyncMedianMs: { addon: addonMedian, prober: proberMedian, plain: plainMedian, unwrittenPlain: unwrittenMedian },
      phasesMedianMs: {
        addon: { write: medianOver(t.addon, (r) => median(r.write)), sync: medianOver(t.addon, (r) => median(r.sync)) },
        plain: { write: medianOver(t.plain, (r) => median(r.write)), sync: medianOver(t.plain, (r) => median(r.sync)) },
      },
      errorAddon: err,
      errorProber: proberErr,
    });
  }

  return {
    rows,
    figures: {
      disk: { fs: disk.fs, sizeMib: 64, loop: 'loop device, direct-io=on, backing file on the root filesystem' },
      samplesPerRun: count,
      runs: repeats,
      intervalMs: INTERVAL_MS,
      ioping: haveIoping ? 'ioping -D -W -s 4k -S 256k -L -o 4k -i 100ms' : 'not installed',
      writeSyncMs: Object.fromEntries(names.map((name) => [name, name === 'ioping' ? io : s[name].writeSync])),
      phasesMs: Object.fromEntries(SIDES.map((name) => [name, Object.fromEntries(PHASES.map((k) => [k, s[name][k]]))])),
      inspectionMs: Object.fromEntries(SIDES.map((name) => [name, s[name].total])),
      ratios: io
        ? {
            medianAddonOverIoping: s.addon.writeSync.median / io.median,
            medianCliOverIoping: s.cli.writeSync.median / io.median,
            p99AddonOverIoping: s.addon.writeSync.p99 / io.p99,
            p99CliOverIoping: s.cli.writeSync.p99 / io.p99,
            inspectionAddonOverPlain: addonTotal,
            inspectionCliOverPlain: cliTotal,
          }
        : { inspectionAddonOverPlain: addonTotal, inspectionCliOverPlain: cliTotal },
      plainWriteSyncMsSideBySide: { unwrittenFirstPass: unwrittenFirstPass, written: writtenSideBySide },
      writeBiosPerInspection: { written, unwritten: unwrittenIo },
      throttled: throttledFigures,
      runMedians: Object.fromEntries(names.map((name) => [name, runs[name].map((r) => median(r.writeSync))])),
    },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: 'fidelity', run: fidelity }]);
