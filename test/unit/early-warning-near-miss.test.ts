// The rising-trend rule on hand-made climbs: one that levels off at 0.3 x the SLA, gaining a
// few ms a sample however steep its start is in logs, is never warned of, nor when two of its
// samples in a row have a slow pair of inspections that lifts their P99 near the SLA; one
// that goes on past the SLA is, a minute ahead or more.
import { describe, expect, it } from 'vitest';
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

const warnings = (series: { atMs: number; sample: PredictorSample }[], params: Partial<PredictorParams> = {}) => {
  const predictor = new Predictor(params);
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

describe.each(['linear', 'geometric'] as const)('a %s climb to 1 s over 10 minutes', (shape) => {
  it('is warned of at least a minute before its P99 first exceeds the SLA', () => {
    const series = samples(14, climb(shape, 1000, 10), 7);
    const p99 = (s: PredictorSample) => [...s.latenciesMs].sort((a, b) => a - b)[148];
    const breachMs = series.find(({ sample }) => p99(sample) > DEFAULT_PREDICTOR_PARAMS.slaMs)!.atMs;
    const first = warnings(series)[0];
    expect(breachMs - first.atMs).toBeGreaterThanOrEqual(60_000);
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
