// Overhead: what `slowdisk watch` costs the node it watches. CPU time (the scheduler's, every
// thread of the CLI and of its prober) and peak RSS (VmHWM) with two disks at the default
// 100 ms over a window, next to the floor: the same syscalls from the plain C loop on the
// same disks, one per disk, in a window of its own just before or after (taking turns from
// run to run), and then again side by side with slowdisk in one window, a third of the
// interval away from its ticks (PSS is memory.py's: this harness is a Node process itself,
// and would take a share of slowdisk's pages); then
// the cost of one inspection's path, on tmpfs where the syscalls cost next to nothing: the
// plain C loop, the addon called from JS, and the prober on its own schedule.
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import type { HarnessOutput } from './harness.js';
import {
  HARNESS,
  SETTINGS,
  benchDir,
  floorPhasesMs,
  inTurn,
  cpuMs,
  isMain,
  makeDisk,
  mib,
  median,
  medianOver,
  memory,
  ms,
  numbersOf,
  onCleanup,
  pct,
  plainLoop,
  progress,
  row,
  run,
  runParts,
  startWatch,
  watchWindow,
  type Disk,
  type Floors,
  type PartResult,
  type Progress,
  type WindowCpu,
} from './lib.js';

/** CPU of CLI + prober at most this many times the C loop's, at 2 disks (and scale.ts's at 64). */
export const TARGET_CPU_RATIO_2_DISKS = 2.0;
const TARGET_RSS_MIB = 80;
/**
 * The windows start this long after the first round: until then the CLI still compiles its
 * code and collects its start-up garbage (a 30 s window from 6 s after the start took 2.7 ms
 * of the CLI's CPU a second, one from 30 s 1.2 ms). That part is a figure of its own.
 */
const WARM_UP_MS = 30_000;

async function watchTwoDisks(disks: readonly Disk[], spin: Progress, r: number) {
  const label = `2 disks, run ${r + 1}/${SETTINGS.repeats}`;
  spin.set(`overhead: starting slowdisk watch, ${label}`);
  const watch = await startWatch(disks.map((disk, i) => ({ name: `d${i}`, dir: disk.dir })), { phase: true });
  try {
    const phasesMs = floorPhasesMs(await watch.tickPhaseMs());
    const startup = { cli: cpuMs(watch.pid), prober: cpuMs(watch.proberPid) };
    const warmUp = await watchWindow(watch, WARM_UP_MS / 1000, { onSecond: (left) => spin.set(`overhead: slowdisk watch warming up, ${label}: ${left} s left`) });
    const alone = await watchWindow(watch, SETTINGS.windowS, { onSecond: (left) => spin.set(`overhead: slowdisk watch alone, ${label}: ${left} s left`) });
    // Then the floors beside it, between its ticks: the same syscalls from the plain C loop, one per disk, alone and with slowdisk's checks.
    const beside = await watchWindow(watch, SETTINGS.windowS, {
      floorDirs: disks.map((disk) => disk.dir),
      phasesMs,
      onSecond: (left) => spin.set(`overhead: slowdisk watch with the C loops beside it, ${label}: ${left} s left`),
    });
    const cli = memory(watch.pid);
    const prober = memory(watch.proberPid);
    return {
      ...alone,
      beside,
      startupCpuMs: startup.cli + startup.prober,
      warmUpCpuPct: warmUp.cpuPct,
      cliHwmKiB: cli.hwmKiB,
      proberHwmKiB: prober.hwmKiB,
      hwmSumKiB: cli.hwmKiB + prober.hwmKiB,
      rounds: (watch.stdout().match(/ tick \d+ /g) ?? []).length,
    };
  } finally {
    await watch.stop();
  }
}

/** A small tmpfs of the bench's own, unmounted at the end. */
function makeTmpfs(dir: string): string {
  mkdirSync(dir, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=700', 'slowdisk-bench', dir]);
  onCleanup(() => {
    execFileSync('umount', [dir]);
    rmdirSync(dir);
  });
  return dir;
}

const TMPFS_COUNT = SETTINGS.quick ? 300 : 1000;
const TMPFS_INTERVAL_MS = 10;

async function tmpfsRun(dir: string) {
  // Side by side, taking turns within each 10 ms (phases rotate every 10 inspections).
  const phases = (list: readonly number[]): string => list.map((p) => p.toFixed(3)).join(',');
  const [c, worker, prober] = await Promise.all([
    run(plainLoop(), [dir, String(TMPFS_COUNT + 1), String(TMPFS_INTERVAL_MS), '4096', '64', 'written', phases([0, 3.3, 6.6])]),
    run(process.execPath, [HARNESS, 'worker', dir, String(TMPFS_COUNT), String(TMPFS_INTERVAL_MS), phases([3.3, 6.6, 0])]),
    run(process.execPath, [HARNESS, 'prober', dir, String(TMPFS_COUNT), String(TMPFS_INTERVAL_MS), phases([6.6, 0, 3.3])]),
  ]);
  const cRows = numbersOf(c.stdout).slice(1);
  const cCpuNs = Number(/# cpu_ns (\d+)/.exec(c.stdout)?.[1]);
  const w = JSON.parse(worker.stdout) as HarnessOutput;
  const i = JSON.parse(prober.stdout) as HarnessOutput;
  return {
    plainTotalUs: median(cRows.map((r) => r[5] / 1e3)),
    plainCpuUs: cCpuNs / (TMPFS_COUNT + 1) / 1e3,
    addonNativeTotalUs: median(w.rows.map((r) => r[5] / 1e3)),
    addonRoundTripUs: median(w.rows.map((r) => r[6] / 1e3)),
    addonCpuUs: w.cpuNs / w.rows.length / 1e3,
    proberNativeTotalUs: median(i.rows.map((r) => r[5] / 1e3)),
    proberRecordedUs: median(i.rows.map((r) => r[6] / 1e3)),
    proberCpuUs: i.cpuNs / i.rows.length / 1e3,
    proberCliCpuUs: (i.selfCpuNs ?? NaN) / i.rows.length / 1e3,
    proberOwnCpuUs: (i.proberCpuNs ?? NaN) / i.rows.length / 1e3,
  };
}

/** One repeat over two disks: slowdisk's windows and the floors' own. */
type TwoDiskRun = Awaited<ReturnType<typeof watchTwoDisks>> & Floors;
type TmpfsRun = Awaited<ReturnType<typeof tmpfsRun>>;

export async function overhead(): Promise<PartResult> {
  const spin = progress('overhead: making two loop-device disks');
  const base = benchDir('overhead');
  const disks = [makeDisk(join(base, 'a'), 64), makeDisk(join(base, 'b'), 64)];
  const runs: TwoDiskRun[] = [];
  for (let r = 0; r < SETTINGS.repeats; r += 1) {
    const dirs = disks.map((disk) => disk.dir);
    const onFloors = () => spin.set(`overhead: the C loops alone, 2 disks, run ${r + 1}/${SETTINGS.repeats}: ${SETTINGS.windowS} s`);
    runs.push(await inTurn(r, () => watchTwoDisks(disks, spin, r), dirs, onFloors));
  }

  const tmpfs = makeTmpfs(join(base, 'tmpfs'));
  const tmpfsRuns: TmpfsRun[] = [];
  for (let r = 0; r < SETTINGS.repeats; r += 1) {
    spin.set(`overhead: one inspection on tmpfs, C / addon / IPC side by side, run ${r + 1}/${SETTINGS.repeats}`);
    tmpfsRuns.push(await tmpfsRun(tmpfs));
  }
  spin.done('overhead');

  const f = (key: Exclude<keyof TwoDiskRun, 'beside'>): number => medianOver(runs, (x) => x[key]);
  const t = (key: keyof TmpfsRun): number => medianOver(tmpfsRuns, (x) => x[key]);
  const us = (value: number): string => ms(value / 1000);
  const P = 'overhead';
  const cpu = f('cpuPct');
  const hwmSumMib = f('hwmSumKiB') / 1024;
  const plain = f('plainPct');
  const ratio = cpu / plain;
  const b = (key: keyof WindowCpu | keyof Floors): number => medianOver(runs, (x) => x.beside[key] ?? NaN);
  const besideRatio = medianOver(runs, (x) => x.beside.cpuPct / (x.beside.plainPct ?? NaN));
  const rows = [
    row(P, `CPU, watch 2 disks @100 ms (CLI + prober), ${SETTINGS.windowS} s`, `${pct(cpu)} of one core (CLI ${pct(f('cliPct'))}, prober ${pct(f('proberPct'))})`),
    row(P, 'CPU floor: the same syscalls from C, 2 disks, a window of their own', `${pct(plain)} of one core`),
    row(P, 'CPU over the C floor, 2 disks', `${ratio.toFixed(2)}x`, `<= ${TARGET_CPU_RATIO_2_DISKS.toFixed(1)}x`, ratio <= TARGET_CPU_RATIO_2_DISKS),
    row(P, "CPU floor: the C loop with slowdisk's checks, 2 disks, a window of their own", `${pct(f('checkedPct'))} of one core; slowdisk ${(cpu / f('checkedPct')).toFixed(2)}x it`),
    row(
      P,
      'the same side by side in one window, the C loops between its ticks',
      `slowdisk ${pct(b('cpuPct'))} (CLI ${pct(b('cliPct'))}, prober ${pct(b('proberPct'))}), C loop ${pct(b('plainPct'))}, with checks ${pct(b('checkedPct'))}: ${besideRatio.toFixed(2)}x`,
    ),
    row(P, 'CPU at start-up (to the first round)', `${f('startupCpuMs').toFixed(0)} ms`),
    row(P, `CPU over the ${WARM_UP_MS / 1000} s after the first round, before the windows`, `${pct(f('warmUpCpuPct'))} of one core`),
    row(P, 'peak RSS (VmHWM): CLI + prober', `${mib(f('hwmSumKiB'))} (CLI ${mib(f('cliHwmKiB'))}, prober ${mib(f('proberHwmKiB'))})`, `<= ${TARGET_RSS_MIB} MiB`, hwmSumMib <= TARGET_RSS_MIB),
    row(P, 'tmpfs inspection: plain C syscalls', `${us(t('plainTotalUs'))} (CPU ${us(t('plainCpuUs'))})`),
    row(P, 'tmpfs: addon from JS, round trip', `${us(t('addonRoundTripUs'))} (native ${us(t('addonNativeTotalUs'))}, CPU ${us(t('addonCpuUs'))})`),
    row(
      P,
      'tmpfs: the prober on its own ticks',
      `start to record ${us(t('proberRecordedUs'))} (native ${us(t('proberNativeTotalUs'))}), CPU ${us(t('proberCpuUs'))} (CLI side ${us(t('proberCliCpuUs'))}, prober ${us(t('proberOwnCpuUs'))})`,
    ),
    row(P, 'per-inspection CPU over C: addon from JS / prober on its ticks', `${us(t('addonCpuUs') - t('plainCpuUs'))} / ${us(t('proberCpuUs') - t('plainCpuUs'))}`),
  ];
  return {
    rows,
    figures: {
      watchTwoDisks: {
        windowS: SETTINGS.windowS,
        warmUpMs: WARM_UP_MS,
        cpuPctOfOneCore: cpu,
        cliCpuPct: f('cliPct'),
        proberCpuPct: f('proberPct'),
        startupCpuMs: f('startupCpuMs'),
        warmUpCpuPct: f('warmUpCpuPct'),
        vmHwmKiB: { cli: f('cliHwmKiB'), prober: f('proberHwmKiB'), sum: f('hwmSumKiB') },
        targets: { cpuRatioToC: TARGET_CPU_RATIO_2_DISKS, rssMiB: TARGET_RSS_MIB },
        cpuRatioToC: ratio,
      },
      plainLoopSyscalls: { cpuPctOfOneCore: plain, note: 'dev/bench/plain-loop.c, one per disk at 100 ms, in a window of its own just before or after slowdisk' },
      plainLoopWithChecks: { cpuPctOfOneCore: f('checkedPct'), note: 'the same with PLAIN_LOOP_CHECKED=1' },
      sideBySide: { cpuPctOfOneCore: b('cpuPct'), plainPct: b('plainPct'), checkedPct: b('checkedPct'), cpuRatioToC: besideRatio, note: 'slowdisk and both loops in the same window, the loops a third of the interval either side of its ticks' },
      tmpfsPerInspectionUs: {
        inspections: TMPFS_COUNT,
        intervalMs: TMPFS_INTERVAL_MS,
        plain: { total: t('plainTotalUs'), cpu: t('plainCpuUs') },
        addon: { roundTrip: t('addonRoundTripUs'), nativeTotal: t('addonNativeTotalUs'), cpu: t('addonCpuUs') },
        prober: { startToRecord: t('proberRecordedUs'), nativeTotal: t('proberNativeTotalUs'), cpu: t('proberCpuUs'), cliCpu: t('proberCliCpuUs'), proberCpu: t('proberOwnCpuUs') },
      },
      runs,
      tmpfsRuns,
    },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: 'overhead', run: overhead }]);
