// The disks the predictor is trained and measured on: generated scenarios (dev/scenarios/)
// and the traces recorded on real loop disks (data/predict/traces/, made by
// record-fault-traces), each cut into 15 s samples as a live session would feed them.
// Which seeds, hosts, scenarios and recordings train and which are held out is fixed here,
// so that the benchmark never sees what training saw.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { DEFAULT_PREDICTOR_PARAMS } from '../../src/early-warning/predictor-params.js';
import { type PredictorSample, sampleFeatures, type SampleFeatures } from '../../src/early-warning/sample-features.js';
import { REPO_ROOT } from '../repo-root.js';
import { type Media, mixSeed, type PeakOptions, type RampShape, Rng, type ScenarioInfo, type ScenarioKind, ScenarioGenerator, type ScenarioOptions } from '../scenarios/index.js';
import { type TimedSample, type TraceEntry, traceSamples } from './trace-samples.js';

export const RECORDED_DIR = path.join(REPO_ROOT, 'data/predict/traces');
const PARAMS = DEFAULT_PREDICTOR_PARAMS;

type Range = readonly [number, number];

/** How a scenario of the corpus is drawn (see SPECS). */
export interface ScenarioSpec {
  kind: ScenarioKind;
  durationMs?: number;
  shape?: RampShape;
  /** The slow disk's final P99, times the SLA. */
  reach?: Range;
  rampMin?: Range;
  /** Which count of the selection's seeds it takes (the negatives' by default). */
  runs?: 'ramps' | 'slowRamps';
  evaluationOnly?: boolean;
  periodS?: Range;
  /** A periodic burst's P99, times the SLA. */
  burstReach?: Range;
  stallMs?: Range;
  peak?: PeakOptions;
}

export interface HostSpec {
  disks: number;
  media: Media;
}

/** Which seeds, hosts, scenarios and recordings a selection takes (TRAINING, VALIDATION, TUNING, HELD_OUT). */
export interface Selection {
  seeds: { first: number; ramps: number; negatives: number; slowRamps?: number };
  hosts: readonly string[];
  specs: readonly string[];
  recordings: readonly string[];
  /** That share of the generated runs also with the host delays of these recordings (withHostDelays). */
  hostDelays?: { recordings: readonly string[]; share: number };
}

/** What the corpus reads of a recording's header. */
interface RecordedHeader {
  slowdisk_trace: number;
  interval_ms: number;
}

/** A trace's line as the corpus keeps it: an inspection, a failure, a clock line or a device's figures. */
export type CorpusLine = TraceEntry & { device?: string };

/** A disk's series: its samples, their features, and whether the scenario made it slow. */
export interface CorpusDisk {
  disk: string;
  source: 'generated' | 'recorded';
  faulty: boolean;
  samples: TimedSample[];
  features: SampleFeatures[];
  /** When its own slowdown started (a scenario's slow disk, a recording's disk from its first throttle). */
  onsetMs?: number;
  /** When a near miss's slow disk stopped growing. */
  levelOffMs?: number;
}

export interface CorpusRun {
  name: string;
  /** The scenario's name in SPECS, or 'recorded'. */
  spec: string;
  host: string;
  seed: number | null;
  intervalMs: number;
  lines: CorpusLine[];
  disks: CorpusDisk[];
  hostDelays?: boolean;
}

export interface GeneratedRun extends CorpusRun {
  seed: number;
  info: ScenarioInfo;
}

/** One run of a selection, made when it is run. */
export interface RunJob {
  label: string;
  run: () => CorpusRun;
}

/**
 * Scenarios. A ramp's slow disk grows from its healthy P99 to a final P99 drawn in `reach`
 * (times the SLA) over a time drawn in `rampMin` minutes: "over" ramps cross the SLA 2 to 10
 * minutes after their onset, "under" ones and plateaus level off below it (the near misses a
 * predictor must not warn about, or must let go of). A step jumps to its P99 at once and stays.
 * Periodic bursts (a flush or a compaction every 45 s to 2 min, 1 to 3 s long, at every phase
 * of the window), GC-like pauses of one disk and heavy tails are healthy hosts with a rough life.
 * The slow ramps cross the SLA gently, 1.1 to 1.6 times it at the end of 15 to 36 minutes: on
 * an HDD most climb through half the SLA minutes before they breach (the gradual breaches the
 * warning is judged on); they are only ever measured (`evaluationOnly`), never trained or
 * calibrated on, as are the high plateaus, which climb to 0.6 to 0.85 times the SLA and hold
 * there (a warning while they climb is allowed; it must let go once they hold). `runs` says
 * which count of the selection's seeds a spec takes.
 */
export const SPECS: Readonly<Record<string, ScenarioSpec>> = {
  healthy: { kind: 'healthy', durationMs: 1_800_000 },
  peak: { kind: 'peak', durationMs: 3_600_000 },
  burst: { kind: 'burst', durationMs: 1_800_000 },
  'burst (periodic)': { kind: 'burst', durationMs: 1_800_000, periodS: [45, 120], burstReach: [0.15, 0.6] },
  'GC pauses': { kind: 'stall', durationMs: 1_800_000, stallMs: [40, 150], periodS: [20, 60] },
  'heavy tail': { kind: 'peak', durationMs: 1_800_000, peak: { startMs: 0, durationMs: 1_800_000, factor: 1, spikeBoost: 4, jitterSigma: 0.25 } },
  'ramp over (geometric)': { kind: 'ramp', shape: 'geometric', reach: [2, 5], rampMin: [3, 14], runs: 'ramps' },
  'ramp under (geometric)': { kind: 'ramp', shape: 'geometric', reach: [0.15, 0.4], rampMin: [3, 14], runs: 'ramps' },
  'ramp over (linear)': { kind: 'ramp', shape: 'linear', reach: [2, 5], rampMin: [3, 14], runs: 'ramps' },
  'ramp under (linear)': { kind: 'ramp', shape: 'linear', reach: [0.15, 0.4], rampMin: [3, 14], runs: 'ramps' },
  'slow ramp over (geometric)': { kind: 'ramp', shape: 'geometric', reach: [1.1, 1.6], rampMin: [18, 36], runs: 'slowRamps', evaluationOnly: true },
  'slow ramp over (linear)': { kind: 'ramp', shape: 'linear', reach: [1.1, 1.6], rampMin: [15, 30], runs: 'slowRamps', evaluationOnly: true },
  'plateau under': { kind: 'ramp', shape: 'linear', reach: [0.4, 0.65], rampMin: [2, 8] },
  'plateau high': { kind: 'ramp', shape: 'geometric', reach: [0.6, 0.85], rampMin: [3, 8], runs: 'ramps', evaluationOnly: true },
  'step under': { kind: 'slow', reach: [0.25, 0.55] },
};

export const HOSTS: Readonly<Record<string, HostSpec>> = {
  '2xSSD': { disks: 2, media: 'ssd' },
  '4xHDD': { disks: 4, media: 'hdd' },
  '12xHDD': { disks: 12, media: 'hdd' },
};

/**
 * The recordings (data/predict/traces/README.md), each in one role only: trained on,
 * calibrated on, or held out for the benchmark. The held-out ones have healthy disks on both
 * backings (the machine's disk and memory), idle and under fio, and disks slowed down by the
 * fault kit. The training ones' healthy disks also lend their delays to generated runs
 * (hostDelays). Training on `e` too (before the host delays; its examples counted 10 times,
 * the recordings' examples being about 1 in 500) raised the held-out healthy disks'
 * probability on all but one recording, so it is held out; `f`, `g`, `i` and `j` are too
 * short to give a labelled example (a label needs 5 minutes after its sample).
 */
export const RECORDINGS = {
  training: ['a', 'c'],
  calibration: [],
  heldOut: ['b', 'd', 'e', 'f', 'g', 'h', 'i', 'j'],
};
const traces = (names: readonly string[]): string[] => names.map((name) => `session-${name}.jsonl.gz`);

/**
 * What training sees: geometric ramps only, seeds from 1, and the training recordings; half
 * the generated runs also as they would look on the training recordings' host (hostDelays:
 * a real host's scheduling delays, a fast median with a tail 10 to 20 times it, which no
 * generated disk has).
 */
export const TRAINING: Selection = {
  seeds: { first: 1, ramps: 40, negatives: 6 },
  hosts: ['2xSSD', '4xHDD'],
  specs: Object.keys(SPECS).filter((name) => !name.endsWith('(linear)') && !SPECS[name].evaluationOnly),
  recordings: traces(RECORDINGS.training),
  hostDelays: { recordings: RECORDINGS.training, share: 0.5 },
};

/**
 * What training settings were chosen on and the calibration is fitted on: seeds of their own,
 * half the runs also with the training recordings' host delays, as in training, and the
 * recordings given to calibration (none now: never trained on, never in the benchmark).
 */
export const VALIDATION: Selection = {
  seeds: { first: 50_001, ramps: 8, negatives: 2 },
  hosts: ['2xSSD', '4xHDD'],
  specs: Object.keys(SPECS).filter((name) => !SPECS[name].evaluationOnly),
  recordings: traces(RECORDINGS.calibration),
  hostDelays: { recordings: RECORDINGS.training, share: 0.5 },
};

/**
 * What the early warning's rules were chosen on: the validation selection's seed range, hosts
 * and scenarios, with three times as many seeds as the benchmark (with as many, a rule's
 * false warnings on near misses were 1 or 2, too few to tell rules apart), and the slow ramps.
 * No training, no held-out seed, no host delays (the rules were chosen without them).
 */
export const TUNING: Selection = { ...VALIDATION, seeds: { first: 50_001, ramps: 120, negatives: 18, slowRamps: 20 }, specs: Object.keys(SPECS), hostDelays: undefined };

/**
 * What the benchmark sees: other seeds, a larger host, linear and slow ramps as well, and the
 * held-out recordings.
 */
export const HELD_OUT: Selection = {
  seeds: { first: 100_001, ramps: 40, negatives: 6, slowRamps: 20 },
  hosts: ['2xSSD', '12xHDD'],
  specs: Object.keys(SPECS),
  recordings: traces(RECORDINGS.heldOut),
};

/** The seeds each selection takes: [first, last]. */
function seedRange(selection: Selection): [number, number] {
  const { first, ramps, negatives, slowRamps = 0 } = selection.seeds;
  return [first, first + Math.max(ramps, negatives, slowRamps) - 1];
}

/**
 * The held-out selection on seeds from `first` instead, for a second measure: refused if
 * they meet training's, validation's or tuning's.
 */
export function heldOutFrom(first: number): Selection {
  const selection: Selection = { ...HELD_OUT, seeds: { ...HELD_OUT.seeds, first } };
  const [from, to] = seedRange(selection);
  for (const [name, other] of Object.entries({ training: TRAINING, validation: VALIDATION, tuning: TUNING })) {
    const [a, b] = seedRange(other);
    if (from <= b && a <= to) throw new RangeError(`seeds ${from} to ${to} meet the ${name} selection's (${a} to ${b})`);
  }
  return selection;
}

/** A sample's features: never none, as every tick of a traced period counts (traceSamples). */
function featuresOf(sample: PredictorSample): SampleFeatures {
  const features = sampleFeatures(sample, PARAMS.timeoutMs);
  if (features === null) throw new Error('a sample period without a tick');
  return features;
}

function series(disk: string, timed: TimedSample[], faulty: boolean, source: CorpusDisk['source']): CorpusDisk {
  return { disk, source, faulty, samples: timed, features: timed.map((t) => featuresOf(t.sample)) };
}

function generatedLines(options: ScenarioOptions): { lines: CorpusLine[]; info: ScenarioInfo } {
  const lines: CorpusLine[] = [];
  const generator = new ScenarioGenerator(options);
  for (const tick of generator.ticks()) for (const line of tick.lines) lines.push(line);
  lines.push({ tick: generator.info.ticks });
  return { lines, info: generator.info };
}

/** Each host's and seed's healthy P99s by disk: the scenarios of one seed share its host. */
const healthyP99s = new Map<string, Map<string, number>>();

/** The median P99 of a disk over the first 5 minutes of its seed's healthy host. */
function healthyP99(host: HostSpec, seed: number, disk: string): number {
  const key = `${JSON.stringify(host)} ${seed}`;
  let byDisk = healthyP99s.get(key);
  if (byDisk === undefined) {
    const { lines, info } = generatedLines({ kind: 'healthy', seed, ...host, durationMs: 300_000 });
    byDisk = new Map();
    for (const [name, timed] of traceSamples(lines, info.intervalMs, PARAMS.sampleMs)) {
      const p99s = timed.map((t) => featuresOf(t.sample).p99Ms).sort((a, b) => a - b);
      byDisk.set(name, p99s[p99s.length >> 1]);
    }
    healthyP99s.set(key, byDisk);
  }
  return byDisk.get(disk)!;
}

/** One generated run: every disk of the host as a series; `levelOffMs`, when a near miss's slow disk stops growing. */
export function scenarioRun(specName: string, hostName: string, seed: number): GeneratedRun {
  const spec = SPECS[specName];
  const host = HOSTS[hostName];
  const options: ScenarioOptions = { kind: spec.kind, seed, ...host, durationMs: spec.durationMs };
  const rng = new Rng(mixSeed(seed, 'predictor ramp', specName, hostName));
  const names = new ScenarioGenerator({ kind: 'healthy', seed, ...host, durationMs: PARAMS.sampleMs }).info.disks;
  if (spec.kind === 'ramp' || spec.kind === 'slow') {
    // A ramp has its `rampMin`, a ramp or a step its `reach` (SPECS).
    const rampMs = spec.kind === 'ramp' ? Math.round(rng.uniform(...spec.rampMin!) * 60_000) : 0;
    const reach = rng.uniform(...spec.reach!) * PARAMS.slaMs;
    const slowDisk = new Rng(mixSeed(seed, 'predictor slow disk')).int(host.disks);
    options.slowDisk = slowDisk;
    options.factor = Math.max(1, reach / healthyP99(host, seed, names[slowDisk]));
    options.durationMs = 360_000 + rampMs + 420_000;
    if (spec.kind === 'ramp') {
      options.rampMs = rampMs;
      options.rampShape = spec.shape;
    }
  }
  if (spec.periodS) {
    const periodMs = Math.round(rng.uniform(...spec.periodS) * 1000);
    // A periodic burst has its `burstReach`, a periodic stall its `stallMs` (SPECS).
    if (spec.kind === 'burst') {
      const reach = rng.uniform(...spec.burstReach!) * PARAMS.slaMs;
      const factorMedian = Math.max(1, reach / healthyP99(host, seed, names[0]));
      options.burst = { periodMs, minMs: 1000, maxMs: 3000, factorMedian, factorSigma: 0.2 };
    } else {
      options.stall = { periodMs, stallMs: Math.round(rng.uniform(...spec.stallMs!)) };
    }
  }
  if (spec.peak) options.peak = spec.peak;
  const { lines, info } = generatedLines(options);
  const byDisk = traceSamples(lines, info.intervalMs, PARAMS.sampleMs);
  const nearMiss = spec.reach !== undefined && spec.reach[1] < 1;
  return {
    name: `${specName} ${hostName} seed ${seed}`,
    spec: specName,
    host: hostName,
    seed,
    info,
    intervalMs: info.intervalMs,
    lines,
    disks: [...byDisk].map(([disk, timed]) => {
      const s = series(disk, timed, disk === info.slowDisk, 'generated');
      // A scenario's slow disk has its onset.
      if (s.faulty && info.onsetMs !== null) {
        s.onsetMs = info.onsetMs;
        if (nearMiss) s.levelOffMs = info.onsetMs + (info.ramp?.rampMs ?? 0);
      }
      return s;
    }),
  };
}

/**
 * A recorded trace (gzip'd JSON Lines): every disk as a series; the ones named ramp* were slowed
 * down past the SLA, the ones named level* levelled off under it at their last step (the schedule file).
 */
export function recordedRun(file: string): CorpusRun {
  const where = path.join(RECORDED_DIR, file);
  if (!existsSync(where)) throw new Error(`${path.relative(REPO_ROOT, where)} is missing: record it with dev/predict/record-fault-traces (see docs/design/early-warning-model.md)`);
  const text = gunzipSync(readFileSync(where)).toString('utf8');
  // The recorder's lines (docs/trace-format.md): a header first, in all but the oldest traces.
  const rows = text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line) as CorpusLine | RecordedHeader);
  const header = 'slowdisk_trace' in rows[0] ? (rows.shift() as RecordedHeader) : { interval_ms: 100 };
  const lines = rows as CorpusLine[];
  const byDisk = traceSamples(lines, header.interval_ms, PARAMS.sampleMs);
  const steps = readFileSync(where.replace(/\.jsonl\.gz$/, '.schedule'), 'utf8').trim().split('\n').map((line) => line.split(' '));
  return {
    name: `recorded ${file}`,
    spec: 'recorded',
    host: 'loop disks',
    seed: null,
    intervalMs: header.interval_ms,
    lines,
    disks: [...byDisk].map(([disk, timed]) => {
      const s = series(disk, timed, disk.startsWith('ramp'), 'recorded');
      const times = steps.filter(([name]) => name === disk).map(([, at]) => Number(at) * 1000);
      if (times.length > 0) s.onsetMs = Math.min(...times);
      if (disk.startsWith('level')) s.levelOffMs = Math.max(...times);
      return s;
    }),
  };
}

/**
 * The first sample of a disk from which a breach can be foreseen from its own samples: the
 * first whose period ends after the onset of its own slowdown (`onsetMs`: a scenario's slow
 * disk, a recording's disk from its first throttle); none for a disk never slowed down. A
 * breach before it comes from a slowdown still to start, which no window shows and which the
 * corpus starts on one disk of every ramp run, or from chance (a healthy HDD's spikes, a
 * burst, a peak, a stall of the whole host): training and calibration leave those out, so
 * that a healthy disk's probability is not the corpus's rate of onsets and spikes.
 */
export function foreseeableFrom(disk: Pick<CorpusDisk, 'onsetMs' | 'samples'>): number {
  const { onsetMs } = disk;
  if (onsetMs === undefined) return disk.samples.length;
  const i = disk.samples.findIndex((t) => t.atMs > onsetMs);
  return i < 0 ? disk.samples.length : i;
}

/**
 * A real host's own delays: for each 15 s sample of the healthy disks (never throttled) of
 * these recordings, by how much each inspection took longer than its disk's median one; a
 * sample with an unanswered tick or a P99 over half the SLA (a stall of the whole host) is
 * left out.
 */
export function hostDelays(files: readonly string[]): number[][] {
  const samples: number[][] = [];
  for (const file of files) {
    for (const disk of recordedRun(file).disks) {
      if (disk.onsetMs !== undefined || disk.faulty) continue;
      const all = disk.samples.flatMap((t) => t.sample.latenciesMs).sort((a, b) => a - b);
      const median = all[all.length >> 1];
      disk.samples.forEach((t, i) => {
        if ((t.sample.unansweredMs ?? []).length > 0 || disk.features[i].p99Ms > PARAMS.slaMs / 2) return;
        samples.push(t.sample.latenciesMs.map((ms) => Math.max(0, ms - median)));
      });
    }
  }
  return samples;
}

/**
 * A generated run as it would look on a real host: each disk's inspections each take longer
 * by a draw from one of the host's samples (`hostDelays`), the samples taken in their order
 * from a point drawn for the disk; unanswered ticks stay as they are. Seeded by the run.
 * Its `lines` stay the generated run's: the other detectors the benchmark times on sudden
 * breaches (--validation) see the run without the delays.
 */
export function withHostDelays(run: GeneratedRun, delays: readonly number[][]): GeneratedRun {
  const rng = new Rng(mixSeed(run.seed, 'host delays', run.spec, run.host));
  return {
    ...run,
    name: `${run.name} with host delays`,
    hostDelays: true,
    disks: run.disks.map((disk) => {
      const start = rng.int(delays.length);
      const samples = disk.samples.map((t, i) => {
        const from = delays[(start + i) % delays.length];
        const latenciesMs = t.sample.latenciesMs.map((ms) => Math.round((ms + from[rng.int(from.length)]) * 1000) / 1000);
        return { atMs: t.atMs, sample: { ...t.sample, latenciesMs } };
      });
      return { ...disk, samples, features: samples.map((t) => featuresOf(t.sample)) };
    }),
  };
}

/**
 * Every run of a selection (TRAINING or HELD_OUT), as jobs to run one at a time; with
 * `hostDelays` ({ recordings, share }), that share of the generated runs (drawn per run) also
 * as they would look on the recordings' host (withHostDelays).
 */
export function runJobs(selection: Selection): RunJob[] {
  const jobs: RunJob[] = [];
  const delayed = selection.hostDelays ? { share: selection.hostDelays.share, delays: hostDelays(traces(selection.hostDelays.recordings)) } : null;
  for (const specName of selection.specs) {
    const { runs } = SPECS[specName];
    const count = runs === 'ramps' ? selection.seeds.ramps : runs === 'slowRamps' ? (selection.seeds.slowRamps ?? 0) : selection.seeds.negatives;
    for (const hostName of selection.hosts) {
      for (let i = 0; i < count; i += 1) {
        const seed = selection.seeds.first + i;
        jobs.push({ label: `${specName} ${hostName}`, run: () => scenarioRun(specName, hostName, seed) });
        if (delayed && new Rng(mixSeed(seed, 'host delays?', specName, hostName)).next() < delayed.share) {
          jobs.push({ label: `${specName} ${hostName} with host delays`, run: () => withHostDelays(scenarioRun(specName, hostName, seed), delayed.delays) });
        }
      }
    }
  }
  for (const file of selection.recordings) jobs.push({ label: `recorded ${file}`, run: () => recordedRun(file) });
  return jobs;
}
