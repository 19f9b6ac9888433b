// Tick accuracy: how late the prober's native threads start each tick's inspection, idle and
// with every core kept busy by other processes: the inspection's start less its tick's
// deadline on the session's schedule, read from inside the real `slowdisk watch` by
// dev/bench/observer.ts; slowdisk itself has no hook for this.
import { cpus } from 'node:os';
import { join } from 'node:path';
import {
  SETTINGS,
  benchDir,
  isMain,
  makeDisk,
  medianOver,
  ms,
  progress,
  quantile,
  row,
  runParts,
  sleep,
  startLoad,
  startWatch,
  type Disk,
  type PartResult,
  type Progress,
} from './lib.js';
import type { Observation } from './observation.js';

const TARGET_P99_IDLE_MS = 5;
const INTERVAL_MS = 100;

/** Lateness of the inspections' starts between the two marks of an observed run. */
export function windowLateness(observed: Observation): number[] {
  const [from, to] = observed.snapshots;
  return observed.lateness.slice(from.starts, to.starts);
}

export interface LatenessFigures {
  starts: number;
  p50: number;
  p99: number;
  max: number;
  /** Starts an interval or more late: a tick lost as far as timing goes. */
  missed: number;
}

export function latenessFigures(lateness: readonly number[]): LatenessFigures {
  return {
    starts: lateness.length,
    p50: quantile(lateness, 0.5),
    p99: quantile(lateness, 0.99),
    max: Math.max(...lateness),
    missed: lateness.filter((late) => late >= INTERVAL_MS).length,
  };
}

async function observedRun(disks: readonly Disk[], label: string, spin: Progress): Promise<LatenessFigures> {
  spin.set(`ticks: ${label}: starting slowdisk watch`);
  const watch = await startWatch(disks.map((disk, i) => ({ name: `d${i}`, dir: disk.dir })), { observe: true });
  try {
    await sleep(2000);
    watch.mark();
    for (let left = SETTINGS.windowS; left > 0; left -= 1) {
      spin.set(`ticks: ${label}: ${left} s left`);
      await sleep(1000);
    }
    watch.mark();
    spin.set(`ticks: ${label}: stopping slowdisk watch`);
  } finally {
    await watch.stop();
  }
  return latenessFigures(windowLateness(watch.readObservation()));
}

export async function ticks(): Promise<PartResult> {
  const spin = progress('ticks: making two loop-device disks');
  const base = benchDir('ticks');
  const disks = [makeDisk(join(base, 'a'), 64), makeDisk(join(base, 'b'), 64)];
  const hogs = cpus().length;
  const idle: LatenessFigures[] = [];
  const loaded: LatenessFigures[] = [];
  for (let r = 0; r < SETTINGS.repeats; r += 1) {
    idle.push(await observedRun(disks, `idle, run ${r + 1}/${SETTINGS.repeats}`, spin));
    const load = startLoad(hogs);
    try {
      await sleep(1000);
      loaded.push(await observedRun(disks, `${hogs} busy processes, run ${r + 1}/${SETTINGS.repeats}`, spin));
    } finally {
      await load.stop();
    }
  }
  spin.done('ticks');

  const f = (runs: readonly LatenessFigures[], key: keyof LatenessFigures): number => medianOver(runs, (x) => x[key]);
  const P = 'ticks';
  const idleP99 = f(idle, 'p99');
  const rows = [
    row(P, `lateness idle, p50 / p99 (${SETTINGS.windowS} s, 2 disks)`, `${ms(f(idle, 'p50'))} / ${ms(idleP99)}`, `p99 < ${TARGET_P99_IDLE_MS} ms`, idleP99 < TARGET_P99_IDLE_MS),
    row(P, 'lateness idle: max, ticks >= 100 ms late', `${ms(f(idle, 'max'))}, ${f(idle, 'missed')}`),
    row(P, `lateness, ${hogs} busy loops (yes): p50 / p99`, `${ms(f(loaded, 'p50'))} / ${ms(f(loaded, 'p99'))}`),
    row(P, `lateness, ${hogs} busy loops: max, ticks >= 100 ms late`, `${ms(f(loaded, 'max'))}, ${f(loaded, 'missed')}`),
  ];
  const summary = (runs: readonly LatenessFigures[]): LatenessFigures => ({
    p50: f(runs, 'p50'),
    p99: f(runs, 'p99'),
    max: f(runs, 'max'),
    missed: f(runs, 'missed'),
    starts: f(runs, 'starts'),
  });
  return {
    rows,
    figures: {
      method: "dev/bench/observer.ts preloaded into `slowdisk watch` (node --import) wraps ProbeSession.prototype.onBatch: each inspection's start less its tick's deadline",
      windowS: SETTINGS.windowS,
      latenessMs: { idle: summary(idle), loaded: summary(loaded) },
      load: `${hogs} x yes > /dev/null`,
      targets: { p99IdleMs: TARGET_P99_IDLE_MS },
      runs: { idle, loaded },
    },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: 'ticks', run: ticks }]);
