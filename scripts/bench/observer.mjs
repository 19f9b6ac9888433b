// Preloaded into the real CLI by the benchmarks only (node --import observer.mjs
// bin/slowdisk.js watch ...): watches the session from inside without changing it.
//
// - Tick lateness: wraps ProbeSession's batch handler, and reads each inspection's start
//   (from the prober's native thread) less its tick's deadline on the session's schedule.
// - Inspections: wraps ProbeSession.open to listen to the session's public
//   'inspection' and 'round' events: per disk, how many came back, how many were late
//   or timeouts, and (SLOWDISK_BENCH_SAMPLES=1) every inspection's phase timings; and per
//   disk the ticks whose inspection came back, and those that came back as a timeout, late
//   or failed with when on CLOCK_MONOTONIC, so that the bench can tell a missed tick's
//   cause from what else was slow on the disk at the time (scripts/bench/scale.mjs).
// - SIGUSR2 takes a snapshot of the counters (and the instant, on CLOCK_MONOTONIC), so the
//   bench can cut out a window.
// - SLOWDISK_BENCH_PHASE=FILE: the first tick's deadline on CLOCK_MONOTONIC, in ns (wraps
//   ProbeSession.prototype.start).
// - At exit (the CLI ends with process.exit) everything goes to SLOWDISK_BENCH_OBSERVE.
//   Without it, only the phase is reported, and nothing runs per record: a run whose CPU is
//   measured pays nothing for being watched.
//
// The modules are the very instances the CLI uses: same files, same URLs.
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

const out = process.env.SLOWDISK_BENCH_OBSERVE;
const keepSamples = process.env.SLOWDISK_BENCH_SAMPLES === '1';
// The bundle's entry: the class the bundled CLI runs (a copy in dist/live/ would go unseen).
const { ProbeSession } = await import(new URL('../../dist/bundle/probe-session.js', import.meta.url).href);

const { onBatch, start } = ProbeSession.prototype;
if (typeof onBatch !== 'function' || typeof start !== 'function' || typeof ProbeSession.open !== 'function') {
  throw new Error('scripts/bench/observer.mjs: ProbeSession.onBatch, start or open is gone; update the observer');
}

/** Lateness of every inspection's start, in ms, in the order they came. */
const lateness = [];
const disks = new Map();
const snapshots = [];
let session = null;
let timeoutMs = 100;
let rounds = 0;
/** The session's ticks on CLOCK_MONOTONIC: tick k's deadline is startMs + k * intervalMs. */
let schedule;

const phaseFile = process.env.SLOWDISK_BENCH_PHASE;

ProbeSession.prototype.start = function observedStart(...args) {
  const started = start.apply(this, args);
  // The session's batch feeder holds the schedule it started.
  const current = this.feeder.current;
  schedule = { startMs: current.startMs, intervalMs: current.intervalMs };
  if (phaseFile) {
    // Where the ticks fall on CLOCK_MONOTONIC, so that the bench can run other tools between them.
    writeFileSync(phaseFile, `${BigInt(Math.round(current.deadlineMs(1) * 1e6))} ${current.intervalMs}\n`);
  }
  return started;
};

if (out) {
  ProbeSession.prototype.onBatch = function observedBatch(coveredMs, records) {
    // A plain result's row: [name, tick, atMs, ...six timings, startedMs].
    const current = this.feeder.current;
    for (const record of records) if (Array.isArray(record) && current) lateness.push(record[9] - current.deadlineMs(record[1]));
    return onBatch.call(this, coveredMs, records);
  };
}

const monotonicMs = () => Number(process.hrtime.bigint()) / 1e6;

/** A tick that did not come back clean, `kind` 'timeout', 'late' or 'error', and when on CLOCK_MONOTONIC (its wall-clock time less the clocks' offset now). */
function bad(disk, record, kind) {
  disk.bad.push([record.tick, kind, record.wallMs - (Date.now() - monotonicMs())]);
}

function diskOf(name) {
  let disk = disks.get(name);
  if (!disk) {
    disk = { inspections: 0, errors: 0, late: 0, timeouts: 0, maxTotalMs: 0, samples: [], ticks: [], bad: [] };
    disks.set(name, disk);
  }
  return disk;
}

function counters() {
  return {
    atMs: performance.timeOrigin + performance.now(),
    monotonicMs: monotonicMs(),
    /** Ticks the session has judged; `starts`: inspections whose start was seen. */
    ticks: session?.currentTick ?? 0,
    starts: lateness.length,
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
if (out) ProbeSession.open = async function observedOpen(...args) {
  const opened = await open.apply(this, args);
  session = opened;
  // open({ targets, score, ... }): whatever else it takes is passed through untouched.
  timeoutMs = args[0]?.score?.timeoutMs ?? timeoutMs;
  opened.on('inspection', (record) => {
    const disk = diskOf(record.disk);
    disk.ticks.push(record.tick);
    if (!record.timings) {
      disk.errors += 1;
      // A name race lost is neither counted nor charged.
      if (!record.lost) bad(disk, record, 'error');
      return;
    }
    const t = record.timings;
    disk.inspections += 1;
    if (record.late) disk.late += 1;
    if (t.totalMs >= timeoutMs) disk.timeouts += 1;
    if (t.totalMs >= timeoutMs || record.late) bad(disk, record, t.totalMs >= timeoutMs ? 'timeout' : 'late');
    if (t.totalMs > disk.maxTotalMs) disk.maxTotalMs = t.totalMs;
    if (keepSamples) disk.samples.push([record.tick, t.openMs, t.writeMs, t.syncMs, t.readMs, t.closeMs, t.totalMs]);
  });
  opened.on('round', () => {
    rounds += 1;
  });
  return opened;
};

if (out) process.on('SIGUSR2', () => snapshots.push(counters()));

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
      schedule,
      ticks: Object.fromEntries([...disks].map(([name, d]) => [name, d.ticks])),
      bad: Object.fromEntries([...disks].map(([name, d]) => [name, d.bad])),
      scores: session ? Object.fromEntries(session.statuses().map((s) => [s.name, s.score])) : undefined,
    }),
  );
});
