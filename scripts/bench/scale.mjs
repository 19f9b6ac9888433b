// Scale: one `slowdisk watch` over many small loop-device filesystems at 100 ms: CPU,
// next to the same syscalls from the plain C loop on the same disks in the same window,
// peak RSS, tick lateness, and whether every disk gets its inspection on every tick;
// then the same with one of them frozen (fsfreeze), which must not cost the healthy
// ones a single tick. Every disk is thawed and removed at the end, also on failure or
// Ctrl-C (scripts/bench/lib.mjs registers the clean-up before making each one).
import { join } from 'node:path';
import {
  SETTINGS,
  alive,
  benchDir,
  cFloors,
  freezeDisk,
  isMain,
  makeDisk,
  mb,
  medianOver,
  memory,
  ms,
  pct,
  progress,
  row,
  runParts,
  sampleProcesses,
  sleep,
  startWatch,
  thawDisk,
  waitUntil,
} from './lib.mjs';
import { latenessFigures, windowLateness } from './ticks.mjs';

/** CPU of CLI + prober at most this many times the C loop's, at 64 disks. */
const TARGET_CPU_RATIO = 1.2;
const WARM_UP_MS = 5000;

async function observedRun(disks, { freeze = null, label, spin }) {
  const targets = disks.map((disk) => ({ name: disk.name, dir: disk.dir }));
  spin.set(`scale: ${label}: starting slowdisk watch`);
  const watch = await startWatch(targets, { observe: true });
  let frozen = false;
  try {
    await sleep(WARM_UP_MS);
    if (freeze) {
      freezeDisk(freeze);
      frozen = true;
      // Its inspection in flight, if any, ends up stuck; the window starts after that.
      await sleep(1000);
    }
    const s0 = sampleProcesses(watch);
    watch.mark();
    // The floors, side by side: the same syscalls from C, one loop per disk, at 100 ms, alone and with slowdisk's checks.
    const floors = freeze ? null : cFloors(disks.map((disk) => disk.dir), SETTINGS.windowS);
    for (let left = SETTINGS.windowS; left > 0; left -= 1) {
      spin.set(`scale: ${label}: ${left} s left`);
      await sleep(1000);
    }
    watch.mark();
    const s1 = sampleProcesses(watch);
    const { plainPct = null, checkedPct = null } = (await floors) ?? {};
    spin.set(`scale: ${label}: stopping slowdisk watch${freeze ? ', thawing' : ''}`);
    const cli = memory(watch.pid);
    const prober = memory(watch.proberPid);
    await watch.stop();
    if (frozen) {
      // The prober is stuck in the kernel on the frozen disk and outlives the CLI until
      // the disk lets its write return.
      thawDisk(freeze);
      frozen = false;
      if (!(await waitUntil(() => !alive(watch.proberPid), 15_000))) throw new Error(`the prober (pid ${watch.proberPid}) did not exit after the thaw`);
    }
    const observed = watch.readObservation();
    const [from, to] = observed.snapshots;
    const ticks = to.ticks - from.ticks;
    const perDisk = disks.map((disk) => {
      const a = from.disks[disk.name] ?? { inspections: 0, late: 0, timeouts: 0, errors: 0 };
      const b = to.disks[disk.name] ?? { inspections: 0, late: 0, timeouts: 0, errors: 0 };
      return {
        name: disk.name,
        frozen: disk === freeze,
        inspections: b.inspections - a.inspections,
        late: b.late - a.late,
        timeouts: b.timeouts - a.timeouts,
        errors: b.errors - a.errors,
        score: observed.scores?.[disk.name],
      };
    });
    const healthy = perDisk.filter((d) => !d.frozen);
    // One inspection may straddle each end of the window.
    const missed = (d) => Math.max(0, ticks - d.inspections - 1);
    return {
      ticks,
      cpuPct: ((s1.cli - s0.cli + s1.prober - s0.prober) / (s1.atMs - s0.atMs)) * 100,
      plainPct,
      checkedPct,
      cliPct: ((s1.cli - s0.cli) / (s1.atMs - s0.atMs)) * 100,
      proberPct: ((s1.prober - s0.prober) / (s1.atMs - s0.atMs)) * 100,
      hwmSumKiB: cli.hwmKiB + prober.hwmKiB,
      cliHwmKiB: cli.hwmKiB,
      proberHwmKiB: prober.hwmKiB,
      lateness: latenessFigures(windowLateness(observed)),
      healthyDisks: healthy.length,
      minInspectionsPerTick: Math.min(...healthy.map((d) => d.inspections / ticks)),
      healthyMissedTicks: healthy.reduce((n, d) => n + missed(d), 0),
      healthyDisksMissing: healthy.filter((d) => missed(d) > 0).length,
      healthyTimeouts: healthy.reduce((n, d) => n + d.timeouts + d.late + d.errors, 0),
      healthyMaxScore: Math.max(...healthy.map((d) => d.score ?? NaN)),
      frozenInspections: perDisk.find((d) => d.frozen)?.inspections ?? null,
      frozenScore: perDisk.find((d) => d.frozen)?.score ?? null,
    };
  } finally {
    if (frozen) thawDisk(freeze);
    await watch.stop();
  }
}

export async function scale() {
  const count = SETTINGS.scaleDisks;
  const spin = progress(`scale: making ${count} loop-device ext4 disks`);
  const base = benchDir('scale');
  const disks = [];
  for (let i = 0; i < count; i += 1) {
    spin.set(`scale: making loop-device ext4 disk ${i + 1}/${count} (16 MiB)`);
    const name = `d${String(i).padStart(2, '0')}`;
    disks.push({ ...makeDisk(join(base, name), 16), name });
  }
  const healthy = [];
  const frozen = [];
  for (let r = 0; r < SETTINGS.repeats; r += 1) {
    healthy.push(await observedRun(disks, { label: `${count} healthy disks, run ${r + 1}/${SETTINGS.repeats}`, spin }));
    frozen.push(await observedRun(disks, { freeze: disks[0], label: `${count} disks, ${disks[0].name} frozen, run ${r + 1}/${SETTINGS.repeats}`, spin }));
  }
  spin.set(`scale: removing ${count} disks`);
  spin.done('scale');

  const f = (runs, pick) => medianOver(runs, pick);
  const sum = (runs, pick) => runs.reduce((n, x) => n + pick(x), 0);
  const P = 'scale';
  const rows = [];
  for (const [label, runs] of [
    ['healthy', healthy],
    ['1 frozen', frozen],
  ]) {
    const cpu = f(runs, (x) => x.cpuPct);
    const missedTicks = sum(runs, (x) => x.healthyMissedTicks);
    rows.push(row(P, `${count} disks, ${label}: CPU (CLI + prober)`, `${pct(cpu)} of one core (CLI ${pct(f(runs, (x) => x.cliPct))}, prober ${pct(f(runs, (x) => x.proberPct))})`));
    if (runs === healthy) {
      const plain = f(runs, (x) => x.plainPct);
      rows.push(row(P, `${count} disks: CPU floor, the same syscalls from ${count} C loops, same window`, `${pct(plain)} of one core`));
      rows.push(row(P, `${count} disks: CPU over the C floor`, `${(cpu / plain).toFixed(2)}x`, `<= ${TARGET_CPU_RATIO.toFixed(1)}x`, cpu / plain <= TARGET_CPU_RATIO));
      const checked = f(runs, (x) => x.checkedPct);
      rows.push(row(P, `${count} disks: CPU floor, the C loops with slowdisk's checks, same window`, `${pct(checked)} of one core; slowdisk ${(cpu / checked).toFixed(2)}x it`));
    }
    rows.push(row(P, `${count} disks, ${label}: peak RSS CLI + prober`, `${mb(f(runs, (x) => x.hwmSumKiB))} (CLI ${mb(f(runs, (x) => x.cliHwmKiB))}, prober ${mb(f(runs, (x) => x.proberHwmKiB))})`));
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
  }
  rows.push(row(P, `frozen disk: inspections in window, score`, `${f(frozen, (x) => x.frozenInspections)}, ${f(frozen, (x) => x.frozenScore)}`));
  return {
    rows,
    figures: {
      disks: count,
      diskSizeMib: 16,
      windowS: SETTINGS.windowS,
      targets: { cpuRatioToC: TARGET_CPU_RATIO, missedTicksOnHealthyDisks: 0 },
      healthy: { cpuPct: f(healthy, (x) => x.cpuPct), hwmSumKiB: f(healthy, (x) => x.hwmSumKiB), runs: healthy },
      oneFrozen: { cpuPct: f(frozen, (x) => x.cpuPct), hwmSumKiB: f(frozen, (x) => x.hwmSumKiB), runs: frozen },
      plainLoopSyscalls: { cpuPct: f(healthy, (x) => x.plainPct), note: 'side by side with the healthy run, same window' },
      plainLoopWithChecks: { cpuPct: f(healthy, (x) => x.checkedPct), note: 'PLAIN_LOOP_CHECKED=1, side by side with the healthy run, same window' },
    },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: 'scale', run: scale }]);
