// Preloaded into the real CLI by the benchmarks only (node --import observer.js
// bin/slowdisk.js watch ...): watches the session from inside without changing it.
//
// - Tick lateness: wraps ProbeSession's batch handler, and reads each inspection's start
//   (from the prober's native thread) less its tick's deadline on the session's schedule.
// - Inspections: wraps ProbeSession.open to listen to the session's public
//   'inspection' and 'round' events: per disk, how many came back, how many were late
//   or timeouts, and (SLOWDISK_BENCH_SAMPLES=1) every inspection's phase timings; and per
//   disk the ticks whose inspection came back, and those that came back as a timeout, late
//   or failed with when on CLOCK_MONOTONIC, so that the bench can tell a missed tick's
//   cause from what else was slow on the disk at the time (dev/bench/scale.ts).
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
// The bundle's entry (package.json "imports"): the class the bundled CLI runs (a copy in dist/live/ would go unseen).
import { ProbeSession } from '#dist/bundle/probe-session.js';
import type { InspectionRecord } from '../../src/live/session-events.js';
import type { BatchRecord } from '../../src/probe/prober-protocol.js';
import type { TickSchedule } from '../../src/ticks/tick-schedule.js';
import type { BadTick, DiskCounters, Observation, Sample, Snapshot } from './observation.js';

/** The session's private parts the observer wraps or reads, as the compiled class has them. */
interface SessionInside {
  feeder: { current: TickSchedule | null };
  onBatch(coveredMs: number, records: readonly BatchRecord[]): void;
  start(): void;
}

type OpenOptions = Parameters<typeof ProbeSession.open>[0];

const out = process.env.SLOWDISK_BENCH_OBSERVE;
const keepSamples = process.env.SLOWDISK_BENCH_SAMPLES === '1';

const prototype = ProbeSession.prototype as unknown as SessionInside;
const { onBatch, start } = prototype;
if (typeof onBatch !== 'function' || typeof start !== 'function' || typeof ProbeSession.open !== 'function') {
  throw new Error('dev/bench/observer.ts: ProbeSession.onBatch, start or open is gone; update the observer');
}

interface DiskSeen extends Omit<DiskCounters, 'samples'> {
  maxTotalMs: number;
  samples: Sample[];
  ticks: number[];
  bad: BadTick[];
}

/** Lateness of every inspection's start, in ms, in the order they came. */
const lateness: number[] = [];
const disks = new Map<string, DiskSeen>();
const snapshots: Snapshot[] = [];
let session: ProbeSession | null = null;
let timeoutMs = 100;
let rounds = 0;
/** The session's ticks on CLOCK_MONOTONIC: tick k's deadline is startMs + k * intervalMs. */
let schedule: Observation['schedule'];

const phaseFile = process.env.SLOWDISK_BENCH_PHASE;

prototype.start = function observedStart(this: SessionInside): void {
  start.apply(this);
  // The session's batch feeder holds the schedule it started.
  const current = this.feeder.current;
  if (current === null) return;
  schedule = { startMs: current.startMs, intervalMs: current.intervalMs };
  if (phaseFile) {
    // Where the ticks fall on CLOCK_MONOTONIC, so that the bench can run other tools between them.
    writeFileSync(phaseFile, `${BigInt(Math.round(current.deadlineMs(1) * 1e6))} ${current.intervalMs}\n`);
  }
};

if (out) {
  prototype.onBatch = function observedBatch(this: SessionInside, coveredMs: number, records: readonly BatchRecord[]): void {
    // A plain result's row: [name, tick, atMs, ...six timings, startedMs].
    const current = this.feeder.current;
    for (const record of records) if (Array.isArray(record) && current) lateness.push(record[9] - current.deadlineMs(record[1]));
    onBatch.call(this, coveredMs, records);
  };
}

const monotonicMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/** A tick that did not come back clean, and when on CLOCK_MONOTONIC (its wall-clock time less the clocks' offset now). */
function bad(disk: DiskSeen, record: InspectionRecord, kind: BadTick[1]): void {
  disk.bad.push([record.tick, kind, record.wallMs - (Date.now() - monotonicMs())]);
}

function diskOf(name: string): DiskSeen {
  let disk = disks.get(name);
  if (!disk) {
    disk = { inspections: 0, errors: 0, late: 0, timeouts: 0, maxTotalMs: 0, samples: [], ticks: [], bad: [] };
    disks.set(name, disk);
  }
  return disk;
}

function counters(): Snapshot {
  return {
    atMs: performance.timeOrigin + performance.now(),
    monotonicMs: monotonicMs(),
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

const open = ProbeSession.open.bind(ProbeSession);
if (out) ProbeSession.open = async function observedOpen(options: OpenOptions): Promise<ProbeSession> {
  const opened = await open(options);
  session = opened;
  // open({ targets, score, ... }): whatever else it takes is passed through untouched.
  timeoutMs = options.score.timeoutMs;
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
  const observation: Observation = {
    exitCode: code,
    timeoutMs,
    lateness,
    snapshots,
    final: counters(),
    maxTotalMs: Object.fromEntries([...disks].map(([name, d]) => [name, d.maxTotalMs])),
    samples: keepSamples ? Object.fromEntries([...disks].map(([name, d]) => [name, d.samples])) : undefined,
    schedule,
    ticks: Object.fromEntries([...disks].map(([name, d]) => [name, d.ticks])),
    bad: Object.fromEntries([...disks].map(([name, d]) => [name, d.bad])),
    scores: session ? Object.fromEntries(session.statuses().map((s) => [s.name, s.score])) : undefined,
  };
  writeFileSync(out, JSON.stringify(observation));
});
