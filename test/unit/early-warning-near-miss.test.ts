// The rising-trend rule on hand-made climbs: one that levels off at 0.3 x the SLA, gaining a
// few ms a sample however steep its start is in logs, is never warned of, nor when two of its
// samples in a row have a slow pair of inspections that lifts their P99 near the SLA; one
// that goes on past the SLA is, ahead of its breach. The level rule: a step to under half
// the SLA is not warned of, even by a network that rates every window high, nor an HDD whose
// P99s are spikes past half of it over a usual latency far under it; a gradual slowdown,
// through half the SLA minutes before its breach, is, 90 s ahead or more; one that hovers
// above half the SLA is, without a rising trend.
import { describe, expect, it } from 'vitest';
import type { NetworkModel } from '../../src/early-warning/network.js';
import { Predictor } from '../../src/early-warning/predictor.js';
import { DEFAULT_PREDICTOR_PARAMS, type PredictorParams } from '../../src/early-warning/predictor-params.js';
import type { PredictorSample } from '../../src/early-warning/sample-features.js';
import { Rng } from '../../dev/scenarios/index.js';

const SAMPLE_MS = 15_000;
const TICKS = 150;

/** One inspection per 100 ms tick, `latencyAt(ms)` times a jitter of ±20 %. */
function samples(minutes: number, latencyAt: (ms: number) => number, seed: number): { atMs: number; sample: PredictorSample }[] {
  const rng = new Rng(seed);
  return Array.from({ length: (minutes * 60_000) / SAMPLE_MS }, (_, i) => ({
    atMs: (i + 1) * SAMPLE_MS,
    sample: { latenciesMs: Array.from({ length: TICKS }, (_, k) => latencyAt(i * SAMPLE_MS + k * 100) * rng.uniform(0.8, 1.2)) },
  }));
}

/** A climb from 4 ms at minute 2, linear or geometric, to `toMs` over `overMin` minutes, then held. */
const climb = (shape: 'linear' | 'geometric', toMs: number, overMin: number) => (ms: number) => {
  const x = Math.min(1, Math.max(0, (ms - 120_000) / (overMin * 60_000)));
  return shape === 'linear' ? 4 + (toMs - 4) * x : 4 * (toMs / 4) ** x;
};

const warnings = (series: { atMs: number; sample: PredictorSample }[], params: Partial<PredictorParams> = {}, network?: NetworkModel) => {
  const predictor = new Predictor(params, network);
  return series.map(({ atMs, sample }) => ({ atMs, ...predictor.observe(atMs, sample)! })).filter((p) => p.warning);
};

describe('a climb that levels off at 60 ms, 0.3 x the SLA, held for 10 minutes', () => {
  it.each([
    ['linear', 6],
    ['linear', 10],
  ] as const)('%s over %i minutes: never warned of, though the network alone would', (shape, overMin) => {
    const series = samples(12 + overMin, climb(shape, 60, overMin), 40 + overMin);
    expect(warnings(series).map((p) => `at ${p.atMs / 1000} s, p ${p.probability}`)).toEqual([]);
    // Without the straight line in ms, its start (x15 in logs) is a rising trend.
    expect(warnings(series, { linearRiseSamples: 0 }).length).toBeGreaterThan(0);
  });
});

// The linear climb passes half the SLA some 50 s before the SLA (a sudden breach): warned of
// from half the SLA, 30 s ahead; the geometric one, longer at the level, a minute ahead or more.
describe.each([
  ['linear', 30_000],
  ['geometric', 60_000],
] as const)('a %s climb to 1 s over 10 minutes', (shape, leadMs) => {
  it(`is warned of at least ${leadMs / 1000} s before its P99 first exceeds the SLA`, () => {
    const series = samples(14, climb(shape, 1000, 10), 7);
    const p99 = (s: PredictorSample) => [...s.latenciesMs].sort((a, b) => a - b)[148];
    const breachMs = series.find(({ sample }) => p99(sample) > DEFAULT_PREDICTOR_PARAMS.slaMs)!.atMs;
    const first = warnings(series)[0];
    expect(breachMs - first.atMs).toBeGreaterThanOrEqual(leadMs);
  });
});

describe('a climb that levels off at 60 ms with two slow samples in a row', () => {
  it('is not warned of: two inspections of 190 ms in each of two samples tilt the P99s, not the P90s the straight line reads', () => {
    const series = samples(16, climb('linear', 60, 6), 46);
    // At minutes 5 and 5.25, halfway up the climb, the slowest two inspections of 150 take 190 ms.
    for (const i of [19, 20]) series[i].sample = { latenciesMs: [...series[i].sample.latenciesMs.slice(2), 190, 190] };
    const p99 = (s: PredictorSample) => [...s.latenciesMs].sort((a, b) => a - b)[148];
    expect([p99(series[19].sample), p99(series[20].sample)]).toEqual([190, 190]);
    expect(warnings(series).map((p) => `at ${p.atMs / 1000} s, p ${p.probability}`)).toEqual([]);
  });
});

/** A network that rates every window 0.95: what is left is the rules'. */
const ALWAYS_HIGH: NetworkModel = {
  format: 'slowdisk-predictor-network',
  version: 1,
  sampleMs: SAMPLE_MS,
  windowSamples: 20,
  horizonMs: 300_000,
  features: ['p99'],
  inputMean: Array.from({ length: 20 }, () => 0),
  inputStd: Array.from({ length: 20 }, () => 1),
  layers: [
    { weights: [Array.from({ length: 20 }, () => 0)], biases: [0] },
    { weights: [[0]], biases: [0] },
    { weights: [[0]], biases: [Math.log(0.95 / 0.05)] },
  ],
};

const p99Of = (s: PredictorSample) => [...s.latenciesMs].sort((a, b) => a - b)[148]!;

describe('the level rule', () => {
  const SLA = DEFAULT_PREDICTOR_PARAMS.slaMs;

  it('a step from 4 ms to a P99 under half the SLA, held: not warned of, even by a network that rates it 0.95', () => {
    // At minute 2 the latency jumps to 75 ms (P99 about 90 ms, 0.45 x the SLA) and stays.
    const series = samples(12, (ms) => (ms < 120_000 ? 4 : 75), 51);
    expect(Math.max(...series.map(({ sample }) => p99Of(sample)))).toBeLessThan(SLA / 2);
    expect(warnings(series, {}, ALWAYS_HIGH)).toEqual([]);
    // Its trend rises for three samples: with the usual two samples at any level, it is warned of.
    expect(warnings(series, { levelShare: 0 }, ALWAYS_HIGH).length).toBeGreaterThan(0);
  });

  describe.each(['linear', 'geometric'] as const)('a gradual %s slowdown, from 4 ms to 300 ms over 24 minutes', (shape) => {
    const series = samples(28, climb(shape, 300, 24), 61);
    const breach = series.findIndex(({ sample }) => p99Of(sample) > SLA);
    let half = breach;
    while (half > 0 && p99Of(series[half - 1]!.sample) > SLA / 2) half -= 1;

    it('climbs through half the SLA at least 2 minutes before its breach', () => {
      expect(breach).toBeGreaterThan(0);
      expect(series[breach]!.atMs - series[half]!.atMs).toBeGreaterThanOrEqual(120_000);
    });

    it.each([
      ['the shipped network', undefined],
      ['a network that rates every window 0.95', ALWAYS_HIGH],
    ] as const)('is warned of at least 90 s before its breach, by %s', (_, network) => {
      const first = warnings(series, {}, network)[0];
      expect(first).toBeDefined();
      expect(series[breach]!.atMs - first!.atMs).toBeGreaterThanOrEqual(90_000);
    });
  });

  it("an HDD at its usual 30 to 50 ms, its P99 one of its slowest inspections (110 to 190 ms): not at the level, not warned of by a network that rates it 0.95", () => {
    const rng = new Rng(81);
    const series = Array.from({ length: 40 }, (_, i) => ({
      atMs: (i + 1) * SAMPLE_MS,
      sample: { latenciesMs: [...Array.from({ length: 145 }, () => rng.uniform(30, 50)), ...Array.from({ length: 5 }, () => rng.uniform(110, 190))] },
    }));
    expect(Math.min(...series.map(({ sample }) => p99Of(sample)))).toBeGreaterThan(SLA / 2);
    expect(warnings(series, {}, ALWAYS_HIGH)).toEqual([]);
    // Its P99s alone put it at the level, where a network rating it high warns after levelHoldSamples.
    expect(warnings(series, { levelP90Share: 0 }, ALWAYS_HIGH).length).toBeGreaterThan(0);
  });

  it('a disk hovering at 0.6 x the SLA, with no rising trend, is warned of once rated high for levelHoldSamples', () => {
    const series = samples(6, () => 100, 71);
    const p99s = series.map(({ sample }) => p99Of(sample));
    expect(Math.min(...p99s)).toBeGreaterThan(SLA / 2);
    expect(Math.max(...p99s)).toBeLessThan(SLA);
    const { minSamples, levelHoldSamples } = DEFAULT_PREDICTOR_PARAMS;
    // The first probability comes with sample minSamples; levelHoldSamples of them in a row warn.
    expect(warnings(series, {}, ALWAYS_HIGH)[0]?.atMs).toBe((minSamples + levelHoldSamples - 1) * SAMPLE_MS);
    expect(warnings(series, { levelHoldSamples: 0 }, ALWAYS_HIGH)).toEqual([]);
  });
});
