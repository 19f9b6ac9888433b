// Preloaded into the real CLI by the benchmarks only (node --import observer.mjs
// bin/slowdisk.js watch ...): watches the session from inside without changing it.
//
// - Tick lateness: wraps InspectionTicker.prototype.fire, which computes the same
//   `now - deadline` the ticker hands to its handler, with the ticker's own clock.
// - Inspections: wraps ProbeSession.open to listen to the session's public
//   'inspection' and 'round' events: per disk, how many came back, how many were late
//   or timeouts, and (SLOWDISK_BENCH_SAMPLES=1) every inspection's phase timings.
// - SIGUSR2 takes a snapshot of the counters, so the bench can cut out a window.
// - SLOWDISK_BENCH_PHASE=FILE: the first tick's deadline on CLOCK_MONOTONIC, in ns.
// - At exit (the CLI ends with process.exit) everything goes to SLOWDISK_BENCH_OBSERVE.
//
// The modules are the very instances the CLI uses: same files, same URLs.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const out = process.env.SLOWDISK_BENCH_OBSERVE;
const keepSamples = process.env.SLOWDISK_BENCH_SAMPLES === '1';
const { InspectionTicker } = await import(new URL('../../dist/ticks/inspection-ticker.js', import.meta.url).href);
const { ProbeSession } = await import(new URL('../../dist/live/probe-session.js', import.meta.url).href);

const fire = InspectionTicker.prototype.fire;
if (typeof fire !== 'function' || typeof ProbeSession.open !== 'function') {
  throw new Error('scripts/bench/observer.mjs: InspectionTicker.fire or ProbeSession.open is gone; update the observer');
}

/** Lateness of every tick, in ms, in order. */
const lateness = [];
const disks = new Map();
const snapshots = [];
let session = null;
let timeoutMs = 100;
let rounds = 0;

const phaseFile = process.env.SLOWDISK_BENCH_PHASE;

InspectionTicker.prototype.fire = function observedFire(deadline) {
  const late = this.clock.now() - deadline;
  lateness.push(late);
  if (phaseFile && lateness.length === 1) {
    // Where the ticks fall on CLOCK_MONOTONIC (performance.now() and hrtime both read
    // it), so that the bench can run other tools between them.
    const deadlineNs = process.hrtime.bigint() - BigInt(Math.round(late * 1e6));
    writeFileSync(phaseFile, `${deadlineNs} ${this.intervalMs}\n`);
  }
  return fire.call(this, deadline);
};

function diskOf(name) {
  let disk = disks.get(name);
  if (!disk) {
    disk = { inspections: 0, errors: 0, late: 0, timeouts: 0, maxTotalMs: 0, samples: [] };
    disks.set(name, disk);
  }
  return disk;
}

function counters() {
  return {
    atMs: performance.timeOrigin + performance.now(),
    ticks: lateness.length,
    rounds,
    disks: Object.fromEntries(
      [...disks].map(([name, d]) => [
        name,
        { inspections: d.inspections, errors: d.errors, late: d.late, timeouts: d.timeouts, samples: d.samples.length },
      ]),
    ),
  };
}

const open = ProbeSession.open;
ProbeSession.open = async function observedOpen(...args) {
  const opened = await open.apply(this, args);
  session = opened;
  // open(targets, score, ...): whatever else it takes is passed through untouched.
  timeoutMs = args[1]?.timeoutMs ?? timeoutMs;
  opened.on('inspection', (record) => {
    const disk = diskOf(record.disk);
    if (!record.timings) {
      disk.errors += 1;
      return;
    }
    const t = record.timings;
    disk.inspections += 1;
    if (record.late) disk.late += 1;
    if (t.totalMs >= timeoutMs) disk.timeouts += 1;
    if (t.totalMs > disk.maxTotalMs) disk.maxTotalMs = t.totalMs;
    if (keepSamples) disk.samples.push([record.tick, t.openMs, t.writeMs, t.syncMs, t.readMs, t.closeMs, t.totalMs]);
  });
  opened.on('round', () => {
    rounds += 1;
  });
  return opened;
};

process.on('SIGUSR2', () => snapshots.push(counters()));

process.on('exit', (code) => {
  if (!out) return;
  const final = counters();
  writeFileSync(
    out,
    JSON.stringify({
      exitCode: code,
      timeoutMs,
      lateness,
      snapshots,
      final,
      maxTotalMs: Object.fromEntries([...disks].map(([name, d]) => [name, d.maxTotalMs])),
      samples: keepSamples ? Object.fromEntries([...disks].map(([name, d]) => [name, d.samples])) : undefined,
      scores: session ? Object.fromEntries(session.statuses().map((s) => [s.name, s.score])) : undefined,
    }),
  );
});
