// The early warning's evidence and clearing rules on hand-made disks: a healthy disk with a
// short burst every 90 s is never warned of, wherever its bursts fall in the 15 s samples and
// wherever its window starts; a disk that climbs and levels off under the SLA is warned of
// during the climb and let go within 5 minutes of levelling off, with the reason.
import { describe, expect, it } from 'vitest';
import { type Prediction, Predictor } from '../../src/early-warning/predictor.js';
import { DEFAULT_PREDICTOR_PARAMS, type PredictorModel } from '../../src/early-warning/predictor-params.js';
import type { PredictorSample } from '../../src/early-warning/sample-features.js';
import { Rng } from '../../dev/scenarios/index.js';

const TICK_MS = 100;
const SAMPLE_TICKS = 150;

/**
 * A disk's samples, one inspection per 100 ms tick: `latencyAt(ms)` gives the latency of the
 * inspection at that time, before a healthy jitter of ±20 %.
 */
function samples(minutes: number, latencyAt: (ms: number) => number, seed: number): { atMs: number; sample: PredictorSample }[] {
  const rng = new Rng(seed);
  const out = [];
  for (let s = 1; s <= (minutes * 60_000) / (SAMPLE_TICKS * TICK_MS); s += 1) {
    const latenciesMs = Array.from({ length: SAMPLE_TICKS }, (_, k) => latencyAt(((s - 1) * SAMPLE_TICKS + k) * TICK_MS) * rng.uniform(0.8, 1.2));
    out.push({ atMs: s * SAMPLE_TICKS * TICK_MS, sample: { latenciesMs } });
  }
  return out;
}

function run(model: PredictorModel, series: { atMs: number; sample: PredictorSample }[]): Prediction[] {
  const predictor = new Predictor({ model });
  return series.map(({ atMs, sample }) => predictor.observe(atMs, sample)!);
}

describe('a healthy disk with a 1 s burst of 60 ms every 90 s', () => {
  // Healthy inspections of 4 ms; every burst makes 10 inspections of 60 ms, the P99 of the
  // sample (or of both samples it straddles) about 60 ms, never above 150 ms.
  const phasesS = Array.from({ length: 18 }, (_, i) => i * 5);
  it.each(phasesS)('is never warned of with its first burst %i s in (every phase of the window and of the samples)', (phaseS) => {
    const series = samples(30, (ms) => ((ms - phaseS * 1000 + 90_000) % 90_000 < 1000 ? 60 : 4), 1000 + phaseS);
    const p99s = series.map(({ sample }) => [...sample.latenciesMs].sort((a, b) => a - b)[148]);
    expect(Math.max(...p99s)).toBeGreaterThan(45);
    expect(Math.max(...p99s)).toBeLessThan(150);
    for (const model of ['network', 'trend'] as const) {
      const warned = run(model, series).filter((p) => p.warning);
      expect(warned.map((p) => `${model} at ${p.atMs / 1000} s, p ${p.probability}`)).toEqual([]);
    }
  });

  it('nor is one whose only burst, one sample of 400 ms, breaches the SLA and recovers', () => {
    const series = samples(10, (ms) => (ms >= 150_000 && ms < 151_000 ? 400 : 4), 7);
    for (const model of ['network', 'trend'] as const) {
      const predictions = run(model, series);
      expect(predictions[10]).toMatchObject({ probability: 1, warning: false });
      expect(predictions.some((p) => p.warning)).toBe(false);
    }
  });
});

describe('a disk that climbs from 20 ms to 120 ms in 4 minutes and holds there for 19 (SLA 200 ms)', () => {
  const climbFromMs = 120_000;
  const levelOffMs = climbFromMs + 240_000;
  const latencyAt = (ms: number) => 20 + 100 * Math.min(1, Math.max(0, (ms - climbFromMs) / 240_000));
  const series = samples(25, latencyAt, 11);

  it.each(['trend', 'network'] as const)('%s: warned of during the climb, let go within 5 minutes of levelling off, saying why', (model) => {
    const predictions = run(model, series);
    const warnedDuringClimb = predictions.filter((p) => p.warning && p.atMs > climbFromMs && p.atMs <= levelOffMs);
    expect(warnedDuringClimb.length).toBeGreaterThan(0);
    const clear = predictions.findLast((p) => p.cleared !== null)!;
    expect(clear).toMatchObject({ cleared: 'steady', warning: false });
    expect(clear.atMs - levelOffMs).toBeLessThanOrEqual(300_000);
    // Not warned of again while it holds steady under the SLA, though the network may still rate it high.
    expect(predictions.filter((p) => p.atMs >= clear.atMs && p.warning)).toEqual([]);
  });

  it('a warning standing through a gap in the samples ends with reason gap', () => {
    const predictor = new Predictor({ model: 'trend' });
    let last: Prediction | null = null;
    for (const { atMs, sample } of series.slice(0, 24)) last = predictor.observe(atMs, sample);
    expect(last!.warning).toBe(true);
    expect(predictor.observe(last!.atMs + 60_000, series[24].sample)).toMatchObject({ warning: false, cleared: 'gap', probability: null });
  });

  it('clears after the stated hold, clearAfterMs', () => {
    expect(DEFAULT_PREDICTOR_PARAMS.clearAfterMs).toBe(150_000);
    const slow = new Predictor({ model: 'trend', clearAfterMs: 270_000 });
    const quick = new Predictor({ model: 'trend' });
    const clearedAt = (p: Predictor) => series.map(({ atMs, sample }) => p.observe(atMs, sample)!).find((x) => x.cleared === 'steady')!.atMs;
    // 2 minutes more of hold: it clears later, by at least 1 of them (the climb's end counts in both).
    expect(clearedAt(slow) - clearedAt(quick)).toBeGreaterThanOrEqual(60_000);
  });
});
