// Scale: one `slowdisk watch` over many small loop-device filesystems at 100 ms, as a user
// runs it: CPU and peak RSS, next to the same syscalls from the plain C loop on the same
// disks in a window of their own (and then side by side with it in one window); in a run of
// its own with the observer inside the CLI (which costs the CLI CPU), tick lateness and
// whether every disk gets its inspection on every tick, with a C loop beside it on each
// healthy disk to tell whose every tick missed is, the disk's or slowdisk's
// (attribution.ts); then the same with one of them frozen (fsfreeze), which
// must not cost the healthy ones a single tick. BENCH_BACKING=shm keeps the disks' images on
// tmpfs, whose store cannot stall. Every disk is thawed and removed at the end, also on
// failure or Ctrl-C (lib.ts registers the clean-up before making each one).
import { join } from 'node:path';
import { attributeTicks, inspectedInWindow, loopInspections, type AttributedCount, type MissKind } from './attribution.js';
import {
  BACKING_DIRS,
  SETTINGS,
  alive,
  benchDir,
  floorPhasesMs,
  inTurn,
  freezeDisk,
  isMain,
  makeDisk,
  mib,
  medianOver,
  memory,
  ms,
  pct,
  plainLoop,
  progress,
  row,
  run,
  runParts,
  sleep,
  startWatch,
  thawDisk,
  waitUntil,
  watchWindow,
  type Disk,
  type Floors,
  type PartResult,
  type Progress,
  type Row,
  type Watch,
  type WindowCpu,
} from './lib.js';
import { latenessFigures, windowLateness } from './ticks.js';

/** CPU of CLI + prober at most this many times the C loop's, at 64 disks. */
const TARGET_CPU_RATIO = 1.2;
/** A measured window starts this long after the first round, once the CLI has compiled its code and collected its start-up garbage (overhead.ts). */
const WARM_UP_MS = 30_000;
/** An observed one sooner: lateness and missed ticks do not wait for that. */
const OBSERVED_WARM_UP_MS = 5000;
/** After an observed window, its last records are on their way: batches come at most a second apart. */
const LAST_BATCH_MS = 2000;
/**
 * The C loops beside an observed window start this long before it and end as long after: each
 * first writes its probe file (64 blocks and a flush), a burst of I/O kept out of the window.
 */
const LOOP_LEAD_S = 2;

const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** One of the scale run's disks, by the name watch knows it by. */
type NamedDisk = Disk & { name: string };

interface RunOptions {
  /** The disk frozen through the run's windows, if any. */
  freeze?: NamedDisk | null;
  label: string;
  spin: Progress;
}

/** Freezes `disk` (if any) and lets its inspection in flight get stuck before a window starts. */
async function freezeFirst(disk: NamedDisk | null): Promise<void> {
  if (!disk) return;
  freezeDisk(disk);
  await sleep(1000);
}

/** After the CLI has exited: a prober stuck in the kernel on the frozen disk outlives it until the thaw lets its write return. */
async function thawAfter(disk: NamedDisk, watch: Watch): Promise<void> {
  thawDisk(disk);
  if (!(await waitUntil(() => !alive(watch.proberPid), 15_000))) throw new Error(`the prober (pid ${watch.proberPid}) did not exit after the thaw`);
}

/**
 * CPU and peak RSS of `watch` as a user runs it (the observer reports only where the ticks
 * fall), alone; on healthy disks then also with the floors beside it in a second window,
 * between its ticks.
 */
async function measuredRun(disks: readonly NamedDisk[], { freeze = null, label, spin }: RunOptions) {
  const targets = disks.map((disk) => ({ name: disk.name, dir: disk.dir }));
  spin.set(`scale: ${label}: starting slowdisk watch`);
  const watch = await startWatch(targets, { phase: true });
  let frozen: NamedDisk | null = null;
  try {
    const phasesMs = floorPhasesMs(await watch.tickPhaseMs());
    await sleep(WARM_UP_MS);
    await freezeFirst(freeze);
    frozen = freeze;
    const alone = await watchWindow(watch, SETTINGS.windowS, { onSecond: (left) => spin.set(`scale: ${label}: ${left} s left`) });
    const beside = freeze
      ? null
      : await watchWindow(watch, SETTINGS.windowS, {
          floorDirs: disks.map((disk) => disk.dir),
          phasesMs,
          onSecond: (left) => spin.set(`scale: ${label}, the C loops beside it: ${left} s left`),
        });
    spin.set(`scale: ${label}: stopping slowdisk watch${freeze ? ', thawing' : ''}`);
    const cli = memory(watch.pid);
    const prober = memory(watch.proberPid);
    await watch.stop();
    if (frozen) {
      const thawing = frozen;
      frozen = null;
      await thawAfter(thawing, watch);
    }
    return { ...alone, beside, hwmSumKiB: cli.hwmKiB + prober.hwmKiB, cliHwmKiB: cli.hwmKiB, proberHwmKiB: prober.hwmKiB };
  } finally {
    if (frozen) thawDisk(frozen);
    await watch.stop();
  }
}

/**
 * Tick lateness, and whether every healthy disk got its inspection on every tick, seen from
 * inside the CLI; with a C loop on each healthy disk in the same window, a third of an
 * interval off its ticks, each missed tick attributed to the disk or to slowdisk.
 */
async function observedRun(disks: readonly NamedDisk[], { freeze = null, label, spin }: RunOptions) {
  const targets = disks.map((disk) => ({ name: disk.name, dir: disk.dir }));
  const healthy = disks.filter((disk) => disk !== freeze);
  spin.set(`scale: ${label}, observed: starting slowdisk watch`);
  const watch = await startWatch(targets, { observe: true, phase: true });
  let frozen: NamedDisk | null = null;
  try {
    const [loopPhaseMs] = floorPhasesMs(await watch.tickPhaseMs());
    const loop = plainLoop();
    await sleep(OBSERVED_WARM_UP_MS);
    await freezeFirst(freeze);
    frozen = freeze;
    const inspections = String((SETTINGS.windowS + 2 * LOOP_LEAD_S) * 10);
    const loops = Promise.all(healthy.map((disk) => run(loop, [disk.dir, inspections, '100', '4096', '64', 'written', loopPhaseMs.toFixed(3)])));
    // Awaited below; should the window fail first, the clean-up ends them, and that is no news.
    loops.catch(() => {});
    await sleep(LOOP_LEAD_S * 1000);
    const fromMs = monotonicMs();
    watch.mark();
    for (let left = SETTINGS.windowS; left > 0; left -= 1) {
      spin.set(`scale: ${label}, observed, a C loop beside it on each healthy disk: ${left} s left`);
      await sleep(1000);
    }
    watch.mark();
    const toMs = monotonicMs();
    const loopOutputs = await loops;
    await sleep(LAST_BATCH_MS);
    spin.set(`scale: ${label}, observed: stopping slowdisk watch${freeze ? ', thawing' : ''}`);
    await watch.stop();
    if (frozen) {
      const thawing = frozen;
      frozen = null;
      await thawAfter(thawing, watch);
    }
    const observed = watch.readObservation();
    const window = { fromMs, toMs };
    const attributed = attributeTicks(observed, {
      ...window,
      healthy: healthy.map((disk) => disk.name),
      loops: new Map(healthy.map((disk, i) => [disk.name, loopInspections(loopOutputs[i].stdout)])),
    });
    const scores = healthy.map((disk) => observed.scores?.[disk.name] ?? NaN);
    return {
      ticks: attributed.ticks,
      lateness: latenessFigures(windowLateness(observed)),
      healthyDisks: healthy.length,
      minInspectionsPerTick: attributed.minInspectionsPerTick,
      healthyMissedTicks: attributed.missed,
      healthyDisksMissing: attributed.disksMissing,
      healthyTimeouts: attributed.timeouts,
      attributed: {
        disks: attributed.disks,
        slowdisks: attributed.slowdisks,
        slowdiskTicks: attributed.slowdiskTicks,
        slowdiskKinds: attributed.slowdiskKinds,
        loopSlow: attributed.loopSlow,
        loopInspections: attributed.loopInspections,
        loopsShort: attributed.loopsShort,
      },
      healthyMaxScore: Math.max(...scores),
      frozenInspections: freeze ? inspectedInWindow(observed, freeze.name, window) : null,
      frozenScore: freeze ? observed.scores?.[freeze.name] ?? null : null,
    };
  } finally {
    if (frozen) thawDisk(frozen);
    await watch.stop();
  }
}

/** A measured run and an observed one, their figures together. */
async function measure(disks: readonly NamedDisk[], options: RunOptions) {
  return { ...(await measuredRun(disks, options)), ...(await observedRun(disks, options)) };
}

type ScaleRun = Awaited<ReturnType<typeof measure>>;

/** On healthy disks, `measure` and the floors alone, in turn with slowdisk. */
function healthyRun(disks: readonly NamedDisk[], repeat: number, options: RunOptions): Promise<ScaleRun & Floors> {
  return inTurn(repeat, () => measure(disks, options), disks.map((disk) => disk.dir), () => options.spin.set(`scale: ${options.label}: the C loops alone, ${SETTINGS.windowS} s`));
}

/** A figure of a run's window with the floors beside slowdisk (healthy runs have one). */
const beside = (run: ScaleRun, key: keyof WindowCpu | keyof Floors): number => run.beside?.[key] ?? NaN;

/** The part's name, and its rows': the images on tmpfs are a variant of their own. */
export const SCALE_PART = SETTINGS.backing === 'shm' ? 'scale-shm' : 'scale';

export async function scale(): Promise<PartResult> {
  const count = SETTINGS.scaleDisks;
  const backingDir = BACKING_DIRS[SETTINGS.backing];
  const spin = progress(`scale: making ${count} loop-device ext4 disks, their images in ${backingDir}`);
  const base = benchDir('scale');
  const disks: NamedDisk[] = [];
  for (let i = 0; i < count; i += 1) {
    spin.set(`scale: making loop-device ext4 disk ${i + 1}/${count} (16 MiB)`);
    const name = `d${String(i).padStart(2, '0')}`;
    disks.push({ ...makeDisk(join(base, name), 16, { backingDir }), name });
  }
  const healthy: (ScaleRun & Floors)[] = [];
  const frozen: ScaleRun[] = [];
  for (let r = 0; r < SETTINGS.repeats; r += 1) {
    healthy.push(await healthyRun(disks, r, { label: `${count} healthy disks, run ${r + 1}/${SETTINGS.repeats}`, spin }));
    frozen.push(await measure(disks, { freeze: disks[0], label: `${count} disks, ${disks[0].name} frozen, run ${r + 1}/${SETTINGS.repeats}`, spin }));
  }
  spin.set(`scale: removing ${count} disks`);
  spin.done('scale');

  const f = medianOver;
  const sum = (runs: readonly ScaleRun[], pick: (run: ScaleRun) => number): number => runs.reduce((n, x) => n + pick(x), 0);
  const P = SCALE_PART;
  const rows: Row[] = [];
  const sets: [string, ScaleRun[]][] = [
    ['healthy', healthy],
    ['1 frozen', frozen],
  ];
  for (const [label, runs] of sets) {
    const cpu = f(runs, (x) => x.cpuPct);
    const missedTicks = sum(runs, (x) => x.healthyMissedTicks);
    rows.push(row(P, `${count} disks, ${label}: CPU (CLI + prober)`, `${pct(cpu)} of one core (CLI ${pct(f(runs, (x) => x.cliPct))}, prober ${pct(f(runs, (x) => x.proberPct))})`));
    if (runs === healthy) {
      const plain = f(healthy, (x) => x.plainPct);
      rows.push(row(P, `${count} disks: CPU floor, the same syscalls from ${count} C loops, a window of their own`, `${pct(plain)} of one core`));
      rows.push(row(P, `${count} disks: CPU over the C floor`, `${(cpu / plain).toFixed(2)}x`, `<= ${TARGET_CPU_RATIO.toFixed(1)}x`, cpu / plain <= TARGET_CPU_RATIO));
      const checked = f(healthy, (x) => x.checkedPct);
      rows.push(row(P, `${count} disks: CPU floor, the C loops with slowdisk's checks, a window of their own`, `${pct(checked)} of one core; slowdisk ${(cpu / checked).toFixed(2)}x it`));
      const b = (key: keyof WindowCpu | keyof Floors): number => f(healthy, (x) => beside(x, key));
      rows.push(
        row(
          P,
          `${count} disks: the same side by side in one window, the C loops between its ticks`,
          `slowdisk ${pct(b('cpuPct'))} (CLI ${pct(b('cliPct'))}, prober ${pct(b('proberPct'))}), C loops ${pct(b('plainPct'))}, with checks ${pct(b('checkedPct'))}: ${f(healthy, (x) => beside(x, 'cpuPct') / beside(x, 'plainPct')).toFixed(2)}x`,
        ),
      );
    }
    rows.push(row(P, `${count} disks, ${label}: peak RSS CLI + prober`, `${mib(f(runs, (x) => x.hwmSumKiB))} (CLI ${mib(f(runs, (x) => x.cliHwmKiB))}, prober ${mib(f(runs, (x) => x.proberHwmKiB))})`));
    rows.push(row(P, `${count} disks, ${label}: tick lateness p50 / p99 / max`, `${ms(f(runs, (x) => x.lateness.p50))} / ${ms(f(runs, (x) => x.lateness.p99))} / ${ms(f(runs, (x) => x.lateness.max))}`));
    rows.push(
      row(
        P,
        `${count} disks, ${label}: healthy disks' missed ticks`,
        `${missedTicks} in ${sum(runs, (x) => x.ticks * x.healthyDisks)} disk-ticks (min inspections/tick ${f(runs, (x) => x.minInspectionsPerTick).toFixed(3)}; timeouts ${sum(runs, (x) => x.healthyTimeouts)})`,
        '0',
        missedTicks === 0 && sum(runs, (x) => x.healthyTimeouts) === 0,
      ),
    );
    const a = (key: Exclude<AttributedCount, 'missed' | 'timeouts'>): number => sum(runs, (x) => x.attributed[key]);
    const slowdiskTicks = sum(runs, (x) => x.attributed.slowdiskTicks.length);
    const kinds = (kind: MissKind): number => sum(runs, (x) => x.attributed.slowdiskKinds[kind]);
    rows.push(
      row(
        P,
        `${count} disks, ${label}: those missed ticks and timeouts, the disk's / slowdisk's`,
        `${a('disks')} / ${a('slowdisks')} (slowdisk's at ${slowdiskTicks} ticks: ${kinds('missed')} missed, ${kinds('timeout')} timeouts, ${kinds('late')} late, ${kinds('error')} errors; the C loops beside it ${a('loopSlow')} inspections >= 100 ms in ${a('loopInspections')}${a('loopsShort') > 0 ? `, ${a('loopsShort')} of them not over the whole window` : ''})`,
        "slowdisk's 0",
        a('slowdisks') === 0,
      ),
    );
    const worst = runs.reduce((w, x, i) => (x.attributed.slowdisks > runs[w].attributed.slowdisks ? i : w), 0);
    rows.push(
      row(
        P,
        `${count} disks, ${label}: per run, the disk's / slowdisk's: median; worst run`,
        `${f(runs, (x) => x.attributed.disks)} / ${f(runs, (x) => x.attributed.slowdisks)}; run ${worst + 1}: ${runs[worst].attributed.disks} / ${runs[worst].attributed.slowdisks}`,
      ),
    );
  }
  rows.push(row(P, `frozen disk: inspections in window, score`, `${f(frozen, (x) => x.frozenInspections ?? NaN)}, ${f(frozen, (x) => x.frozenScore ?? NaN)}`));
  return {
    rows,
    figures: {
      disks: count,
      diskSizeMib: 16,
      backing: { setting: SETTINGS.backing, dir: backingDir },
      windowS: SETTINGS.windowS,
      targets: { cpuRatioToC: TARGET_CPU_RATIO, missedTicksOnHealthyDisks: 0, slowdisksMissedTicks: 0 },
      attribution:
        "each healthy disk's tick in the observed window without a clean inspection (none, a timeout, late, an error): the disk's when plain-loop.c on the same disk, a third of an interval off the ticks, had an inspection of 100 ms or more overlapping the tick's time (its deadline to its timeout or its result), slowdisk's otherwise",
      healthy: { cpuPct: f(healthy, (x) => x.cpuPct), hwmSumKiB: f(healthy, (x) => x.hwmSumKiB), runs: healthy },
      oneFrozen: { cpuPct: f(frozen, (x) => x.cpuPct), hwmSumKiB: f(frozen, (x) => x.hwmSumKiB), runs: frozen },
      plainLoopSyscalls: { cpuPct: f(healthy, (x) => x.plainPct), note: 'in a window of its own just before or after the healthy run' },
      plainLoopWithChecks: { cpuPct: f(healthy, (x) => x.checkedPct), note: 'PLAIN_LOOP_CHECKED=1, in a window of its own just before or after the healthy run' },
      sideBySide: {
        cpuPct: f(healthy, (x) => beside(x, 'cpuPct')),
        plainPct: f(healthy, (x) => beside(x, 'plainPct')),
        checkedPct: f(healthy, (x) => beside(x, 'checkedPct')),
        note: 'slowdisk and both loops in the same window, the loops a third of the interval either side of its ticks',
      },
    },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: SCALE_PART, run: scale }]);
