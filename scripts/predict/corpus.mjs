// The disks the predictor is trained and measured on: generated scenarios (src/scenarios/)
// and the traces recorded on real loop disks (data/predict/traces/, made by
// record-fault-traces), each cut into 15 s samples as a live session would feed them.
// Which seeds, hosts, scenarios and recordings train and which are held out is fixed here,
// so that the benchmark never sees what training saw.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dist = (file) => new URL(`file://${path.join(ROOT, 'dist', file)}`).href;

const { ScenarioGenerator, Rng, mixSeed } = await import(dist('scenarios/index.js'));
const { DEFAULT_PREDICTOR_PARAMS, sampleFeatures, traceSamples } = await import(dist('predict/index.js'));

export const RECORDED_DIR = path.join(ROOT, 'data/predict/traces');
const PARAMS = DEFAULT_PREDICTOR_PARAMS;

/**
 * Scenarios. A ramp's slow disk grows from its healthy P99 to a final P99 drawn in `reach`
 * (times the SLA) over a time drawn in `rampMin` minutes: "over" ramps cross the SLA 2 to 10
 * minutes after their onset, "under" ones level off below it (the near misses a predictor
 * must not warn about).
 */
export const SPECS = {
  healthy: { kind: 'healthy', durationMs: 1_800_000 },
  peak: { kind: 'peak', durationMs: 3_600_000 },
  burst: { kind: 'burst', durationMs: 1_800_000 },
  'ramp over (geometric)': { kind: 'ramp', shape: 'geometric', reach: [2, 5], rampMin: [3, 14] },
  'ramp under (geometric)': { kind: 'ramp', shape: 'geometric', reach: [0.15, 0.4], rampMin: [3, 14] },
  'ramp over (linear)': { kind: 'ramp', shape: 'linear', reach: [2, 5], rampMin: [3, 14] },
  'ramp under (linear)': { kind: 'ramp', shape: 'linear', reach: [0.15, 0.4], rampMin: [3, 14] },
};

export const HOSTS = {
  '2xSSD': { disks: 2, media: 'ssd' },
  '4xHDD': { disks: 4, media: 'hdd' },
  '12xHDD': { disks: 12, media: 'hdd' },
};

/** What training sees: geometric ramps only, seeds from 1, and recording session a. */
export const TRAINING = {
  seeds: { first: 1, ramps: 40, negatives: 6 },
  hosts: ['2xSSD', '4xHDD'],
  specs: ['healthy', 'peak', 'burst', 'ramp over (geometric)', 'ramp under (geometric)'],
  recordings: ['session-a.jsonl.gz'],
};

/** What training settings were chosen on: seeds of their own, no recording (there are two). */
export const VALIDATION = {
  seeds: { first: 50_001, ramps: 15, negatives: 3 },
  hosts: ['2xSSD', '12xHDD'],
  specs: Object.keys(SPECS),
  recordings: [],
};

/** What the benchmark sees: other seeds, a larger host, linear ramps as well, and recording session b. */
export const HELD_OUT = {
  seeds: { first: 100_001, ramps: 40, negatives: 6 },
  hosts: ['2xSSD', '12xHDD'],
  specs: Object.keys(SPECS),
  recordings: ['session-b.jsonl.gz'],
};

/** A disk's series: its samples, their features, and whether the scenario made it slow. */
function series(disk, timed, faulty, source) {
  const features = timed.map((t) => sampleFeatures(t.sample, PARAMS.timeoutMs));
  return { disk, source, faulty, samples: timed, features };
}

function generatedLines(options) {
  const lines = [];
  const generator = new ScenarioGenerator(options);
  for (const tick of generator.ticks()) for (const line of tick.lines) lines.push(line);
  lines.push({ tick: generator.info.ticks });
  return { lines, info: generator.info };
}

/** The median P99 of a disk over the first 5 minutes of its seed's healthy host. */
function healthyP99(host, seed, disk) {
  const { lines, info } = generatedLines({ kind: 'healthy', seed, ...host, durationMs: 300_000 });
  const p99s = traceSamples(lines, info.intervalMs, PARAMS.sampleMs)
    .get(disk)
    .map((t) => sampleFeatures(t.sample, PARAMS.timeoutMs).p99Ms)
    .sort((a, b) => a - b);
  return p99s[p99s.length >> 1];
}

/** One generated run: every disk of the host as a series. */
export function scenarioRun(specName, hostName, seed) {
  const spec = SPECS[specName];
  const host = HOSTS[hostName];
  const options = { kind: spec.kind, seed, ...host, durationMs: spec.durationMs };
  if (spec.kind === 'ramp') {
    const rng = new Rng(mixSeed(seed, 'predictor ramp', specName, hostName));
    const rampMs = Math.round(rng.uniform(...spec.rampMin) * 60_000);
    const reach = rng.uniform(...spec.reach) * PARAMS.slaMs;
    const slowDisk = new Rng(mixSeed(seed, 'predictor slow disk')).int(host.disks);
    const names = new ScenarioGenerator({ kind: 'healthy', seed, ...host, durationMs: PARAMS.sampleMs }).info.disks;
    const factor = Math.max(1, reach / healthyP99(host, seed, names[slowDisk]));
    Object.assign(options, { slowDisk, factor, rampMs, rampShape: spec.shape, durationMs: 360_000 + rampMs + 420_000 });
  }
  const { lines, info } = generatedLines(options);
  const byDisk = traceSamples(lines, info.intervalMs, PARAMS.sampleMs);
  return {
    name: `${specName} ${hostName} seed ${seed}`,
    spec: specName,
    host: hostName,
    seed,
    info,
    disks: [...byDisk].map(([disk, timed]) => series(disk, timed, disk === info.slowDisk, 'generated')),
  };
}

/** A recorded trace (gzip'd JSON Lines): every disk as a series; the ones named ramp* were slowed down. */
export function recordedRun(file) {
  const where = path.join(RECORDED_DIR, file);
  if (!existsSync(where)) throw new Error(`${path.relative(ROOT, where)} is missing: record it with scripts/predict/record-fault-traces (see docs/early-warning.md)`);
  const text = gunzipSync(readFileSync(where)).toString('utf8');
  const rows = text.split('\n').filter((line) => line !== '').map((line) => JSON.parse(line));
  const header = 'slowdisk_trace' in rows[0] ? rows.shift() : { interval_ms: 100 };
  const byDisk = traceSamples(rows, header.interval_ms, PARAMS.sampleMs);
  return {
    name: `recorded ${file}`,
    spec: 'recorded',
    host: 'loop disks',
    seed: null,
    disks: [...byDisk].map(([disk, timed]) => series(disk, timed, disk.startsWith('ramp'), 'recorded')),
  };
}

/** Every run of a selection (TRAINING or HELD_OUT), as jobs to run one at a time. */
export function runJobs(selection) {
  const jobs = [];
  for (const specName of selection.specs) {
    const count = SPECS[specName].kind === 'ramp' ? selection.seeds.ramps : selection.seeds.negatives;
    for (const hostName of selection.hosts) {
      for (let i = 0; i < count; i += 1) jobs.push({ label: `${specName} ${hostName}`, run: () => scenarioRun(specName, hostName, selection.seeds.first + i) });
    }
  }
  for (const file of selection.recordings) jobs.push({ label: `recorded ${file}`, run: () => recordedRun(file) });
  return jobs;
}
