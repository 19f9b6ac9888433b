#!/usr/bin/env node
// Early-warning benchmark: the predictor's network against its linear-trend baseline, side
// by side on the held-out selection of scripts/predict/corpus.mjs (seeds, a host size, a ramp
// shape and a recording that training never saw).
//
//   npm run bench:predict                       # tsc, then this script
//   node scripts/bench/predict.mjs [--validation] [--json FILE]
//
// --validation  run the validation selection instead (seeds kept apart from both training and
//               the held-out figures, for choosing training settings without looking at those)
// --json        where the figures are written (bench-results/predict.json, or predict-validation.json)
//
// Each disk is fed its 15 s samples in order, as a live session would. The truth comes from
// the P99s alone: a breach starts at a sample whose P99 is above the SLA after 5 minutes at or
// below it. A breach is warned of when a warning came in the 5 minutes before it (lead time:
// from the first such warning to the breach). A warning (the start of a run of samples above
// the warning probability, on a disk not in a breach) is true when a breach follows within 5
// minutes, false when none does.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { HELD_OUT, ROOT, runJobs, SPECS, VALIDATION } from '../predict/corpus.mjs';

const dist = (file) => new URL(`file://${path.join(ROOT, 'dist', file)}`).href;
const { DEFAULT_PREDICTOR_PARAMS, Predictor, breachStarts, horizonSamples } = await import(dist('predict/index.js'));

const MODELS = ['network', 'trend'];
const TITLES = { network: 'network', trend: 'linear trend' };
const PARAMS = DEFAULT_PREDICTOR_PARAMS;
const H = horizonSamples(PARAMS);
const SAMPLE_H = PARAMS.sampleMs / 3_600_000;

function parseArgs(argv) {
  const options = { json: null, validation: false };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--json' && argv[i + 1] !== undefined) options.json = path.resolve(argv[++i]);
    else if (argv[i] === '--validation') options.validation = true;
    else {
      process.stderr.write('usage: node scripts/bench/predict.mjs [--validation] [--json FILE]\n');
      process.exit(3);
    }
  }
  options.json ??= path.join(ROOT, 'bench-results', options.validation ? 'predict-validation.json' : 'predict.json');
  return options;
}

/** Where an event or a disk-hour is counted. */
function groupOf(run, disk) {
  if (run.spec === 'recorded') return disk.faulty ? 'recorded ramp' : 'recorded healthy';
  const spec = SPECS[run.spec];
  if (spec.kind !== 'ramp') return run.spec;
  if (!disk.faulty) return 'ramp runs, other disks';
  return run.spec;
}

function newTally() {
  return { events: 0, warned: 0, leadsS: [], trueWarnings: 0, falseWarnings: 0, diskHours: 0 };
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
  };
}

const DEVELOPING = ['ramp over (geometric)', 'ramp over (linear)', 'recorded ramp'];
const NEAR_MISSES = ['ramp under (geometric)', 'ramp under (linear)'];
const NEGATIVES = ['healthy', 'peak', 'burst', 'recorded healthy', 'ramp runs, other disks'];

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const tty = Boolean(process.stdout.isTTY) && (process.stdout.columns ?? 0) > 0;
  const spinner = tty ? (await import('ora')).default({ text: 'starting', stream: process.stdout }).start() : null;
  const tallies = Object.fromEntries(MODELS.map((m) => [m, new Map()]));
  const selection = options.validation ? VALIDATION : HELD_OUT;
  const jobs = runJobs(selection);
  jobs.forEach((job, n) => {
    if (spinner) spinner.text = `${n + 1}/${jobs.length} runs: ${job.label}`;
    const run = job.run();
    for (const disk of run.disks) {
      const p99 = disk.features.map((f) => f.p99Ms);
      const group = groupOf(run, disk);
      for (const model of MODELS) {
        const predictor = new Predictor({ model });
        const warnings = disk.samples.map(({ atMs, sample }) => predictor.observe(atMs, sample)?.warning ?? false);
        const byGroup = tallies[model];
        if (!byGroup.has(group)) byGroup.set(group, newTally());
        score(byGroup.get(group), p99, warnings);
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
      all,
      // The balance of the two: recall of the developing slowdowns against the precision of every warning.
      f1: (2 * developing.recall * all.precision) / (developing.recall + all.precision),
    };
  }
  const better = results.network.f1 > results.trend.f1 ? 'network' : 'trend';

  const pct = (x) => (Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : '-');
  const secs = (x) => (Number.isFinite(x) ? `${Math.round(x)} s` : '-');
  const rate = (x) => (Number.isFinite(x) ? x.toFixed(3) : '-');
  const g = (model, group) => results[model].byGroup[group] ?? figures(newTally());
  const rows = [
    ['recall, developing slowdowns', (m) => `${pct(results[m].developing.recall)} (${results[m].developing.warned}/${results[m].developing.events})`],
    ...DEVELOPING.map((name) => [`  ${name}`, (m) => `${pct(g(m, name).recall)} (${g(m, name).warned}/${g(m, name).events})`]),
    ['lead time, median (range)', (m) => `${secs(results[m].developing.leadMedianS)} (${secs(results[m].developing.leadMinS)} to ${secs(results[m].developing.leadMaxS)})`],
    ['precision, every warning', (m) => `${pct(results[m].all.precision)} (${results[m].all.trueWarnings}/${results[m].all.trueWarnings + results[m].all.falseWarnings})`],
    ['recall, sudden breaches (peaks, spikes)', (m) => {
      const t = figures(merge(NEGATIVES.concat(NEAR_MISSES).map((x) => tallies[m].get(x)).filter(Boolean)));
      return `${pct(t.recall)} (${t.warned}/${t.events})`;
    }],
    ...['healthy', 'peak', 'burst', 'recorded healthy', 'ramp runs, other disks'].map((name) => [
      `false warnings / disk-hour, ${name}`,
      (m) => `${rate(g(m, name).falsePerDiskHour)} (${g(m, name).falseWarnings} in ${g(m, name).diskHours.toFixed(1)} h)`,
    ]),
    ['false warnings / disk-hour, near misses', (m) => `${rate(results[m].nearMisses.falsePerDiskHour)} (${results[m].nearMisses.falseWarnings} in ${results[m].nearMisses.diskHours.toFixed(1)} h)`],
    ['F1 (developing recall, precision)', (m) => rate(results[m].f1)],
  ];
  const table = [['measure', ...MODELS.map((m) => TITLES[m])], ...rows.map(([what, f]) => [what, ...MODELS.map(f)])];
  const widths = table[0].map((_, c) => Math.max(...table.map((r) => r[c].length)));
  const line = (r) => r.map((cell, c) => cell.padEnd(widths[c])).join('  ').trimEnd();
  process.stdout.write(`${[line(table[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...table.slice(1).map(line)].join('\n')}\n`);
  process.stdout.write(`better by F1: ${TITLES[better]} (SLA ${PARAMS.slaMs} ms, warning above ${PARAMS.warnProbability}, horizon ${PARAMS.horizonMs / 60_000} min)\n`);

  mkdirSync(path.dirname(options.json), { recursive: true });
  writeFileSync(options.json, `${JSON.stringify({ params: PARAMS, selection, better, results }, null, 2)}\n`);
  if (tty) process.stdout.write(`figures written to ${path.relative(process.cwd(), options.json) || options.json}\n`);
}

main().catch((error) => {
  process.stderr.write(`bench:predict: ${error.message}\n`);
  process.exit(1);
});
