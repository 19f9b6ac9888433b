#!/usr/bin/env node
// Early-warning benchmark: the predictor's network against its linear-trend baseline, side
// by side on the held-out selection of scripts/predict/corpus.mjs (seeds, a host size, a ramp
// shape and a recording that training never saw).
//
//   npm run bench:predict                       # tsc, then this script
//   node scripts/bench/predict.mjs [--validation | --tuning] [--set NAME=VALUE ...] [--network FILE] [--json FILE]
//
// --validation  run the validation selection instead (seeds kept apart from both training and
//               the held-out figures, for choosing training settings without looking at those)
// --tuning      run the tuning selection instead (the validation seeds' range with three times as
//               many seeds as the held-out one: what the warning rules were chosen on)
// --set         a predictor parameter other than its default (src/early-warning/predictor-params.ts),
//               for both models: --set linearRiseSamples=0 --set confirmSamples=1
// --network     another weights file for the network than the shipped one (train.mjs --out FILE),
//               with --set windowSamples=N if it was trained on another window
// --json        where the figures are written (bench-results/predict.json, predict-validation.json or predict-tuning.json)
//
// Each disk is fed its 15 s samples in order, as a live session would. The truth comes from
// the P99s alone: a breach starts at a sample whose P99 is above the SLA after 5 minutes at or
// below it. A breach is warned of when a warning came in the 5 minutes before it (lead time:
// from the first such warning to the breach). A warning (the start of a run of samples above
// the warning probability, on a disk not in a breach) is true when a breach follows within 5
// minutes, false when none does. Calibration: every sample with a probability and a known
// answer (see breachTargets) is put in a bin of its predicted probability, against how often
// a breach did follow within 5 minutes; the Brier score is the mean squared difference. A
// near miss's slow disk levels off at a known time: on one that stays under the SLA from then
// on, the time to clear is how long a warning standing then, or raised later, lasted after that.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HELD_OUT, ROOT, runJobs, SPECS, TUNING, VALIDATION } from '../predict/corpus.mjs';

const dev = (file) => new URL(`file://${path.join(ROOT, 'dist-dev', file)}`).href;
const { DEFAULT_PREDICTOR_PARAMS, horizonSamples, predictorParams } = await import(dev('src/early-warning/predictor-params.js'));
const { Predictor } = await import(dev('src/early-warning/predictor.js'));
const { parseNetworkModel } = await import(dev('src/early-warning/network.js'));
const { breachStarts, breachTargets } = await import(dev('dev/predict/labels.js'));

const MODELS = ['network', 'trend'];
const TITLES = { network: 'network', trend: 'linear trend' };
const USAGE = 'usage: node scripts/bench/predict.mjs [--validation | --tuning] [--set NAME=VALUE ...] [--network FILE] [--json FILE]\n';

function parseArgs(argv) {
  const options = { json: null, selection: 'held-out', overrides: {}, networkFile: null, network: undefined };
  for (let i = 0; i < argv.length; i += 1) {
    const set = argv[i] === '--set' ? /^(\w+)=(.+)$/.exec(argv[i + 1] ?? '') : null;
    if (argv[i] === '--json' && argv[i + 1] !== undefined) options.json = path.resolve(argv[++i]);
    else if (argv[i] === '--network' && argv[i + 1] !== undefined) options.networkFile = path.resolve(argv[++i]);
    else if ((argv[i] === '--validation' || argv[i] === '--tuning') && options.selection === 'held-out') options.selection = argv[i].slice(2);
    else if (set && set[1] in DEFAULT_PREDICTOR_PARAMS && set[1] !== 'model') {
      const type = typeof DEFAULT_PREDICTOR_PARAMS[set[1]];
      options.overrides[set[1]] = type === 'number' ? Number(set[2]) : type === 'boolean' ? set[2] === 'true' : set[2];
      i += 1;
    } else {
      process.stderr.write(USAGE);
      process.exit(3);
    }
  }
  try {
    predictorParams(options.overrides);
    if (options.networkFile !== null) {
      options.network = parseNetworkModel(JSON.parse(readFileSync(options.networkFile, 'utf8')));
      // The predictor checks that the parameters fit the network's sampling and window.
      new Predictor(options.overrides, options.network);
    }
  } catch (error) {
    process.stderr.write(`bench:predict: ${error.message}\n`);
    process.exit(3);
  }
  options.json ??= path.join(ROOT, 'bench-results', options.selection === 'held-out' ? 'predict.json' : `predict-${options.selection}.json`);
  return options;
}

/** Where an event or a disk-hour is counted. */
function groupOf(run, disk) {
  if (run.spec === 'recorded') return disk.faulty ? 'recorded ramp' : disk.levelOffMs !== undefined ? 'recorded level' : 'recorded healthy';
  const spec = SPECS[run.spec];
  if (spec.kind !== 'ramp') return run.spec;
  if (!disk.faulty) return 'ramp runs, other disks';
  return run.spec;
}

function newTally() {
  return { events: 0, warned: 0, leadsS: [], trueWarnings: 0, falseWarnings: 0, diskHours: 0, clearS: [] };
}

/**
 * How long each warning standing at `levelOffMs` or raised after it lasted past that time (s);
 * one still standing at the end of the series counts as Infinity if the series went on 5
 * minutes past that time, and is left out otherwise (too late to tell).
 */
function clearTimes(atMs, warnings, levelOffMs) {
  const times = [];
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
const newReliability = () => ({ n: new Array(BINS).fill(0), predicted: new Array(BINS).fill(0), observed: new Array(BINS).fill(0), squared: 0, count: 0 });

function addReliability(r, probabilities, labels) {
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

/** Scores one disk's warnings against its P99s into the tally of its group. */
function score(tally, p99, warnings) {
  tally.diskHours += p99.length * SAMPLE_H;
  for (const j of breachStarts(p99, PARAMS.slaMs, H)) {
    if (j < PARAMS.minSamples - 1) continue;
    tally.events += 1;
    const first = warnings.findIndex((w, i) => w && i >= j - H && i < j);
    if (first >= 0) {
      tally.warned += 1;
      tally.leadsS.push(((j - first) * PARAMS.sampleMs) / 1000);
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

function merge(tallies) {
  const all = newTally();
  for (const t of tallies) {
    for (const key of ['events', 'warned', 'trueWarnings', 'falseWarnings', 'diskHours']) all[key] += t[key];
    all.leadsS.push(...t.leadsS);
    all.clearS.push(...t.clearS);
  }
  return all;
}

const median = (values) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function figures(t) {
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
  };
}

const DEVELOPING = ['ramp over (geometric)', 'ramp over (linear)', 'recorded ramp'];
/** The host kinds the false warnings are counted for. */
const HOST_KINDS = {
  healthy: ['healthy', 'recorded healthy', 'ramp runs, other disks'],
  bursty: ['burst', 'burst (periodic)', 'GC pauses', 'heavy tail', 'peak'],
  'near miss': ['ramp under (geometric)', 'ramp under (linear)', 'plateau under', 'step under', 'recorded level'],
};
const NEAR_MISSES = HOST_KINDS['near miss'];
const NEGATIVES = [...HOST_KINDS.healthy, ...HOST_KINDS.bursty];

function reliabilityFigures(r) {
  return {
    samples: r.count,
    brier: r.squared / r.count,
    bins: r.n.map((n, b) => ({ from: b / BINS, to: (b + 1) / BINS, n, meanPredicted: n ? r.predicted[b] / n : NaN, observed: n ? r.observed[b] / n : NaN })),
  };
}

const options = parseArgs(process.argv.slice(2));
const PARAMS = predictorParams(options.overrides);
const H = horizonSamples(PARAMS);
const SAMPLE_H = PARAMS.sampleMs / 3_600_000;

async function main() {
  const tty = Boolean(process.stdout.isTTY) && (process.stdout.columns ?? 0) > 0;
  const spinner = tty ? (await import('ora')).default({ text: 'starting', stream: process.stdout }).start() : null;
  const tallies = Object.fromEntries(MODELS.map((m) => [m, new Map()]));
  const reliability = Object.fromEntries(MODELS.map((m) => [m, newReliability()]));
  const selection = { 'held-out': HELD_OUT, validation: VALIDATION, tuning: TUNING }[options.selection];
  const jobs = runJobs(selection);
  jobs.forEach((job, n) => {
    if (spinner) spinner.text = `${n + 1}/${jobs.length} runs: ${job.label}`;
    const run = job.run();
    for (const disk of run.disks) {
      const p99 = disk.features.map((f) => f.p99Ms);
      const labels = breachTargets(p99, PARAMS.slaMs, H, PARAMS.windowSamples);
      const atMs = disk.samples.map((s) => s.atMs);
      const group = groupOf(run, disk);
      for (const model of MODELS) {
        const predictor = new Predictor({ ...options.overrides, model }, options.network);
        const predictions = disk.samples.map(({ atMs, sample }) => predictor.observe(atMs, sample));
        const warnings = predictions.map((p) => p?.warning ?? false);
        const byGroup = tallies[model];
        if (!byGroup.has(group)) byGroup.set(group, newTally());
        score(byGroup.get(group), p99, warnings);
        // Levelling off under the SLA: no breach from then on.
        const under = disk.levelOffMs !== undefined && p99.every((x, i) => atMs[i] < disk.levelOffMs || x <= PARAMS.slaMs);
        if (under) byGroup.get(group).clearS.push(...clearTimes(atMs, warnings, disk.levelOffMs));
        addReliability(reliability[model], predictions.map((p) => p?.probability ?? null), labels);
      }
    }
  });
  spinner?.stop();

  const results = {};
  for (const model of MODELS) {
    const byGroup = tallies[model];
    const pick = (names) => merge(names.filter((g) => byGroup.has(g)).map((g) => byGroup.get(g)));
    const developing = figures(pick(DEVELOPING));
    const all = figures(merge([...byGroup.values()]));
    results[model] = {
      developing,
      byGroup: Object.fromEntries([...byGroup].map(([g, t]) => [g, figures(t)])),
      nearMisses: figures(pick(NEAR_MISSES)),
      negatives: figures(pick(NEGATIVES)),
      hostKinds: Object.fromEntries(Object.entries(HOST_KINDS).map(([kind, names]) => [kind, figures(pick(names))])),
      reliability: reliabilityFigures(reliability[model]),
      all,
      // The balance of the two: recall of the developing slowdowns against the precision of every warning.
      f1: (2 * developing.recall * all.precision) / (developing.recall + all.precision),
    };
  }
  // A model that warned of nothing has no F1 (NaN): the other is the better.
  const better = results.trend.f1 > results.network.f1 || !(results.network.f1 >= 0) ? 'trend' : 'network';

  const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '-');
  const secs = (x) => (Number.isFinite(x) ? `${Math.round(x)} s` : '-');
  const rate = (x) => (Number.isFinite(x) ? x.toFixed(3) : '-');
  const g = (model, group) => results[model].byGroup[group] ?? figures(newTally());
  const falseRate = (t) => `${rate(t.falsePerDiskHour)} (${t.falseWarnings} in ${t.diskHours.toFixed(1)} h)`;
  const rows = [
    ['recall, developing slowdowns', (m) => `${pct(results[m].developing.recall)} (${results[m].developing.warned}/${results[m].developing.events})`],
    ...DEVELOPING.map((name) => [`  ${name}`, (m) => `${pct(g(m, name).recall)} (${g(m, name).warned}/${g(m, name).events})`]),
    ['lead time, median (range)', (m) => `${secs(results[m].developing.leadMedianS)} (${secs(results[m].developing.leadMinS)} to ${secs(results[m].developing.leadMaxS)})`],
    ['precision, every warning', (m) => `${pct(results[m].all.precision)} (${results[m].all.trueWarnings}/${results[m].all.trueWarnings + results[m].all.falseWarnings})`],
    ['recall, sudden breaches (peaks, spikes)', (m) => {
      const t = figures(merge(NEGATIVES.concat(NEAR_MISSES).map((x) => tallies[m].get(x)).filter(Boolean)));
      return `${pct(t.recall)} (${t.warned}/${t.events})`;
    }],
    ...Object.entries(HOST_KINDS).flatMap(([kind, names]) => [
      [`false warnings / disk-hour, ${kind} hosts`, (m) => falseRate(results[m].hostKinds[kind])],
      ...names.map((name) => [`  ${name}`, (m) => falseRate(g(m, name))]),
    ]),
    ['levelling off: warnings cleared in 5 min', (m) => {
      const t = results[m].nearMisses;
      return `${t.clearedWithin5Min}/${t.levelOffWarnings}, median ${secs(t.clearMedianS)}, max ${t.clearMaxS === Infinity ? 'never' : secs(t.clearMaxS)}`;
    }],
    ['Brier score', (m) => results[m].reliability.brier.toFixed(4)],
    ['F1 (developing recall, precision)', (m) => rate(results[m].f1)],
  ];
  const table = [['measure', ...MODELS.map((m) => TITLES[m])], ...rows.map(([what, f]) => [what, ...MODELS.map(f)])];
  const widths = table[0].map((_, c) => Math.max(...table.map((r) => r[c].length)));
  const line = (r) => r.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd();
  process.stdout.write(`${[line(table[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(line)].join('\n')}\n`);
  process.stdout.write(`better by F1: ${TITLES[better]} (SLA ${PARAMS.slaMs} ms, warning above ${PARAMS.warnProbability}, horizon ${PARAMS.horizonMs / 60_000} min)\n`);
  const binRows = results.network.reliability.bins.map((_, b) => [
    `${(b / BINS).toFixed(1)}-${((b + 1) / BINS).toFixed(1)}`,
    ...MODELS.map((m) => {
      const bin = results[m].reliability.bins[b];
      return bin.n === 0 ? '-' : `${bin.meanPredicted.toFixed(3)} -> ${bin.observed.toFixed(3)} (${bin.n})`;
    }),
  ]);
  const reliabilityTable = [['predicted', ...MODELS.map((m) => `${TITLES[m]}: mean predicted -> observed (samples)`)], ...binRows];
  const rw = reliabilityTable[0].map((_, c) => Math.max(...reliabilityTable.map((r) => r[c].length)));
  const rline = (r) => r.map((cell, c) => cell.padEnd(rw[c])).join('  ').trimEnd();
  process.stdout.write(`\nreliability: of the samples predicted in a bin, the share followed by a breach within ${PARAMS.horizonMs / 60_000} min\n`);
  process.stdout.write(`${[rline(reliabilityTable[0]), rw.map((w) => '-'.repeat(w)).join('  '), ...binRows.map(rline)].join('\n')}\n`);

  mkdirSync(path.dirname(options.json), { recursive: true });
  writeFileSync(options.json, `${JSON.stringify({ params: PARAMS, selection, better, results }, null, 2)}\n`);
  if (tty) process.stdout.write(`figures written to ${path.relative(process.cwd(), options.json) || options.json}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench:predict: ${error.message}\n`);
  process.exit(1);
});
