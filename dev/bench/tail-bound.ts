// How fast can any test confirm the tail under journal commits, at the detection benchmark's
// false-confirmation budget? Measures, on the benchmark's own scenario ('tail 3% x5, journal'),
// how much a faulty disk's inspections tell of the tail (the Kullback-Leibler divergence per
// inspection of its latencies after the onset from those before), and turns that into the
// delay of the best sequential test: a CUSUM, optimal for this question, raises a false alarm
// about once in e^h inspections and takes about h / KL inspections to find a change, and no
// test with as few false alarms takes fewer (Lorden 1971; Moustakides 1986).
//
//   npm run bench:tail-bound -- [--runs N] [--seed S]
//
// Four views of an inspection, each against its histogram before the onset: whether it is
// lone (the tail detector's own lone count, its line and calm neighbours as the defaults set
// them); how high it is, when lone (its latency's bin, or not lone); its latency alone (log-spaced bins of a third of an octave, over the run's median
// before the onset); its latency given the one before it (a first-order Markov chain on
// those bins). Each is the information of a test that knows both distributions exactly: a
// real test, which learns the disk's baseline from its last minutes, does worse.
import { DEFAULT_TAIL_PARAMS } from '../../src/detectors/tail-params.js';
import { ScenarioGenerator, tickLatencies } from '../scenarios/index.js';
import { HOSTS } from './detect-runs.js';

/** The detection benchmark's budget: 404 disk-hours of each scenario without a fault, per host. */
const BUDGET_DISK_HOURS = 404;
/** False alarms expected in that budget: about one, and a tenth (0 in 404 disk-hours, most of the time). */
const EXPECTED_FALSE_ALARMS = [1, 0.1];
/** Bins of a third of an octave, from half the median to 2^7 times it. */
const BINS = 24;
const BIN_FROM_OCTAVES = -1;
const BINS_PER_OCTAVE = 3;

function parseArgs(argv: readonly string[]): { runs: number; seed: number } {
  const options = { runs: 100, seed: 60001 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], Number(argv[i + 1])];
    if ((flag !== '--runs' && flag !== '--seed') || !Number.isInteger(value) || value < 1) {
      throw new Error('usage: node dist-dev/dev/bench/tail-bound.js [--runs N] [--seed S]');
    }
    options[flag === '--runs' ? 'runs' : 'seed'] = value;
  }
  return options;
}

/** Counts before (0) and after (1) the onset. */
class Histograms {
  readonly counts: [Float64Array, Float64Array];
  constructor(size: number) {
    this.counts = [new Float64Array(size), new Float64Array(size)];
  }

  /**
   * KL(after || before), in nats. Half a count in every bin before the onset: a bin seen only
   * after it would otherwise carry infinite information.
   */
  divergence(): number {
    const [before, after] = this.counts;
    const nBefore = before.reduce((a, b) => a + b, 0) + 0.5 * before.length;
    const nAfter = after.reduce((a, b) => a + b, 0);
    let kl = 0;
    for (let i = 0; i < after.length; i += 1) {
      const p = after[i] / nAfter;
      if (p > 0) kl += p * Math.log(p / ((before[i] + 0.5) / nBefore));
    }
    return kl;
  }
}

const binOf = (ms: number, medianMs: number) => Math.max(0, Math.min(BINS - 1, Math.floor((Math.log2(ms / medianMs) - BIN_FROM_OCTAVES) * BINS_PER_OCTAVE)));

interface HostBound {
  host: string;
  intervalMs: number;
  loneShare: [number, number];
  /** KL per inspection of each view. */
  information: { lone: number; loneHeight: number; latency: number; latencyGivenPrevious: number };
}

function measureHost(host: (typeof HOSTS)[number], runs: number, seed: number): HostBound {
  const p = DEFAULT_TAIL_PARAMS;
  const lone = new Histograms(2);
  const loneHeight = new Histograms(BINS + 1);
  const latency = new Histograms(BINS);
  const pairs = new Histograms(BINS * BINS);
  const previous = new Histograms(BINS);
  let intervalMs = 0;
  for (let run = 0; run < runs; run += 1) {
    const gen = new ScenarioGenerator({ kind: 'tail', factor: 5, seed: seed + run, disks: host.disks, media: host.media, journal: {} });
    const { disks, slowDisk, onsetMs } = gen.info;
    intervalMs = gen.info.intervalMs;
    const at = disks.indexOf(slowDisk!);
    const values: number[] = [];
    let onsetAt = -1;
    for (let tick = gen.next(); tick !== null; tick = gen.next()) {
      if (onsetAt < 0 && tick.tick * intervalMs >= onsetMs!) onsetAt = values.length;
      // A tick without a result counts as the detector counts it: a failure at the interval.
      values.push(tickLatencies(tick, disks)[at] ?? intervalMs);
    }
    const sorted = values.slice(0, onsetAt).sort((a, b) => a - b);
    const medianMs = sorted[Math.floor(sorted.length / 2)]!;
    const lineMs = medianMs * p.loneLineFactor;
    const calmMs = Math.min(lineMs * p.loneCalmShare, p.failureLatencyMs - 1e-9);
    for (let i = 1; i + 1 < values.length; i += 1) {
      const side = i < onsetAt ? 0 : 1;
      const [before, own, next] = [values[i - 1]!, values[i]!, values[i + 1]!];
      const isLone = own > lineMs && before <= calmMs && next <= calmMs;
      const [b, o] = [binOf(before, medianMs), binOf(own, medianMs)];
      lone.counts[side][isLone ? 1 : 0] += 1;
      loneHeight.counts[side][isLone ? 1 + o : 0] += 1;
      latency.counts[side][o] += 1;
      previous.counts[side][b] += 1;
      pairs.counts[side][b * BINS + o] += 1;
    }
  }
  const share = (side: 0 | 1) => lone.counts[side][1] / (lone.counts[side][0] + lone.counts[side][1]);
  return {
    host: host.name,
    intervalMs,
    loneShare: [share(0), share(1)],
    // The chain rule: what a pair tells, less what its first inspection told on its own.
    information: { lone: lone.divergence(), loneHeight: loneHeight.divergence(), latency: latency.divergence(), latencyGivenPrevious: pairs.divergence() - previous.divergence() },
  };
}

function main(): void {
  const { runs, seed } = parseArgs(process.argv.slice(2));
  const lines = [`'tail 3% x5, journal': ${runs} runs per host from seed ${seed}; the best test's delay at about 1 and 0.1 false alarms in ${BUDGET_DISK_HOURS} disk-hours`];
  for (const host of HOSTS) {
    const bound = measureHost(host, runs, seed);
    const perSecond = 1000 / bound.intervalMs;
    const thresholds = EXPECTED_FALSE_ALARMS.map((alarms) => Math.log((BUDGET_DISK_HOURS * 3600 * perSecond) / alarms));
    const pct = (share: number) => `${(share * 100).toFixed(2)} %`;
    lines.push(`${host.name}: lone inspections ${pct(bound.loneShare[0])} before the onset, ${pct(bound.loneShare[1])} after`);
    for (const [view, kl] of Object.entries(bound.information)) {
      const delays = thresholds.map((h) => `${Math.round(h / (kl * perSecond))} s`).join(', ');
      lines.push(`  ${view.padEnd(22)} ${kl.toFixed(4)} nats an inspection: ${delays}`);
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main();
