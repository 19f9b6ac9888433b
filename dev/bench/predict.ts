// Early-warning benchmark: the predictor's network against its linear-trend baseline, side
// by side on the held-out selection of dev/predict/corpus.ts (seeds, a host size, a ramp
// shape and a recording that training never saw).
//
//   npm run bench:predict                       # tsc, then this script
//   node dist-dev/dev/bench/predict.js [--validation | --tuning | --seeds FIRST] [--hosts A,B] [--set NAME=VALUE ...] [--network FILE] [--json FILE]
//
// --validation  run the validation selection instead (seeds kept apart from both training and
//               the held-out figures, for choosing training settings without looking at those)
// --tuning      run the tuning selection instead (the validation seeds' range with three times as
//               many seeds as the held-out one: what the warning rules were chosen on)
// --seeds       the held-out selection on seeds from FIRST instead of 100,001 (a second measure;
//               refused if they meet the training, validation or tuning seeds)
// --hosts       the selection's generated runs on these hosts instead (names of corpus.ts's
//               HOSTS): --tuning --hosts 12xHDD is the tuning seeds on the held-out selection's host
// --set         a predictor parameter other than its default (src/early-warning/predictor-params.ts),
//               for both models: --set linearRiseSamples=0 --set confirmSamples=1
// --network     another weights file for the network than the shipped one (train.ts's --out FILE),
//               with --set windowSamples=N if it was trained on another window
// --json        where the figures are written (bench-results/predict.json, predict-validation.json,
//               predict-tuning.json or predict-seeds-FIRST.json; with --hosts, their names added)
//
// Each run's disks are fed their 15 s samples period by period, as a live session feeds them,
// each judged against its peers (--set peerCondition=false: each alone). The truth comes from
// the P99s alone: a breach starts at a sample whose P99 is above the SLA after 5 minutes at or
// below it. A breach is warned of when a warning came in the 5 minutes before it (lead time:
// from the first such warning to the breach). A warning (the start of a run of samples above
// the warning probability, on a disk not in a breach) is true when a breach follows within 5
// minutes, false when none does. Calibration: every sample with a probability and a known
// answer (see breachTargets) is put in a bin of its predicted probability, against how often
// a breach did follow within 5 minutes; the Brier score is the mean squared difference. A
// near miss's slow disk levels off at a known time: on one that stays under the SLA from then
// on, the time to clear is how long a warning standing then, or raised later, lasted after that.
//
// Each breach is gradual when its P99 climbed through half the SLA at least 2 minutes before
// it (and stayed above it until the breach), sudden otherwise: no model reading latencies
// alone can see a sudden one coming. Recall and lead are given for each kind. For the sudden
// ones, the time the slow score (its slow threshold), the statistical detector and the tail
// detector (their confirmations) took to flag the disk, from the start of the breach's sample
// (negative: it was flagged already, up to 5 minutes before).
//
// On the recordings' healthy disks (loop disks, idle or under fio, backed by the machine's disk
// or by memory), the distribution of the probability: its 99th percentile over every sample
// with one, but those whose own P99 is over the SLA (a stall of the whole host, where the
// probability is 1 by rule), by backing; on their slowed-down disks, recall and lead.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { StatisticalDetector } from '../../src/detectors/statistical-detector.js';
import { TailDetector } from '../../src/detectors/tail-detector.js';
import { HostPredictors } from '../../src/early-warning/host-predictors.js';
import { type NetworkModel, parseNetworkModel } from '../../src/early-warning/network.js';
import { DEFAULT_PREDICTOR_PARAMS, horizonSamples, type PredictorModel, type PredictorParams, predictorParams } from '../../src/early-warning/predictor-params.js';
import { type Prediction, Predictor } from '../../src/early-warning/predictor.js';
import { sortedQuantile } from '../../src/early-warning/sample-features.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { reportedScore } from '../../src/score/store-score.js';
import { StoreTicks } from '../../src/score/store-ticks.js';
import { type CorpusDisk, type CorpusLine, type CorpusRun, HELD_OUT, heldOutFrom, HOSTS, runJobs, type Selection, SPECS, TUNING, VALIDATION } from '../predict/corpus.js';
import { hostPredictions } from '../predict/host-series.js';
import { breachStarts, breachTargets } from '../predict/labels.js';
import { REPO_ROOT } from '../repo-root.js';

type Flagger = 'slowScore' | 'statistical' | 'tail';

/** The detectors timed on sudden breaches, and what flags a disk for each. */
const FLAGGERS: Record<Flagger, string> = { slowScore: `slow score (>= ${DEFAULT_SCORE_PARAMS.slowThreshold})`, statistical: 'statistical (confirmed)', tail: 'tail (confirmed)' };

/** When each detector flagged each disk over a run's lines, fed tick by tick as replay would: disk -> detector -> times (ms). */
function flagTimes(lines: readonly CorpusLine[], intervalMs: number): Map<string, Record<Flagger, number[]>> {
  const byTick = new Map<number, Map<string, number | null>>();
  const disks = new Set<string>();
  let lastTick = 0;
  for (const line of lines) {
    lastTick = Math.max(lastTick, line.tick);
    if (line.disk === undefined || line.device !== undefined) continue;
    disks.add(line.disk);
    if (!byTick.has(line.tick)) byTick.set(line.tick, new Map());
    byTick.get(line.tick)!.set(line.disk, line.ms ?? null);
  }
  const names = [...disks];
  const times = new Map(names.map((d): [string, Record<Flagger, number[]>] => [d, { slowScore: [], statistical: [], tail: [] }]));
  const params = { ...DEFAULT_SCORE_PARAMS, intervalMs, timeoutMs: intervalMs };
  const store = new StoreTicks(params);
  store.setInspected(names, 0);
  const stat = new StatisticalDetector({ failureLatencyMs: intervalMs }, { onChange: ({ disk, to, atMs }) => to === 'confirmed' && times.get(disk)!.statistical.push(atMs) });
  const tail = new TailDetector({ failureLatencyMs: intervalMs }, { onChange: ({ disk, to, atMs }) => to === 'confirmed' && times.get(disk)!.tail.push(atMs) });
  const slow = new Map(names.map((d) => [d, false]));
  for (let k = 1; k <= lastTick; k += 1) {
    const t = k * intervalMs;
    if (store.tick(t).updated) {
      for (const d of names) {
        // Every disk is inspected from the start, so has a score.
        const flagged = reportedScore(store.scoreOf(d)!) >= params.slowThreshold;
        if (flagged && !slow.get(d)) times.get(d)!.slowScore.push(t);
        slow.set(d, flagged);
      }
    }
    const at = byTick.get(k);
    for (const d of names) {
      const ms = at?.get(d) ?? null;
      // One at or over the interval, or none, is charged at the next tick.
      if (ms !== null && ms < intervalMs) store.finished(d, k, ms);
      if (ms === null) {
        stat.failure(d, t);
        tail.failure(d, t);
      } else {
        stat.observe(d, t, ms);
        tail.observe(d, t, ms);
      }
    }
  }
  return times;
}

/**
 * Gradual: its P99 climbed through half the SLA at least 2 minutes before the breach at `j`,
 * and stayed above it (read through a median of 3 samples, so that one fast sample on the way
 * up does not break the climb); sudden otherwise.
 */
function isGradual(p99: readonly number[], j: number): boolean {
  const smoothed = (i: number): number => [p99[i - 1] ?? p99[i], p99[i], p99[i + 1] ?? p99[i]].sort((a, b) => a - b)[1];
  let from = j;
  while (from > 0 && smoothed(from - 1) > PARAMS.slaMs / 2) from -= 1;
  return (j - from) * PARAMS.sampleMs >= 120_000;
}

const MODELS: readonly PredictorModel[] = ['network', 'trend'];
const TITLES: Record<PredictorModel, string> = { network: 'network', trend: 'linear trend' };
const USAGE = 'usage: node dist-dev/dev/bench/predict.js [--validation | --tuning | --seeds FIRST] [--hosts A,B] [--set NAME=VALUE ...] [--network FILE] [--json FILE]\n';

interface Options {
  json: string;
  selection: 'held-out' | 'validation' | 'tuning';
  firstSeed: number | null;
  hosts: string[] | null;
  overrides: Partial<PredictorParams>;
  networkFile: string | null;
  network: NetworkModel | undefined;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Omit<Options, 'json'> & { json: string | null } = { json: null, selection: 'held-out', firstSeed: null, hosts: null, overrides: {}, networkFile: null, network: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const set = argv[i] === '--set' ? /^(\w+)=(.+)$/.exec(argv[i + 1] ?? '') : null;
    if (argv[i] === '--json' && argv[i + 1] !== undefined) options.json = path.resolve(argv[++i]);
    else if (argv[i] === '--network' && argv[i + 1] !== undefined) options.networkFile = path.resolve(argv[++i]);
    else if ((argv[i] === '--validation' || argv[i] === '--tuning') && options.selection === 'held-out' && options.firstSeed === null) options.selection = argv[i] === '--validation' ? 'validation' : 'tuning';
    else if (argv[i] === '--seeds' && /^[1-9]\d*$/.test(argv[i + 1] ?? '') && options.selection === 'held-out') options.firstSeed = Number(argv[++i]);
    else if (argv[i] === '--hosts' && (argv[i + 1] ?? '').split(',').every((name) => Object.hasOwn(HOSTS, name))) options.hosts = argv[++i].split(',');
    else if (set && set[1] in DEFAULT_PREDICTOR_PARAMS && set[1] !== 'model') {
      // Read as its default's type; predictorParams checks the value.
      const type = typeof DEFAULT_PREDICTOR_PARAMS[set[1] as keyof PredictorParams];
      Object.assign(options.overrides, { [set[1]]: type === 'number' ? Number(set[2]) : type === 'boolean' ? set[2] === 'true' : set[2] });
      i += 1;
    } else {
      process.stderr.write(USAGE);
      process.exit(3);
    }
  }
  try {
    if (options.firstSeed !== null) heldOutFrom(options.firstSeed);
    predictorParams(options.overrides);
    if (options.networkFile !== null) {
      options.network = parseNetworkModel(JSON.parse(readFileSync(options.networkFile, 'utf8')));
      // The predictor checks that the parameters fit the network's sampling and window.
      new Predictor(options.overrides, options.network);
    }
  } catch (error) {
    process.stderr.write(`bench:predict: ${(error as Error).message}\n`);
    process.exit(3);
  }
  const name = [options.firstSeed !== null ? `seeds-${options.firstSeed}` : options.selection === 'held-out' ? null : options.selection, options.hosts?.join('-')].filter(Boolean).join('-') || null;
  return { ...options, json: options.json ?? path.join(REPO_ROOT, 'bench-results', name === null ? 'predict.json' : `predict-${name}.json`) };
}

/** Where an event or a disk-hour is counted. */
function groupOf(run: CorpusRun, disk: CorpusDisk): string {
  if (run.spec === 'recorded') return disk.faulty ? 'recorded ramp' : disk.levelOffMs !== undefined ? 'recorded level' : 'recorded healthy';
  const spec = SPECS[run.spec];
  if (spec.kind !== 'ramp') return run.spec;
  if (!disk.faulty) return 'ramp runs, other disks';
  return run.spec;
}

/** Breaches of one kind (gradual or sudden): how many, how many were warned of, and how long before. */
interface KindTally {
  events: number;
  warned: number;
  leadsS: number[];
}

interface Tally extends KindTally {
  trueWarnings: number;
  falseWarnings: number;
  diskHours: number;
  clearS: number[];
  gradual: KindTally;
  sudden: KindTally;
}

function newKind(): KindTally {
  return { events: 0, warned: 0, leadsS: [] };
}

function newTally(): Tally {
  return { events: 0, warned: 0, leadsS: [], trueWarnings: 0, falseWarnings: 0, diskHours: 0, clearS: [], gradual: newKind(), sudden: newKind() };
}

/** The sudden breaches, each with the delay (s) of each detector's flag from the breach's sample start; null for none within 5 minutes after. */
const suddenFlags: { run: string; disk: string; group: string; delays: Partial<Record<Flagger, number | null>> }[] = [];

type Backing = 'machine disk' | 'tmpfs';
/** A recorded disk's backing, from its name (dev/predict/record-fault-traces). */
const backingOf = (disk: string): Backing => (disk.endsWith('-tmpfs') ? 'tmpfs' : 'machine disk');

interface HealthyProbabilities {
  byBacking: Record<Backing, number[]>;
  disks: Set<string>;
  overSla: number;
}
/** The probabilities on the recordings' healthy disks, by backing, and the samples left out (over the SLA). */
const newHealthyProbabilities = (): HealthyProbabilities => ({ byBacking: { 'machine disk': [], tmpfs: [] }, disks: new Set(), overSla: 0 });

/** Nearest rank, with the predictor's own percentile. */
function quantile(values: readonly number[], q: number): number {
  return values.length === 0 ? NaN : sortedQuantile(Float64Array.from(values).sort(), q);
}

function healthyFigures(h: HealthyProbabilities) {
  const of = (values: readonly number[]) => ({ samples: values.length, p50: quantile(values, 0.5), p99: quantile(values, 0.99), max: values.length ? Math.max(...values) : NaN });
  const all = Object.values(h.byBacking).flat();
  return { disks: h.disks.size, overSla: h.overSla, ...of(all), byBacking: Object.fromEntries(Object.entries(h.byBacking).map(([b, v]) => [b, of(v)])) };
}

/**
 * How long each warning standing at `levelOffMs` or raised after it lasted past that time (s);
 * one still standing at the end of the series counts as Infinity if the series went on 5
 * minutes past that time, and is left out otherwise (too late to tell).
 */
function clearTimes(atMs: readonly number[], warnings: readonly boolean[], levelOffMs: number): number[] {
  const times: number[] = [];
  warnings.forEach((w, i) => {
    // Once per warning: at its start, or at the first sample after levelling off for one standing then.
    if (!w || (warnings[i - 1] && (atMs[i - 1] >= levelOffMs || atMs[i] < levelOffMs))) return;
    let end = i;
    while (end < warnings.length && warnings[end]) end += 1;
    if (end < warnings.length && atMs[end] <= levelOffMs) return;
    const from = Math.max(atMs[i], levelOffMs);
    if (end === warnings.length && atMs[end - 1] - from < 300_000) return;
    times.push(end === warnings.length ? Infinity : (atMs[end] - from) / 1000);
  });
  return times;
}

const BINS = 10;
/** By bin of predicted probability: the samples, the sum of their predictions and of their answers; the sum of squared errors over them all. */
interface Reliability {
  n: number[];
  predicted: number[];
  observed: number[];
  squared: number;
  count: number;
}
const newReliability = (): Reliability => ({ n: new Array<number>(BINS).fill(0), predicted: new Array<number>(BINS).fill(0), observed: new Array<number>(BINS).fill(0), squared: 0, count: 0 });

function addReliability(r: Reliability, probabilities: readonly (number | null)[], labels: readonly (0 | 1 | null)[]): void {
  probabilities.forEach((p, i) => {
    const y = labels[i];
    if (p === null || y === null) return;
    const bin = Math.min(BINS - 1, Math.floor(p * BINS));
    r.n[bin] += 1;
    r.predicted[bin] += p;
    r.observed[bin] += y;
    r.squared += (p - y) ** 2;
    r.count += 1;
  });
}

/** Scores one disk's warnings against its P99s into the tally of its group; `onSudden(j)` for each sudden breach. */
function score(tally: Tally, p99: readonly number[], warnings: readonly boolean[], onSudden: (j: number) => void = () => {}): void {
  tally.diskHours += p99.length * SAMPLE_H;
  for (const j of breachStarts(p99, PARAMS.slaMs, H)) {
    if (j < PARAMS.minSamples - 1) continue;
    const gradual = isGradual(p99, j);
    const kind = gradual ? tally.gradual : tally.sudden;
    tally.events += 1;
    kind.events += 1;
    if (!gradual) onSudden(j);
    const first = warnings.findIndex((w, i) => w && i >= j - H && i < j);
    if (first >= 0) {
      tally.warned += 1;
      kind.warned += 1;
      tally.leadsS.push(((j - first) * PARAMS.sampleMs) / 1000);
      kind.leadsS.push(((j - first) * PARAMS.sampleMs) / 1000);
    }
  }
  warnings.forEach((w, i) => {
    if (!w || warnings[i - 1]) return;
    for (let k = Math.max(0, i - H + 1); k <= i; k += 1) if (p99[k] > PARAMS.slaMs) return;
    let breach = false;
    for (let k = i + 1; k <= Math.min(p99.length - 1, i + H); k += 1) breach ||= p99[k] > PARAMS.slaMs;
    if (breach) tally.trueWarnings += 1;
    else if (i + H <= p99.length - 1) tally.falseWarnings += 1;
  });
}

function merge(tallies: readonly Tally[]): Tally {
  const all = newTally();
  for (const t of tallies) {
    for (const key of ['events', 'warned', 'trueWarnings', 'falseWarnings', 'diskHours'] as const) all[key] += t[key];
    all.leadsS.push(...t.leadsS);
    all.clearS.push(...t.clearS);
    for (const kind of ['gradual', 'sudden'] as const) {
      all[kind].events += t[kind].events;
      all[kind].warned += t[kind].warned;
      all[kind].leadsS.push(...t[kind].leadsS);
    }
  }
  return all;
}

const median = (values: readonly number[]): number => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function kindFigures(k: KindTally) {
  return { events: k.events, warned: k.warned, recall: k.events > 0 ? k.warned / k.events : NaN, leadMedianS: median(k.leadsS) };
}

function figures(t: Tally) {
  const precision = t.trueWarnings + t.falseWarnings > 0 ? t.trueWarnings / (t.trueWarnings + t.falseWarnings) : NaN;
  return {
    events: t.events,
    warned: t.warned,
    recall: t.events > 0 ? t.warned / t.events : NaN,
    leadMedianS: median(t.leadsS),
    leadMinS: t.leadsS.length ? Math.min(...t.leadsS) : NaN,
    leadMaxS: t.leadsS.length ? Math.max(...t.leadsS) : NaN,
    trueWarnings: t.trueWarnings,
    falseWarnings: t.falseWarnings,
    precision,
    diskHours: t.diskHours,
    falsePerDiskHour: t.diskHours > 0 ? t.falseWarnings / t.diskHours : NaN,
    levelOffWarnings: t.clearS.length,
    clearMedianS: median(t.clearS),
    clearMaxS: t.clearS.length ? Math.max(...t.clearS) : NaN,
    clearedWithin5Min: t.clearS.filter((x) => x <= 300).length,
    gradual: kindFigures(t.gradual),
    sudden: kindFigures(t.sudden),
  };
}

const DEVELOPING: readonly string[] = ['ramp over (geometric)', 'ramp over (linear)', 'slow ramp over (geometric)', 'slow ramp over (linear)', 'recorded ramp'];
/** The host kinds the false warnings are counted for. */
const HOST_KINDS: Record<string, readonly string[]> = {
  healthy: ['healthy', 'recorded healthy', 'ramp runs, other disks'],
  bursty: ['burst', 'burst (periodic)', 'GC pauses', 'heavy tail', 'peak'],
  'near miss': ['ramp under (geometric)', 'ramp under (linear)', 'plateau under', 'plateau high', 'step under', 'recorded level'],
};
const NEAR_MISSES = HOST_KINDS['near miss'];
const NEGATIVES = [...HOST_KINDS.healthy, ...HOST_KINDS.bursty];

type Figures = ReturnType<typeof figures>;

function reliabilityFigures(r: Reliability) {
  return {
    samples: r.count,
    brier: r.squared / r.count,
    bins: r.n.map((n, b) => ({ from: b / BINS, to: (b + 1) / BINS, n, meanPredicted: n ? r.predicted[b] / n : NaN, observed: n ? r.observed[b] / n : NaN })),
  };
}

/** One value for each model, made in the order of MODELS. */
function perModel<T>(make: (model: PredictorModel) => T): Record<PredictorModel, T> {
  return Object.fromEntries(MODELS.map((model) => [model, make(model)])) as Record<PredictorModel, T>;
}

/** A table's rows, the first a header underlined, in columns two spaces apart. */
function formatTable(table: readonly (readonly string[])[]): string {
  const widths = table[0].map((_, c) => Math.max(...table.map((r) => r[c].length)));
  const line = (r: readonly string[]): string => r.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd();
  return [line(table[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(line)].join('\n');
}

const options = parseArgs(process.argv.slice(2));
const PARAMS = predictorParams(options.overrides);
const H = horizonSamples(PARAMS);
const SAMPLE_H = PARAMS.sampleMs / 3_600_000;

async function main(): Promise<void> {
  const tty = Boolean(process.stdout.isTTY) && (process.stdout.columns ?? 0) > 0;
  const spinner = tty ? (await import('ora')).default({ text: 'starting', stream: process.stdout }).start() : null;
  const tallies = perModel(() => new Map<string, Tally>());
  const reliability = perModel(newReliability);
  const healthy = perModel(newHealthyProbabilities);
  const chosen: Selection = options.firstSeed !== null ? heldOutFrom(options.firstSeed) : { 'held-out': HELD_OUT, validation: VALIDATION, tuning: TUNING }[options.selection];
  const selection = options.hosts === null ? chosen : { ...chosen, hosts: options.hosts };
  const jobs = runJobs(selection);
  jobs.forEach((job, n) => {
    if (spinner) spinner.text = `${n + 1}/${jobs.length} runs: ${job.label}`;
    const run = job.run();
    // The other detectors, only for a run with a breach: they need every inspection.
    let flags: Map<string, Record<Flagger, number[]>> | null = null;
    const flagsOf = (): Map<string, Record<Flagger, number[]>> => (flags ??= flagTimes(run.lines, run.intervalMs));
    const predictionsOf = perModel((model) => hostPredictions(run.disks, new HostPredictors({ ...options.overrides, model }, options.network)));
    for (const disk of run.disks) {
      const p99 = disk.features.map((f) => f.p99Ms);
      const labels = breachTargets(p99, PARAMS.slaMs, H, PARAMS.windowSamples);
      const atMs = disk.samples.map((s) => s.atMs);
      const group = groupOf(run, disk);
      const { levelOffMs } = disk;
      for (const model of MODELS) {
        // Every disk of the run has its predictions.
        const predictions: (Prediction | null)[] = predictionsOf[model].get(disk.disk)!;
        const warnings = predictions.map((p) => p?.warning ?? false);
        const byGroup = tallies[model];
        if (!byGroup.has(group)) byGroup.set(group, newTally());
        const tally = byGroup.get(group)!;
        score(tally, p99, warnings, (j) => {
          if (model !== 'network') return;
          // The breach's sample runs from 15 s before its end.
          const startMs = atMs[j] - PARAMS.sampleMs;
          const delays: Partial<Record<Flagger, number | null>> = {};
          for (const [name, times] of Object.entries(flagsOf().get(disk.disk) ?? {}) as [Flagger, number[]][]) {
            const t = times.find((x) => x >= startMs - 300_000 && x <= startMs + 300_000);
            delays[name] = t === undefined ? null : (t - startMs) / 1000;
          }
          suddenFlags.push({ run: run.name, disk: disk.disk, group, delays });
        });
        // Levelling off under the SLA: no breach from then on.
        const under = levelOffMs !== undefined && p99.every((x, i) => atMs[i] < levelOffMs || x <= PARAMS.slaMs);
        if (under) tally.clearS.push(...clearTimes(atMs, warnings, levelOffMs));
        addReliability(reliability[model], predictions.map((p) => p?.probability ?? null), labels);
        if (group === 'recorded healthy') {
          const h = healthy[model];
          h.disks.add(`${run.name} ${disk.disk}`);
          predictions.forEach((p, i) => {
            if (p?.probability === null || p?.probability === undefined) return;
            if (p99[i] > PARAMS.slaMs) h.overSla += 1;
            else h.byBacking[backingOf(disk.disk)].push(p.probability);
          });
        }
      }
    }
  });
  spinner?.stop();

  const results = perModel((model) => {
    const byGroup = tallies[model];
    const pick = (names: readonly string[]): Tally => merge(names.filter((g) => byGroup.has(g)).map((g) => byGroup.get(g)!));
    const developing = figures(pick(DEVELOPING));
    const all = figures(merge([...byGroup.values()]));
    return {
      developing,
      byGroup: Object.fromEntries([...byGroup].map(([g, t]) => [g, figures(t)])),
      nearMisses: figures(pick(NEAR_MISSES)),
      negatives: figures(pick(NEGATIVES)),
      hostKinds: Object.fromEntries(Object.entries(HOST_KINDS).map(([kind, names]) => [kind, figures(pick(names))])),
      reliability: reliabilityFigures(reliability[model]),
      recordedHealthy: healthyFigures(healthy[model]),
      all,
      // The balance of the two: recall of the developing slowdowns against the precision of every warning.
      f1: (2 * developing.recall * all.precision) / (developing.recall + all.precision),
    };
  });
  // A model that warned of nothing has no F1 (NaN): the other is the better.
  const better: PredictorModel = results.trend.f1 > results.network.f1 || !(results.network.f1 >= 0) ? 'trend' : 'network';

  const pct = (x: number): string => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '-');
  const secs = (x: number): string => (Number.isFinite(x) ? `${Math.round(x)} s` : '-');
  const rate = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '-');
  const g = (model: PredictorModel, group: string): Figures => results[model].byGroup[group] ?? figures(newTally());
  const falseRate = (t: Figures): string => `${rate(t.falsePerDiskHour)} (${t.falseWarnings} in ${t.diskHours.toFixed(1)} h)`;
  const rows: [string, (m: PredictorModel) => string][] = [
    ['recall, developing slowdowns', (m) => `${pct(results[m].developing.recall)} (${results[m].developing.warned}/${results[m].developing.events})`],
    ...DEVELOPING.map((name): [string, (m: PredictorModel) => string] => [`  ${name}`, (m) => `${pct(g(m, name).recall)} (${g(m, name).warned}/${g(m, name).events})`]),
    ['lead time, median (range)', (m) => `${secs(results[m].developing.leadMedianS)} (${secs(results[m].developing.leadMinS)} to ${secs(results[m].developing.leadMaxS)})`],
    ['recall, gradual breaches (every group)', (m) => `${pct(results[m].all.gradual.recall)} (${results[m].all.gradual.warned}/${results[m].all.gradual.events}), lead median ${secs(results[m].all.gradual.leadMedianS)}`],
    ['recall, sudden breaches (every group)', (m) => `${pct(results[m].all.sudden.recall)} (${results[m].all.sudden.warned}/${results[m].all.sudden.events}), lead median ${secs(results[m].all.sudden.leadMedianS)}`],
    ['precision, every warning', (m) => `${pct(results[m].all.precision)} (${results[m].all.trueWarnings}/${results[m].all.trueWarnings + results[m].all.falseWarnings})`],
    ['recall, sudden breaches (peaks, spikes)', (m) => {
      const t = figures(merge(NEGATIVES.concat(NEAR_MISSES).flatMap((x) => tallies[m].get(x) ?? [])));
      return `${pct(t.recall)} (${t.warned}/${t.events})`;
    }],
    ...Object.entries(HOST_KINDS).flatMap(([kind, names]): [string, (m: PredictorModel) => string][] => [
      [`false warnings / disk-hour, ${kind} hosts`, (m) => falseRate(results[m].hostKinds[kind])],
      ...names.map((name): [string, (m: PredictorModel) => string] => [`  ${name}`, (m) => falseRate(g(m, name))]),
    ]),
    ['levelling off: warnings cleared in 5 min', (m) => {
      const t = results[m].nearMisses;
      return `${t.clearedWithin5Min}/${t.levelOffWarnings}, median ${secs(t.clearMedianS)}, max ${t.clearMaxS === Infinity ? 'never' : secs(t.clearMaxS)}`;
    }],
    ['Brier score', (m) => results[m].reliability.brier.toFixed(4)],
    ['F1 (developing recall, precision)', (m) => rate(results[m].f1)],
  ];
  const table = [['measure', ...MODELS.map((m) => TITLES[m])], ...rows.map(([what, f]) => [what, ...MODELS.map((m) => f(m))])];
  process.stdout.write(`${formatTable(table)}\n`);
  process.stdout.write(`better by F1: ${TITLES[better]} (SLA ${PARAMS.slaMs} ms, warning above ${PARAMS.warnProbability}, horizon ${PARAMS.horizonMs / 60_000} min; ${options.selection} selection, seeds from ${selection.seeds.first}, hosts ${selection.hosts.join(', ')})\n`);

  // The targets: gradual breaches seen coming, few false warnings where none should be.
  process.stdout.write('\ntargets (gradual recall >= 90 % with a median lead >= 90 s; <= 0.02 false warnings per disk-hour on each of healthy, bursty and near-miss hosts):\n');
  for (const m of MODELS) {
    const gradual = results[m].all.gradual;
    const kinds = Object.entries(results[m].hostKinds);
    const met = gradual.recall >= 0.9 && gradual.leadMedianS >= 90 && kinds.every(([, t]) => t.falsePerDiskHour <= 0.02);
    const quiet = kinds.map(([kind, t]) => `${kind} ${rate(t.falsePerDiskHour)}`).join(', ');
    process.stdout.write(`  ${met ? 'MET' : 'NOT'}  ${TITLES[m]}: gradual recall ${pct(gradual.recall)} (${gradual.warned}/${gradual.events}), median lead ${secs(gradual.leadMedianS)}; false warnings per disk-hour: ${quiet}\n`);
  }

  // The recordings: real loop disks, healthy and slowed down by the fault kit.
  if (selection.recordings.length > 0) {
    const p = (x: number): string => (Number.isFinite(x) ? x.toFixed(3) : '-');
    process.stdout.write(`\nrecordings (${selection.recordings.map((f) => f.replace(/\.jsonl\.gz$/, '')).join(', ')}): healthy disks' probability, samples over the SLA left out; slowed-down disks' breaches\n`);
    for (const m of MODELS) {
      const h = results[m].recordedHealthy;
      const backings = Object.entries(h.byBacking).map(([b, f]) => `${b} ${p(f.p99)} (${f.samples})`).join(', ');
      const ramp = g(m, 'recorded ramp');
      const t = g(m, 'recorded healthy');
      process.stdout.write(`  ${TITLES[m]}: healthy, ${h.disks} disks: 99th percentile ${p(h.p99)} (target < 0.05), median ${p(h.p50)}, max ${p(h.max)}, ${h.samples} samples (${h.overSla} over the SLA); by backing: ${backings}; false warnings ${falseRate(t)}\n`);
      process.stdout.write(`  ${' '.repeat(TITLES[m].length)}  slowed down: ${pct(ramp.recall)} of ${ramp.events} breaches warned of, lead median ${secs(ramp.leadMedianS)}; gradual ${ramp.gradual.warned}/${ramp.gradual.events}, sudden ${ramp.sudden.warned}/${ramp.sudden.events}\n`);
    }
  }

  // Sudden breaches: what flags them instead.
  const flagRows = (Object.entries(FLAGGERS) as [Flagger, string][]).map(([name, title]) => {
    const delays = suddenFlags.map((s) => s.delays[name]).filter((d): d is number => d !== null && d !== undefined);
    const before = delays.filter((d) => d <= 0).length;
    return `  ${title}: ${delays.length}/${suddenFlags.length} flagged within 5 min of the breach (${before} of them already before it), median ${secs(median(delays))}, max ${delays.length ? secs(Math.max(...delays)) : '-'}`;
  });
  process.stdout.write(`\nsudden breaches (${suddenFlags.length}): time from the breach's sample start to the other detectors' flag\n${flagRows.join('\n')}\n`);
  const binRows = results.network.reliability.bins.map((_, b) => [
    `${(b / BINS).toFixed(1)}-${((b + 1) / BINS).toFixed(1)}`,
    ...MODELS.map((m) => {
      const bin = results[m].reliability.bins[b];
      return bin.n === 0 ? '-' : `${bin.meanPredicted.toFixed(3)} -> ${bin.observed.toFixed(3)} (${bin.n})`;
    }),
  ]);
  const reliabilityTable = [['predicted', ...MODELS.map((m) => `${TITLES[m]}: mean predicted -> observed (samples)`)], ...binRows];
  process.stdout.write(`\nreliability: of the samples predicted in a bin, the share followed by a breach within ${PARAMS.horizonMs / 60_000} min\n`);
  process.stdout.write(`${formatTable(reliabilityTable)}\n`);

  mkdirSync(path.dirname(options.json), { recursive: true });
  writeFileSync(options.json, `${JSON.stringify({ params: PARAMS, selection, better, results, suddenFlags }, null, 2)}\n`);
  if (tty) process.stdout.write(`figures written to ${path.relative(process.cwd(), options.json) || options.json}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:predict: ${(error as Error).message}\n`);
  process.exit(1);
});
