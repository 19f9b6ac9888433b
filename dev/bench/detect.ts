// Detection-quality benchmark: runs the slow score, the statistical detector (with its fast
// path, and the article's rules alone beside it), the tail detector and a fixed-threshold
// baseline over seeded scenarios and prints one table.
//
//   npm run bench:detect                       # tsc, then this script
//   node dist-dev/dev/bench/detect.js [--runs N] [--disk-hours H] [--workers N] [--seed S]
//                                     [--only NAME[,NAME...]] [--json FILE]
//
// --runs        runs (seeds) per fault scenario and host (100)
// --disk-hours  seeded disk-hours per host of each scenario without a fault (404)
// --workers     worker threads (min(2, cores))
// --seed        the first seed (1); run i uses seed + i
// --only        only the scenarios whose names contain one of these
// --json        where the figures are written (bench-results/detect.json)
// --stat K=V    overrides a parameter of the statistical detector (repeatable), e.g. --stat threshold=4
// --tail K=V    overrides a parameter of the tail detector (repeatable), e.g. --tail significance=0.001
//
// Every detector sees exactly what replay would feed it, tick by tick on a virtual clock: the
// slow score through the project's StoreTicks (tick(k x interval), then per disk finished()
// for a line under the interval, failed() otherwise), the two others through observe() for a
// line and failure() for a tick without one.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import type { Ora } from 'ora';
import { StatisticalDetector } from '../../src/detectors/statistical-detector.js';
import { DEFAULT_STATISTICAL_PARAMS, type StatisticalParams } from '../../src/detectors/statistical-params.js';
import { TailDetector } from '../../src/detectors/tail-detector.js';
import { DEFAULT_TAIL_PARAMS, type TailParams } from '../../src/detectors/tail-params.js';
import { DEFAULT_SCORE_PARAMS, SCORE_FLOOR } from '../../src/score/score-params.js';
import { reportedScore } from '../../src/score/store-score.js';
import { StoreTicks } from '../../src/score/store-ticks.js';
import { DEFAULT_FIXED_THRESHOLD_PARAMS, FixedThresholdDetector } from '../baselines/fixed-threshold.js';
import { REPO_ROOT } from '../repo-root.js';
import { NOT_MODELLED, ScenarioGenerator, tickLatencies, type Media, type ScenarioKind, type ScenarioOptions } from '../scenarios/index.js';

export interface Host {
  name: string;
  disks: number;
  media: Media;
}

export interface Scenario {
  name: string;
  kind: ScenarioKind;
  factor?: number;
  journal?: boolean;
}

export const HOSTS: readonly Host[] = [
  { name: '2xSSD', disks: 2, media: 'ssd' },
  { name: '12xHDD', disks: 12, media: 'hdd' },
];

export const SCENARIOS: readonly Scenario[] = [
  { name: 'healthy', kind: 'healthy' },
  { name: 'peak x4 10min', kind: 'peak' },
  { name: 'bursts', kind: 'burst' },
  { name: 'journal commits', kind: 'healthy', journal: true },
  { name: 'slow x1.5', kind: 'slow', factor: 1.5 },
  { name: 'slow x2', kind: 'slow', factor: 2 },
  { name: 'slow x3', kind: 'slow', factor: 3 },
  { name: 'slow x10', kind: 'slow', factor: 10 },
  { name: 'stalls 1s/20s', kind: 'stall' },
  { name: 'hang', kind: 'hang' },
  { name: 'heal x3 5min', kind: 'heal' },
  { name: 'tail 3% x5', kind: 'tail', factor: 5 },
  { name: 'tail 3% x5, journal', kind: 'tail', factor: 5, journal: true },
  { name: 'tail 3% x10', kind: 'tail', factor: 10 },
  { name: 'tail 3% x30', kind: 'tail', factor: 30 },
  { name: 'gc pauses', kind: 'gc' },
  { name: 'heavy tails', kind: 'heavy' },
  { name: 'host ramp x5', kind: 'host-ramp' },
];

/** The kinds without a faulty disk: every alarm in them is false. */
const QUIET_KINDS: readonly ScenarioKind[] = ['healthy', 'peak', 'burst', 'gc', 'heavy', 'host-ramp'];

const DETECTORS = ['statistical', 'rules', 'tail', 'slowScore', 'fixed'] as const;
type DetectorName = (typeof DETECTORS)[number];

const DETECTOR_TITLES: Readonly<Record<DetectorName, string>> = {
  statistical: 'statistical (confirmed)',
  rules: "article's rules alone",
  tail: 'tail (confirmed)',
  slowScore: `slow score (evict at ${DEFAULT_SCORE_PARAMS.evictThreshold})`,
  fixed: `fixed (${DEFAULT_FIXED_THRESHOLD_PARAMS.alarmCount} IOs >=${DEFAULT_FIXED_THRESHOLD_PARAMS.slowMs}ms/min)`,
};

interface SeedFigure {
  meanDetectionS: number;
  falseAlarmPercent: number;
  note?: string;
}

/** The figures CTyun's slow-disk detection article publishes (its own simulation; not the same scenarios). */
const SEED_FIGURES: Readonly<Partial<Record<DetectorName, SeedFigure>>> = {
  rules: { meanDetectionS: 92, falseAlarmPercent: 1.3, note: 'false-alarm rate "within 1.3 %"' },
  fixed: { meanDetectionS: 12 * 60, falseAlarmPercent: 7.8 },
};

// ---------------------------------------------------------------------------------------------
// One run: one scenario, one host, one seed, the detectors side by side.

/** One detector's alarms in one run. */
interface DetectorRun {
  /** Onset to the faulty disk's first alarm (0 when it was already on); null without a fault or an alarm. */
  detectMs: number | null;
  falseAlarms: number;
  healthyMs: number;
  /** heal: the heal to the alarm's end. */
  clearedMs: number | null;
  alarms: number;
}

/** How the faulty disk's latency moved at its onset, in one run. */
interface RunShift {
  medianRatio: number;
  p99Ratio: number;
}

export interface RunResult {
  scenario: string;
  host: string;
  seed: number;
  durationMs: number;
  disks: number;
  slowDisk: string | null;
  onsetMs: number | null;
  healMs: number | null;
  hostWideEpisodes: number;
  suspectEpisodes: number;
  fastConfirmations: number;
  shift: RunShift | null;
  detectors: Record<DetectorName, DetectorRun>;
}

/** One value per detector, in the detectors' order. */
function byDetector<T>(make: (name: DetectorName) => T): Record<DetectorName, T> {
  return Object.fromEntries(DETECTORS.map((name) => [name, make(name)])) as Record<DetectorName, T>;
}

/** Alarm episodes of one detector on one disk. */
class Episodes {
  readonly active: Map<string, boolean>;
  readonly starts: Map<string, number[]>;
  readonly ends: Map<string, number[]>;

  constructor(disks: readonly string[]) {
    this.active = new Map(disks.map((d) => [d, false]));
    this.starts = new Map(disks.map((d) => [d, []]));
    this.ends = new Map(disks.map((d) => [d, []]));
  }

  set(disk: string, on: boolean, atMs: number): void {
    if (this.active.get(disk) === on) return;
    this.active.set(disk, on);
    (on ? this.starts : this.ends).get(disk)!.push(atMs);
  }
}

/** The median and the P99 of a list of latencies. */
function medianAndP99(values: readonly number[]): { median: number; p99: number } {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { median: at(0.5), p99: at(0.99) };
}

export function runOne(
  scenario: Scenario,
  host: Host,
  seed: number,
  statParams: Partial<StatisticalParams> = DEFAULT_STATISTICAL_PARAMS,
  overrides: Partial<ScenarioOptions> = {},
  tailParams: Partial<TailParams> = DEFAULT_TAIL_PARAMS,
): RunResult {
  const gen = new ScenarioGenerator({ kind: scenario.kind, factor: scenario.factor, seed, disks: host.disks, media: host.media, journal: scenario.journal ? {} : undefined, ...overrides });
  const info = gen.info;
  const interval = info.intervalMs;
  const disks = info.disks;
  const params = { ...DEFAULT_SCORE_PARAMS, intervalMs: interval, timeoutMs: interval };

  // Null only without a faulty disk, where it is never read.
  const onsetMs = info.onsetMs ?? Infinity;
  const healMs = info.healMs;

  const episodes = byDetector(() => new Episodes(disks));
  const store = new StoreTicks(params);
  store.setInspected(disks, 0);
  let hostWideEpisodes = 0;
  let suspectEpisodes = 0;
  let fastConfirmations = 0;
  const stat = new StatisticalDetector(statParams, {
    onChange: ({ disk, from, to, atMs }) => {
      if (to === 'confirmed') {
        episodes.statistical.set(disk, true, atMs);
        if (stat.confirmation(disk)?.path === 'fast') fastConfirmations += 1;
      } else if (from === 'confirmed') episodes.statistical.set(disk, false, atMs);
      if (to === 'host-wide') hostWideEpisodes += 1;
      if (to === 'suspect') suspectEpisodes += 1;
    },
  });
  // The same detector without its fast path: the article's rules alone, beside it.
  const rules = new StatisticalDetector({ ...statParams, fastBudget: 0 }, {
    onChange: ({ disk, from, to, atMs }) => {
      if (to === 'confirmed') episodes.rules.set(disk, true, atMs);
      else if (from === 'confirmed') episodes.rules.set(disk, false, atMs);
    },
  });
  const tail = new TailDetector(tailParams, {
    onChange: ({ disk, from, to, atMs }) => {
      if (to === 'confirmed') episodes.tail.set(disk, true, atMs);
      else if (from === 'confirmed') episodes.tail.set(disk, false, atMs);
    },
  });
  // The faulty disk's latencies before and after its onset (a tick without a result as the interval).
  const before: number[] = [];
  const after: number[] = [];
  const fixed = new FixedThresholdDetector();
  const slowAlarmed = disks.map(() => false);
  const fixedAlarmed = disks.map(() => false);

  for (let tl = gen.next(); tl !== null; tl = gen.next()) {
    const k = tl.tick;
    const t = k * interval;
    const tick = store.tick(t);
    if (tick.updated) {
      for (let i = 0; i < disks.length; i += 1) {
        // Every disk of the host is inspected, so each has a score.
        const score = store.scoreOf(disks[i])!;
        if (!slowAlarmed[i] && reportedScore(score) >= params.evictThreshold) {
          slowAlarmed[i] = true;
          episodes.slowScore.set(disks[i], true, t);
        } else if (slowAlarmed[i] && score <= SCORE_FLOOR) {
          slowAlarmed[i] = false;
          episodes.slowScore.set(disks[i], false, t);
        }
      }
    }
    const latencies = tickLatencies(tl, disks);
    for (let i = 0; i < disks.length; i += 1) {
      const disk = disks[i];
      const ms = latencies[i];
      let alarmed: boolean;
      if (ms !== null) {
        // One at or over the interval, or none, is charged at the next tick.
        if (ms < interval) store.finished(disk, k, ms);
        stat.observe(disk, t, ms);
        rules.observe(disk, t, ms);
        tail.observe(disk, t, ms);
        alarmed = fixed.observe(disk, t, ms);
      } else {
        stat.failure(disk, t);
        rules.failure(disk, t);
        tail.failure(disk, t);
        alarmed = fixed.failure(disk, t);
      }
      if (disk === info.slowDisk) (t < onsetMs ? before : after).push(ms ?? interval);
      if (alarmed !== fixedAlarmed[i]) {
        fixedAlarmed[i] = alarmed;
        episodes.fixed.set(disk, alarmed, t);
      }
    }
  }
  const shift =
    info.slowDisk === null
      ? null
      : (() => {
          const b = medianAndP99(before);
          const a = medianAndP99(after);
          return { medianRatio: a.median / b.median, p99Ratio: a.p99 / b.p99 };
        })();

  const detectorRun = (ep: Episodes): DetectorRun => {
    let falseAlarms = 0;
    let healthyMs = 0;
    let detectMs: number | null = null;
    let clearedMs: number | null = null;
    for (const disk of disks) {
      const starts = ep.starts.get(disk)!;
      if (disk === info.slowDisk) {
        healthyMs += onsetMs;
        falseAlarms += starts.filter((s) => s < onsetMs).length;
        const activeAtOnset = starts.some((s, i) => s < onsetMs && (ep.ends.get(disk)![i] ?? Infinity) >= onsetMs);
        const first = starts.find((s) => s >= onsetMs);
        detectMs = activeAtOnset ? 0 : first !== undefined ? first - onsetMs : null;
        if (healMs !== null) {
          const end = ep.ends.get(disk)!.find((e) => e >= healMs);
          const stillOn = ep.active.get(disk);
          clearedMs = end !== undefined ? end - healMs : stillOn ? null : detectMs === null ? null : 0;
        }
      } else {
        healthyMs += info.durationMs;
        falseAlarms += starts.length;
      }
    }
    return { detectMs, falseAlarms, healthyMs, clearedMs, alarms: [...ep.starts.values()].reduce((a, s) => a + s.length, 0) };
  };
  return {
    scenario: scenario.name,
    host: host.name,
    seed,
    durationMs: info.durationMs,
    disks: disks.length,
    slowDisk: info.slowDisk,
    onsetMs: info.onsetMs,
    healMs: info.healMs,
    hostWideEpisodes,
    suspectEpisodes,
    fastConfirmations,
    shift,
    detectors: byDetector((name) => detectorRun(episodes[name])),
  };
}

// ---------------------------------------------------------------------------------------------
// Workers: each takes jobs from the main thread and sends back one result per job.

interface Job {
  scenario: string;
  host: string;
  seed: number;
}

/** What each worker is started with. */
interface WorkerSetup {
  benchWorker: true;
  statParams: StatisticalParams;
  tailParams: TailParams;
}

function runJob(job: Job, statParams: StatisticalParams, tailParams: TailParams): RunResult {
  return runOne(SCENARIOS.find((s) => s.name === job.scenario)!, HOSTS.find((h) => h.name === job.host)!, job.seed, statParams, {}, tailParams);
}

const workerSetup = isMainThread ? null : (workerData as WorkerSetup | null);
if (parentPort && workerSetup?.benchWorker) {
  const port = parentPort;
  port.on('message', (job: Job | null) => {
    if (job === null) {
      port.close();
      return;
    }
    port.postMessage(runJob(job, workerSetup.statParams, workerSetup.tailParams));
  });
}

// ---------------------------------------------------------------------------------------------
// Main: jobs, progress, aggregation, the table, the JSON.

interface Options {
  runs: number;
  diskHours: number;
  workers: number;
  seed: number;
  only: string[] | null;
  json: string;
  stat: StatisticalParams;
  tail: TailParams;
}

/** `--stat K=V` or `--tail K=V`: a parameter of the defaults' kind, a boolean as `true`, anything else as a number. */
function setParam<P extends object>(flag: string, assignment: string, defaults: Readonly<P>, params: P): void {
  const [key, v] = assignment.split('=');
  if (!(key in defaults)) throw new Error(`${flag}: no parameter '${key}'`);
  const def: unknown = defaults[key as keyof P];
  (params as Record<string, unknown>)[key] = typeof def === 'boolean' ? v === 'true' : Number(v);
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    runs: 100,
    diskHours: 404,
    workers: Math.max(1, Math.min(2, os.availableParallelism?.() ?? os.cpus().length)),
    seed: 1,
    only: null,
    json: path.join(REPO_ROOT, 'bench-results', 'detect.json'),
    stat: { ...DEFAULT_STATISTICAL_PARAMS },
    tail: { ...DEFAULT_TAIL_PARAMS },
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    const int = (v: string, min: number) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new Error(`${arg}: expected a whole number from ${min}, got '${v}'`);
      return n;
    };
    if (arg === '--runs') options.runs = int(value(), 1);
    else if (arg === '--disk-hours') options.diskHours = Number(value());
    else if (arg === '--workers') options.workers = int(value(), 1);
    else if (arg === '--seed') options.seed = int(value(), 0);
    else if (arg === '--only') options.only = value().split(',');
    else if (arg === '--json') options.json = path.resolve(value());
    else if (arg === '--stat') setParam(arg, value(), DEFAULT_STATISTICAL_PARAMS, options.stat);
    else if (arg === '--tail') setParam(arg, value(), DEFAULT_TAIL_PARAMS, options.tail);
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: node dist-dev/dev/bench/detect.js [--runs N] [--disk-hours H] [--workers N] [--seed S] [--only NAME,...] [--json FILE]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument '${arg}'`);
  }
  if (!(options.diskHours > 0)) throw new Error('--disk-hours must be above 0');
  return options;
}

function makeJobs(options: Options): Job[] {
  const jobs: Job[] = [];
  for (const scenario of SCENARIOS) {
    if (options.only && !options.only.some((o) => scenario.name.includes(o))) continue;
    const faulty = !QUIET_KINDS.includes(scenario.kind);
    for (const host of HOSTS) {
      // A run without a fault lasts 1 h: enough runs for the disk-hours asked.
      const runs = faulty ? options.runs : Math.ceil(options.diskHours / host.disks);
      for (let i = 0; i < runs; i += 1) jobs.push({ scenario: scenario.name, host: host.name, seed: options.seed + i });
    }
  }
  return jobs;
}

async function runJobs(jobs: readonly Job[], workers: number, statParams: StatisticalParams, tailParams: TailParams, onResult: (result: RunResult) => void): Promise<void> {
  if (workers <= 1) {
    for (const job of jobs) {
      onResult(runJob(job, statParams, tailParams));
      // Let the spinner draw.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return;
  }
  // The longest runs first, so that the workers finish together.
  const queue = [...jobs].sort((a, b) => cost(b) - cost(a));
  await Promise.all(
    Array.from({ length: Math.min(workers, queue.length) }, () => {
      const setup: WorkerSetup = { benchWorker: true, statParams, tailParams };
      const worker = new Worker(fileURLToPath(import.meta.url), { workerData: setup });
      return new Promise<void>((resolve, reject) => {
        const feed = () => worker.postMessage(queue.length ? queue.shift() : null);
        worker.on('message', (result: RunResult) => {
          onResult(result);
          feed();
        });
        worker.on('error', reject);
        worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}`))));
        feed();
      });
    }),
  );
}

function cost(job: Job): number {
  const host = HOSTS.find((h) => h.name === job.host)!;
  const scenario = SCENARIOS.find((s) => s.name === job.scenario)!;
  const faulty = !QUIET_KINDS.includes(scenario.kind);
  return host.disks * (faulty ? 21 : 60);
}

/** The q-quantile of a sorted list, interpolated; NaN of none. */
function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.min(sorted.length - 1, lo + 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/** How the faulty disk's latency moved at its onset, over the runs: the median and the least of the P99's rise, the median's. */
interface Shift {
  p99RatioMedian: number;
  p99RatioMin: number;
  medianRatioMedian: number;
}

/** One detector over the runs of one scenario on one host; the onset-to-alarm figures are null without a fault. */
interface DetectorRow {
  detected: number | null;
  detectionRate: number | null;
  medianS: number | null;
  p90S: number | null;
  maxS: number | null;
  meanS: number | null;
  within90s: number | null;
  timesS: number[] | null;
  falseAlarms: number;
  healthyDiskHours: number;
  falseAlarmsPer100DiskHours: number;
  alarms: number;
  /** heal: the runs whose alarm ended after the heal, and the median time it took. */
  clearedAfterHeal: { runs: number; medianS: number | null } | null;
}

/** The runs of one scenario on one host. */
interface Row {
  scenario: string;
  kind: ScenarioKind;
  factor: number | null;
  host: string;
  runs: number;
  faulty: boolean;
  diskHours: number;
  hostWideEpisodes: number;
  shift: Shift | null;
  suspectEpisodes: number;
  fastConfirmations: number;
  detectors: Record<DetectorName, DetectorRow>;
}

function shiftOf(runs: readonly RunResult[]): Shift {
  const p99 = runs.map((r) => r.shift!.p99Ratio).sort((a, b) => a - b);
  const median = runs.map((r) => r.shift!.medianRatio).sort((a, b) => a - b);
  return { p99RatioMedian: quantile(p99, 0.5), p99RatioMin: p99[0], medianRatioMedian: quantile(median, 0.5) };
}

function aggregate(results: readonly RunResult[]): Row[] {
  const rows: Row[] = [];
  for (const scenario of SCENARIOS) {
    for (const host of HOSTS) {
      const runs = results.filter((r) => r.scenario === scenario.name && r.host === host.name);
      if (runs.length === 0) continue;
      const faulty = runs[0].slowDisk !== null;
      const detectorRow = (name: DetectorName): DetectorRow => {
        const times = runs.map((r) => r.detectors[name].detectMs).filter((t) => t !== null).sort((a, b) => a - b);
        const healthyHours = runs.reduce((a, r) => a + r.detectors[name].healthyMs / 3_600_000, 0);
        const falseAlarms = runs.reduce((a, r) => a + r.detectors[name].falseAlarms, 0);
        const cleared = runs.map((r) => r.detectors[name].clearedMs).filter((t) => t !== null).sort((a, b) => a - b);
        return {
          detected: faulty ? times.length : null,
          detectionRate: faulty ? times.length / runs.length : null,
          medianS: faulty && times.length ? quantile(times, 0.5) / 1000 : null,
          p90S: faulty && times.length ? quantile(times, 0.9) / 1000 : null,
          maxS: faulty && times.length ? times[times.length - 1] / 1000 : null,
          meanS: faulty && times.length ? times.reduce((a, t) => a + t, 0) / times.length / 1000 : null,
          within90s: faulty ? times.filter((t) => t <= 90_000).length / runs.length : null,
          timesS: faulty ? times.map((t) => t / 1000) : null,
          falseAlarms,
          healthyDiskHours: healthyHours,
          falseAlarmsPer100DiskHours: (100 * falseAlarms) / healthyHours,
          alarms: runs.reduce((a, r) => a + r.detectors[name].alarms, 0),
          clearedAfterHeal: scenario.kind === 'heal' ? { runs: cleared.length, medianS: cleared.length ? quantile(cleared, 0.5) / 1000 : null } : null,
        };
      };
      rows.push({
        scenario: scenario.name,
        kind: scenario.kind,
        factor: scenario.factor ?? null,
        host: host.name,
        runs: runs.length,
        faulty,
        diskHours: runs.reduce((a, r) => a + (r.durationMs * r.disks) / 3_600_000, 0),
        hostWideEpisodes: runs.reduce((a, r) => a + r.hostWideEpisodes, 0),
        shift: faulty ? shiftOf(runs) : null,
        suspectEpisodes: runs.reduce((a, r) => a + r.suspectEpisodes, 0),
        fastConfirmations: runs.reduce((a, r) => a + r.fastConfirmations, 0),
        detectors: byDetector(detectorRow),
      });
    }
  }
  return rows;
}

/** One detector over every row. */
interface DetectorSummary {
  faultRuns: number;
  detectionRate: number | null;
  meanDetectionS: number | null;
  falseAlarmSharePercent: number;
  falseAlarmsPer100DiskHoursWithoutFault: number | null;
}

function summary(rows: readonly Row[]): Record<DetectorName, DetectorSummary> {
  return byDetector((name) => {
    const faultRows = rows.filter((r) => r.faulty);
    const times = faultRows.flatMap((r) => r.detectors[name].timesS ?? []);
    const runs = faultRows.reduce((a, r) => a + r.runs, 0);
    const alarms = rows.reduce((a, r) => a + r.detectors[name].alarms, 0);
    const falseAlarms = rows.reduce((a, r) => a + r.detectors[name].falseAlarms, 0);
    const quiet = rows.filter((r) => !r.faulty);
    const quietHours = quiet.reduce((a, r) => a + r.detectors[name].healthyDiskHours, 0);
    const quietFalse = quiet.reduce((a, r) => a + r.detectors[name].falseAlarms, 0);
    return {
      faultRuns: runs,
      detectionRate: runs ? times.length / runs : null,
      meanDetectionS: times.length ? times.reduce((a, t) => a + t, 0) / times.length : null,
      falseAlarmSharePercent: alarms ? (100 * falseAlarms) / alarms : 0,
      falseAlarmsPer100DiskHoursWithoutFault: quietHours ? (100 * quietFalse) / quietHours : null,
    };
  });
}

interface Target {
  target: string;
  /** null: a figure shown, not a target. */
  met: boolean | null;
  figures: string;
}

/** Onset-to-alarm over the runs of a fault's row, sorted; a run that never alarmed counts as never. */
const timesOrNever = (d: DetectorRow, runs: number): number[] => [...d.timesS!, ...Array<number>(runs - d.timesS!.length).fill(Infinity)].sort((a, b) => a - b);

function targets(rows: readonly Row[], aligned: readonly RunResult[]): Target[] {
  const rowsOf = (scenario: string) => rows.filter((r) => r.scenario === scenario);
  /** Onset-to-alarm over every run of a scenario (both hosts); a run that never alarmed counts as never. */
  const over = (scenario: string, name: DetectorName) => {
    const rs = rowsOf(scenario);
    const runs = rs.reduce((a, r) => a + r.runs, 0);
    const times = rs.flatMap((r) => r.detectors[name].timesS ?? []).sort((a, b) => a - b);
    const all = [...times, ...Array<number>(runs - times.length).fill(Infinity)];
    return { rs, runs, times, detected: times.length, median: quantile(all, 0.5), max: times.at(-1) ?? null, p90: quantile(all, 0.9) };
  };
  const perHost = (rs: readonly Row[], name: DetectorName, fn: (d: DetectorRow) => string) => rs.map((r) => `${r.host} ${fn(r.detectors[name])}`).join('; ');
  const list: Target[] = [];

  // The fast path's targets, each host on its own.
  const fastTargets: readonly (readonly [string, number])[] = [
    ['slow x2', 30],
    ['slow x1.5', 60],
    ['slow x3', 20],
    ['slow x10', 20],
  ];
  for (const [scenario, limitS] of fastTargets) {
    const rs = rowsOf(scenario);
    if (!rs.length) continue;
    const medianOver = (r: Row) => quantile(timesOrNever(r.detectors.statistical, r.runs), 0.5);
    list.push({
      target: `statistical: ${scenario.replace('slow ', '')} confirmed within ${limitS} s (median over all runs, each host)`,
      met: rs.every((r) => medianOver(r) <= limitS),
      figures: rs.map((r) => `${r.host} ${pct(r.detectors.statistical.detectionRate)} confirmed, median ${fmtS(medianOver(r))}, ${r.fastConfirmations} by the fast path`).join('; '),
    });
  }
  const hang = over('hang', 'statistical');
  if (hang.runs) {
    list.push({
      target: 'statistical: a hang confirmed within 75 s',
      met: hang.detected === hang.runs && hang.max! <= 75,
      figures: `${hang.detected}/${hang.runs} confirmed, median ${fmtS(hang.median)}, max ${fmtS(hang.max)}`,
    });
  }
  for (const scenario of ['healthy', 'peak x4 10min', 'bursts']) {
    const rs = rowsOf(scenario);
    if (!rs.length) continue;
    list.push({
      target: `statistical: no confirmation in '${scenario}' in >= 404 disk-hours of each host`,
      met: rs.every((r) => r.detectors.statistical.alarms === 0 && r.diskHours >= 404),
      figures: rs.map((r) => `${r.host} ${r.detectors.statistical.alarms} in ${r.diskHours.toFixed(0)} disk-hours`).join('; '),
    });
  }
  // The article's rules alone, as before the fast path.
  const x2 = over('slow x2', 'rules');
  if (x2.runs) {
    list.push({
      target: "article's rules: x2 confirmed within 90 s (median) in >= 95 % of runs",
      met: x2.rs.every((r) => r.detectors.rules.detectionRate! >= 0.95 && r.detectors.rules.medianS! <= 90),
      figures: perHost(x2.rs, 'rules', (d) => `${pct(d.detectionRate)} confirmed, median ${fmtS(d.medianS)}, ${pct(d.within90s)} within 90 s`),
    });
  }
  for (const scenario of ['healthy', 'peak x4 10min', 'bursts']) {
    const rs = rowsOf(scenario);
    if (!rs.length) continue;
    const confirmations = rs.reduce((a, r) => a + r.detectors.rules.alarms, 0);
    list.push({
      target: `article's rules: no confirmation in '${scenario}'`,
      met: confirmations === 0,
      figures: `${confirmations} confirmations in ${rs.reduce((a, r) => a + r.diskHours, 0).toFixed(0)} disk-hours`,
    });
  }
  for (const scenario of SCENARIOS.filter((s) => s.kind === 'tail')) {
    const t = over(scenario.name, 'tail');
    if (!t.runs) continue;
    const ok = t.rs.every((r) => {
      const d = r.detectors.tail;
      return d.detectionRate! >= 0.95 && quantile(timesOrNever(d, r.runs), 0.5) <= 60;
    });
    const within60 = (d: DetectorRow, r: Row) => d.timesS!.filter((x) => x <= 60).length / r.runs;
    list.push({
      target: `tail: '${scenario.name}' (P99 x${t.rs.map((r) => r.shift!.p99RatioMedian.toFixed(1)).join('/x')}, at least x${Math.min(...t.rs.map((r) => r.shift!.p99RatioMin)).toFixed(1)}; median x${t.rs.map((r) => r.shift!.medianRatioMedian.toFixed(2)).join('/x')}) confirmed within 60 s (median) in >= 95 % of runs`,
      met: ok,
      figures: t.rs.map((r) => `${r.host} ${pct(r.detectors.tail.detectionRate)} confirmed, median ${fmtS(r.detectors.tail.medianS)}, p90 ${fmtS(r.detectors.tail.p90S)}, ${pct(within60(r.detectors.tail, r))} within 60 s`).join('; '),
    });
  }
  for (const scenario of SCENARIOS.filter((s) => QUIET_KINDS.includes(s.kind))) {
    const rs = rowsOf(scenario.name);
    if (!rs.length) continue;
    const hours = rs.reduce((a, r) => a + r.diskHours, 0);
    const confirmations = rs.reduce((a, r) => a + r.detectors.tail.alarms, 0);
    list.push({
      target: `tail: no confirmation in '${scenario.name}'`,
      met: confirmations === 0,
      figures: `${confirmations} confirmations in ${hours.toFixed(0)} disk-hours`,
    });
  }
  const sHang = over('hang', 'slowScore');
  if (sHang.runs) {
    const alignedTimes = aligned.map((a) => a.detectors.slowScore.detectMs! / 1000);
    list.push({
      target: 'slow score: a hang reaches 100 at 21 s',
      // From a random onset: 7 doublings from the first round the hang covers in full, so 21 s
      // from that round's start; the round the hang starts in may already double (>= 10 % of
      // it hung) or add x1.33 (one tick): 18 s to 21 s plus one tick.
      met: alignedTimes.every((t) => t === 21) && sHang.detected === sHang.runs && sHang.times[0] >= 18 && sHang.max! <= 21.1 + 1e-9,
      figures:
        `onset on a round boundary: ${alignedTimes.map((t) => `${t}s`).join(', ')} (${aligned.map((a) => a.host).join(', ')}); ` +
        `random onsets: ${sHang.detected}/${sHang.runs}, ${sHang.times[0].toFixed(1)}s to ${sHang.max!.toFixed(1)}s (the round the hang starts in is partly healthy)`,
    });
  }
  const sX2 = rows.find((r) => r.scenario === 'slow x2' && r.host === '2xSSD');
  if (sX2) {
    list.push({
      target: 'slow score: x2 from ~1 ms (SSD) never alarms',
      met: sX2.detectors.slowScore.alarms === 0,
      figures: `${sX2.detectors.slowScore.alarms} alarms in ${sX2.runs} runs`,
    });
  }
  const sPeak = rowsOf('peak x4 10min');
  if (sPeak.length) {
    list.push({
      target: 'slow score: the peak may alarm (its known profile, not a target)',
      met: null,
      figures: sPeak.map((r) => `${r.host}: ${r.detectors.slowScore.falseAlarms} disk alarms in ${r.runs} peaks`).join('; '),
    });
  }
  return list;
}

const pct = (x: number | null | undefined) => (x === null || x === undefined ? '-' : `${Math.round(100 * x)}%`);
function fmtS(s: number | null | undefined): string {
  if (s === null || s === undefined) return '-';
  if (s < 100) return `${s.toFixed(0)}s`;
  if (s < 3600) return `${(s / 60).toFixed(1)}m`;
  return `${(s / 3600).toFixed(1)}h`;
}
const fmtFa = (x: number | null) => (x === null ? '-' : x === 0 ? '0' : x < 10 ? x.toFixed(2) : x.toFixed(1));

function table(rows: readonly Row[], options: Options, summaryFigures: Record<DetectorName, DetectorSummary>, targetList: readonly Target[], elapsedS: number): string {
  const lines: string[] = [];
  const W = { scenario: 14, host: 7, cell: [5, 6, 6, 8] };
  const group = (cells: readonly string[]) => cells.map((c, i) => String(c).padStart(W.cell[i])).join(' ');
  const groupWidth = W.cell.reduce((a, w) => a + w, 0) + W.cell.length - 1;
  lines.push(
    `Detection benchmark: ${options.runs} runs per fault scenario and host (onset at 5-6 min, 15 min observed after it), ` +
      `>= ${options.diskHours} disk-hours per host of each scenario without a fault (1 h runs); seeds from ${options.seed}; ${elapsedS.toFixed(0)} s.`,
  );
  lines.push(
    `${''.padEnd(W.scenario)} ${''.padEnd(W.host)}  ${DETECTORS.map((d) => DETECTOR_TITLES[d].padEnd(groupWidth).slice(0, groupWidth)).join(' | ')}`,
  );
  lines.push(
    `${'scenario'.padEnd(W.scenario)} ${'host'.padEnd(W.host)}  ${DETECTORS.map(() => group(['rate', 'median', 'p90', 'FA/100dh'])).join(' | ')}`,
  );
  lines.push('-'.repeat(W.scenario + W.host + 3 + DETECTORS.length * (groupWidth + 3) - 3));
  for (const row of rows) {
    const cells = DETECTORS.map((d) => {
      const x = row.detectors[d];
      return group(row.faulty ? [pct(x.detectionRate), fmtS(x.medianS), fmtS(x.p90S), fmtFa(x.falseAlarmsPer100DiskHours)] : ['', '', '', fmtFa(x.falseAlarmsPer100DiskHours)]);
    });
    lines.push(`${row.scenario.padEnd(W.scenario)} ${row.host.padEnd(W.host)}  ${cells.join(' | ')}`);
  }
  lines.push('-'.repeat(W.scenario + W.host + 3 + DETECTORS.length * (groupWidth + 3) - 3));
  const s = summaryFigures;
  const sumCell = (d: DetectorName) =>
    `mean ${fmtS(s[d].meanDetectionS)} (${pct(s[d].detectionRate)}), FA ${s[d].falseAlarmSharePercent.toFixed(1)}%`.padEnd(groupWidth).slice(0, groupWidth);
  lines.push(`${'all faults'.padEnd(W.scenario)} ${''.padEnd(W.host)}  ${DETECTORS.map(sumCell).join(' | ')}`);
  const seedCell = (d: DetectorName) => {
    const seed = SEED_FIGURES[d];
    return (seed ? `mean ${fmtS(seed.meanDetectionS)}, FA ${seed.falseAlarmPercent}%` : 'not in the article').padEnd(groupWidth).slice(0, groupWidth);
  };
  lines.push(`${'CTyun article'.padEnd(W.scenario)} ${''.padEnd(W.host)}  ${DETECTORS.map(seedCell).join(' | ')}`);
  lines.push('');
  lines.push('rate: runs whose faulty disk alarmed after the onset; median, p90: onset to alarm over the runs that alarmed;');
  lines.push('FA/100dh: alarms on healthy disks (and on the faulty disk before its onset) per 100 disk-hours.');
  lines.push('all faults: mean onset-to-alarm over every fault run that alarmed (share of runs), FA: share of all alarms that were false.');
  lines.push("CTyun article: the article's own simulation (other scenarios; its false-alarm rate is a share, its basis unstated).");
  const heal = rows.filter((r) => r.kind === 'heal');
  const CLEARED: Readonly<Record<DetectorName, string>> = { statistical: 'statistical back to ok', rules: "article's rules back to ok", tail: 'tail back to ok', slowScore: 'slow score back to 1', fixed: 'fixed threshold cleared' };
  for (const r of heal) {
    const parts = DETECTORS.map((d) => {
      const c = r.detectors[d].clearedAfterHeal!;
      const alarmed = r.detectors[d].detected ?? 0;
      return `${CLEARED[d]} in ${c.runs} of ${alarmed} alarmed runs${c.runs ? ` (median ${fmtS(c.medianS)} after the heal)` : ''}`;
    });
    lines.push(`heal, ${r.host}: ${parts.join('; ')}.`);
  }
  const hostWide = rows.filter((r) => r.kind === 'peak');
  for (const r of hostWide) {
    lines.push(`peak, ${r.host}: statistical reported host-wide ${r.hostWideEpisodes} times (disk episodes) over ${r.runs} peaks; suspect ${r.suspectEpisodes} times.`);
  }
  lines.push('');
  lines.push('Targets:');
  for (const t of targetList) lines.push(`  ${t.met === null ? '   ' : t.met ? 'MET' : 'NOT'}  ${t.target}: ${t.figures}`);
  return lines.join('\n');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const jobs = makeJobs(options);
  // A terminal that reports no width (a pseudo-terminal without one) gets no spinner either.
  const tty = Boolean(process.stdout.isTTY) && (process.stdout.columns ?? 0) > 0;
  let spinner: Ora | null = null;
  if (tty) {
    const { default: ora } = await import('ora');
    spinner = ora({ text: `0/${jobs.length} runs`, stream: process.stdout }).start();
  }
  const started = Date.now();
  const results: RunResult[] = [];
  await runJobs(jobs, options.workers, options.stat, options.tail, (result) => {
    results.push(result);
    if (spinner) spinner.text = `${results.length}/${jobs.length} runs (${result.scenario}, ${result.host}, seed ${result.seed})`;
  });
  // The slow score's textbook hang: onset on a round boundary (tick 3000).
  const hangScenario = SCENARIOS.find((s) => s.kind === 'hang')!;
  const aligned = jobs.some((j) => j.scenario === hangScenario.name)
    ? HOSTS.map((host) => runOne(hangScenario, host, options.seed, options.stat, { onsetMs: 300_000 }, options.tail))
    : [];
  spinner?.stop();
  const elapsedS = (Date.now() - started) / 1000;
  const rows = aggregate(results);
  const summaryFigures = summary(rows);
  const targetList = targets(rows, aligned);
  process.stdout.write(`${table(rows, options, summaryFigures, targetList, elapsedS)}\n`);

  mkdirSync(path.dirname(options.json), { recursive: true });
  writeFileSync(
    options.json,
    `${JSON.stringify(
      {
        generated: new Date().toISOString(),
        elapsedS,
        options: { runs: options.runs, diskHours: options.diskHours, seed: options.seed, workers: options.workers, only: options.only },
        params: { statistical: options.stat, tail: options.tail, slowScore: DEFAULT_SCORE_PARAMS, fixed: DEFAULT_FIXED_THRESHOLD_PARAMS },
        hosts: HOSTS,
        scenarios: SCENARIOS,
        notModelled: NOT_MODELLED,
        seedFigures: SEED_FIGURES,
        summary: summaryFigures,
        targets: targetList,
        rows,
      },
      null,
      2,
    )}\n`,
  );
  if (tty) process.stdout.write(`figures written to ${path.relative(process.cwd(), options.json) || options.json}\n`);
}

// Run as a script (not when imported, e.g. by a test or a notebook).
if (isMainThread && process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench:detect: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
