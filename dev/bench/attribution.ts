// Whose is a healthy disk's missed tick: the disk's, or slowdisk's. In the scale bench's
// observed run a plain C loop (plain-loop.c) inspects each healthy disk beside slowdisk, a
// third of an interval off its ticks. A tick of slowdisk's that did not come back clean (no
// inspection, a timeout, a result late or an error) is the disk's when the C loop's
// inspection on the same disk took the interval or longer at an overlapping time: the disk
// (its backing store, the machine) was slow for both. One where the C loop was on time is
// slowdisk's own: its event loop, its batches, or its watchdog.
import type { BadTick, Observation } from './observation.js';

/** What became of a tick that did not come back clean. */
const KINDS = ['missed', 'timeout', 'late', 'error'] as const;
export type MissKind = (typeof KINDS)[number];

/** One inspection of a C loop's: start and end on CLOCK_MONOTONIC, in ms. */
export interface LoopInspection {
  startMs: number;
  endMs: number;
}

/** A stretch of CLOCK_MONOTONIC, in ms. */
export interface Window {
  fromMs: number;
  toMs: number;
}

/** A C loop's output (plain-loop.c) as its inspections. */
export function loopInspections(stdout: string): LoopInspection[] {
  return stdout
    .trim()
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const columns = line.trim().split(/\s+/);
      const startMs = Number(columns[6]) / 1e6;
      return { startMs, endMs: startMs + Number(columns[5]) / 1e6 };
    });
}

/** The ticks due in [fromMs, toMs] on the observed session's schedule, each with its whole timeout inside it. */
function windowTicks(observed: Observation, { fromMs, toMs }: Window): { first: number; last: number; count: number } {
  const { startMs, intervalMs } = scheduleOf(observed);
  const first = Math.ceil((fromMs - startMs) / intervalMs);
  const last = Math.floor((toMs - observed.timeoutMs - startMs) / intervalMs);
  return { first, last, count: Math.max(0, last - first + 1) };
}

function scheduleOf(observed: Observation): NonNullable<Observation['schedule']> {
  if (!observed.schedule) throw new Error('the observed session never started');
  return observed.schedule;
}

/** Per disk, and summed by attributeTicks. */
interface Counts {
  missed: number;
  timeouts: number;
  disks: number;
  slowdisks: number;
  loopSlow: number;
  loopInspections: number;
  /** Loops that did not inspect over the whole window. */
  loopsShort: number;
}

/** A count attributeTicks sums over the disks. */
export type AttributedCount = keyof Counts;

export interface Attribution extends Counts {
  ticks: number;
  /** Distinct ticks with a miss of slowdisk's: a few ticks for many misses is a stall shared by every disk. */
  slowdiskTicks: number[];
  /** Slowdisk's by what became of the tick: a timeout of slowdisk's is a stall of the prober's; late, of the record's way to the CLI. */
  slowdiskKinds: Record<MissKind, number>;
  minInspectionsPerTick: number;
  disksMissing: number;
}

/**
 * The healthy disks' ticks due in [fromMs, toMs] (each with its whole timeout inside it), on
 * CLOCK_MONOTONIC, from the observer's output (dev/bench/observer.ts), and each one that
 * did not come back clean, attributed. `loops` maps a healthy disk's name to its C loop's
 * inspections over the same window (loopInspections).
 */
export function attributeTicks(
  observed: Observation,
  { fromMs, toMs, healthy, loops }: Window & { healthy: readonly string[]; loops: ReadonlyMap<string, readonly LoopInspection[]> },
): Attribution {
  const { startMs, intervalMs } = scheduleOf(observed);
  const timeoutMs = observed.timeoutMs;
  const deadlineMs = (tick: number): number => startMs + tick * intervalMs;
  const { first, last, count: ticks } = windowTicks(observed, { fromMs, toMs });
  const perDisk = healthy.map((name) => {
    const seen = new Set(observed.ticks[name] ?? []);
    const badAt = new Map((observed.bad[name] ?? []).map(([tick, kind, atMs]): [number, { kind: BadTick[1]; atMs: number }] => [tick, { kind, atMs }]));
    const inspections = (loops.get(name) ?? []).filter((x) => x.endMs >= fromMs && x.startMs <= toMs);
    const slow = inspections.filter((x) => x.endMs - x.startMs >= intervalMs);
    // A loop that began late (its probe file slow to make) or ended early leaves ticks it cannot speak for: they stay slowdisk's.
    const short = inspections.length === 0 || inspections[0].startMs > fromMs + intervalMs || inspections[inspections.length - 1].endMs < toMs - intervalMs;
    const counts: Counts = { missed: 0, timeouts: 0, disks: 0, slowdisks: 0, loopSlow: slow.length, loopInspections: inspections.length, loopsShort: short ? 1 : 0 };
    const slowdiskTicks: number[] = [];
    const slowdiskKinds = Object.fromEntries(KINDS.map((kind) => [kind, 0])) as Record<MissKind, number>;
    for (let tick = first; tick <= last; tick += 1) {
      const bad: { kind: MissKind; atMs: number } | undefined = seen.has(tick) ? badAt.get(tick) : { kind: 'missed', atMs: -Infinity };
      if (!bad) continue;
      if (bad.kind === 'missed') counts.missed += 1;
      else counts.timeouts += 1;
      // The tick's own time: from its deadline to its timeout, or to its result if that came later.
      const from = deadlineMs(tick);
      const to = Math.max(from + timeoutMs, bad.atMs);
      if (slow.some((x) => x.startMs < to && x.endMs > from)) counts.disks += 1;
      else {
        counts.slowdisks += 1;
        slowdiskKinds[bad.kind] += 1;
        slowdiskTicks.push(tick);
      }
    }
    return { name, inspected: [...seen].filter((tick) => tick >= first && tick <= last).length, ...counts, slowdiskTicks, slowdiskKinds };
  });
  const sum = (key: AttributedCount): number => perDisk.reduce((n, d) => n + d[key], 0);
  const slowdiskTicks = [...new Set(perDisk.flatMap((d) => d.slowdiskTicks))].sort((a, b) => a - b);
  const slowdiskKinds = Object.fromEntries(KINDS.map((kind) => [kind, perDisk.reduce((n, d) => n + d.slowdiskKinds[kind], 0)])) as Record<MissKind, number>;
  return {
    ticks,
    missed: sum('missed'),
    timeouts: sum('timeouts'),
    disks: sum('disks'),
    slowdisks: sum('slowdisks'),
    loopSlow: sum('loopSlow'),
    loopInspections: sum('loopInspections'),
    loopsShort: sum('loopsShort'),
    slowdiskTicks,
    slowdiskKinds,
    minInspectionsPerTick: ticks > 0 ? Math.min(...perDisk.map((d) => d.inspected / ticks)) : NaN,
    disksMissing: perDisk.filter((d) => d.missed > 0).length,
  };
}

/** Ticks in [fromMs, toMs] (as attributeTicks counts them) for which `name` had an inspection come back. */
export function inspectedInWindow(observed: Observation, name: string, window: Window): number {
  const { first, last } = windowTicks(observed, window);
  return new Set((observed.ticks[name] ?? []).filter((tick) => tick >= first && tick <= last)).size;
}
