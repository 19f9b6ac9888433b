import { describe, expect, it } from 'vitest';
import { leastSquaresLine, linearTrendScore } from '../../src/early-warning/linear-trend.js';
import { networkProbability, parseNetworkModel, type NetworkModel } from '../../src/early-warning/network.js';
import { Predictor } from '../../src/early-warning/predictor.js';
import { DEFAULT_PREDICTOR_PARAMS, predictorParams } from '../../src/early-warning/predictor-params.js';
import { sampleFeatures, type PredictorSample } from '../../src/early-warning/sample-features.js';
import { breachStarts, breachTargets } from '../../dev/predict/labels.js';
import { traceSamples } from '../../dev/predict/trace-samples.js';
import { ScenarioGenerator, type ScenarioOptions } from '../../dev/scenarios/index.js';

/** A period of 150 inspections whose P99 (nearest rank: the 149th) is `p99Ms`, the rest 1 ms. */
const period = (p99Ms: number, extra: Partial<PredictorSample> = {}): PredictorSample => ({
  latenciesMs: [...Array.from({ length: 148 }, () => 1), p99Ms, p99Ms],
  ...extra,
});

/** A two-sample network on the P99 alone, small enough to compute by hand. */
const TINY: NetworkModel = {
  format: 'slowdisk-predictor-network',
  version: 1,
  sampleMs: 15_000,
  windowSamples: 2,
  horizonMs: 300_000,
  features: ['p99'],
  inputMean: [0, 0.5],
  inputStd: [1, 0.5],
  layers: [
    { weights: [[1, 2], [-1, 0.5]], biases: [0.5, 0] },
    { weights: [[1, -1]], biases: [0] },
    { weights: [[2]], biases: [-0.5] },
  ],
};

describe('the network', () => {
  it('computes the probability as tanh, tanh, sigmoid over the normalised inputs', () => {
    // Inputs ln(200/200) = 0 and ln(200e/200) = 1, normalised to [0, 1]; layer 1: tanh(2.5),
    // tanh(0.5); layer 2: tanh(tanh(2.5) - tanh(0.5)) = 0.48123; out: sigmoid(2 x 0.48123 - 0.5).
    expect(networkProbability(TINY, [0, 1])).toBeCloseTo(0.6135660379446028, 12);
    // Through the Predictor, P99s of 200/e and 200 ms: inputs -1 and 0, normalised to [-1, -1];
    // layer 1: tanh(-2.5), tanh(0.5); layer 2: tanh(tanh(-2.5) - tanh(0.5)) = -0.89544.
    const predictor = new Predictor({ model: 'network', windowSamples: 2, minSamples: 2 }, TINY);
    expect(predictor.observe(15_000, period(200 / Math.E))!.probability).toBeNull();
    const prediction = predictor.observe(30_000, period(200))!;
    expect(prediction.probability).toBeCloseTo(1 / (1 + Math.exp(-(2 * -0.8954417539033024 - 0.5))), 12);
    expect(prediction.warning).toBe(false);
  });

  it('refuses a weights file whose shapes do not fit, and parameters it was not trained with', () => {
    expect(parseNetworkModel(JSON.parse(JSON.stringify(TINY)))).toEqual(TINY);
    expect(() => parseNetworkModel({ ...TINY, inputStd: [1] })).toThrow(TypeError);
    expect(() => parseNetworkModel({ ...TINY, layers: TINY.layers.slice(0, 2) })).toThrow(TypeError);
    expect(() => parseNetworkModel({ ...TINY, features: ['temperature'] })).toThrow(TypeError);
    expect(() => new Predictor({ model: 'network', windowSamples: 30 }, TINY)).toThrow(/trained with windowSamples 2, not 30/);
    expect(() => new Predictor({ model: 'trend', windowSamples: 30 }, TINY)).not.toThrow();
  });
});

describe('the linear-trend baseline', () => {
  it('fits the least-squares line and projects its highest point over the horizon', () => {
    expect(leastSquaresLine([10, 20, 30, 40])).toEqual({ slope: 10, last: 40 });
    expect(leastSquaresLine([5])).toEqual({ slope: 0, last: 5 });
    // 100 ms rising 5 ms a sample: 20 samples ahead it reaches 100 + 5 x 3 + 5 x 20 = 215 ms.
    const rising = linearTrendScore([100, 105, 110, 115], 20, 200, 0.1);
    expect(rising.projectedMs).toBeCloseTo(215, 9);
    expect(rising.probability).toBeCloseTo(1 / (1 + Math.exp(-0.75)), 12);
    // Falling from above the SLA: still above it now.
    expect(linearTrendScore([400, 350, 300], 20, 200, 0.1).projectedMs).toBeCloseTo(300, 9);
    expect(linearTrendScore([20, 20, 20], 20, 200, 0.1).probability).toBeLessThan(1e-3);
  });

  it('warns a rising disk through the Predictor, and keeps quiet about a flat one', () => {
    const rising = new Predictor({ model: 'trend' });
    const flat = new Predictor({ model: 'trend' });
    let warned = -1;
    for (let i = 0; i < 20; i += 1) {
      const atMs = (i + 1) * 15_000;
      // Every inspection slows down, so that the P90 the rising trend reads climbs with the P99.
      const slower = { latenciesMs: Array.from({ length: 150 }, () => 50 + 10 * i) };
      if (rising.observe(atMs, slower)!.warning && warned < 0) warned = i;
      expect(flat.observe(atMs, period(50))!.warning).toBe(false);
    }
    // 10 ms a sample: a short window is padded with its median, so the line through it tilts
    // less than the rise; by the 14th sample it is steep enough, confirmed at the 16th.
    expect(warned).toBe(15);
  });
});

describe('the Predictor', () => {
  it('says nothing before minSamples, restarts its window after a gap, and wants samples in time order', () => {
    const p = new Predictor({ model: 'trend', minSamples: 2 });
    expect(p.observe(15_000, period(10))!.probability).toBeNull();
    expect(p.observe(30_000, period(10))!.probability).not.toBeNull();
    expect(p.observe(60_000, period(10))).toMatchObject({ probability: null, samples: 1 });
    expect(() => p.observe(60_000, period(10))).toThrow(RangeError);
    // A period with nothing measured changes nothing.
    expect(p.observe(75_000, { latenciesMs: [] })).toMatchObject({ atMs: 60_000, samples: 1 });
  });

  it('keeps a disk warned of for as long as its P99 stays over the SLA, with either model', () => {
    for (const model of ['network', 'trend'] as const) {
      const p = new Predictor({ model });
      const probabilities = [10, 10, 10, 10, 900, 900, 900, 900].map((p99, i) => p.observe((i + 1) * 15_000, period(p99))!.probability);
      expect(probabilities.slice(0, 4)).toEqual([null, null, null, expect.any(Number)]);
      expect(probabilities[3]).toBeLessThan(0.7);
      expect(probabilities.slice(4)).toEqual([1, 1, 1, 1]);
    }
    // The model speaks again once the breach is over: not 1 for a window that held it.
    const p = new Predictor({ model: 'network' });
    const after = [10, 10, 10, 900, 10, 10].map((p99, i) => p.observe((i + 1) * 15_000, period(p99))!.probability);
    expect(after[3]).toBe(1);
    expect(after[5]).toBeLessThan(1);
  });

  it('reports the counters the model does not read, or that it reads and lacked', () => {
    const p = new Predictor();
    const prediction = p.observe(15_000, period(10, { queueDepth: 3, iops: 200 }))!;
    expect(prediction.ignored).toEqual(['queueDepth', 'iops']);
    expect(prediction.missing).toEqual([]);
    const withErrors: NetworkModel = { ...TINY, features: ['p99', 'errors'], inputMean: [0, 0, 0, 0], inputStd: [1, 1, 1, 1] };
    withErrors.layers = [{ weights: [[0, 0, 0, 0]], biases: [0] }, { weights: [[0]], biases: [0] }, { weights: [[0]], biases: [0] }];
    const q = new Predictor({ windowSamples: 2, minSamples: 1 }, withErrors);
    expect(q.observe(15_000, period(10))!.missing).toEqual(['errors']);
    expect(q.observe(30_000, period(10, { errors: 0 }))!.missing).toEqual(['errors']);
  });

  it('has the article\'s parameters by default and rejects impossible ones', () => {
    expect(DEFAULT_PREDICTOR_PARAMS).toMatchObject({ slaMs: 200, warnProbability: 0.7, sampleMs: 15_000, windowSamples: 20, horizonMs: 300_000 });
    expect(() => predictorParams({ warnProbability: 1 })).toThrow(RangeError);
    expect(() => predictorParams({ slaMs: 0 })).toThrow(RangeError);
    expect(() => predictorParams({ minSamples: 21 })).toThrow(RangeError);
    expect(() => predictorParams({ horizonMs: 20_000 })).toThrow(RangeError);
    expect(() => predictorParams({ model: 'oracle' as never })).toThrow(RangeError);
    expect(DEFAULT_PREDICTOR_PARAMS).toMatchObject({ minSamples: 4, confirmSamples: 2, clearAfterMs: 150_000, needRisingTrend: true });
    expect(() => predictorParams({ confirmSamples: 0 })).toThrow(RangeError);
    expect(() => predictorParams({ clearAfterMs: 20_000 })).toThrow(/whole number of samples/);
    expect(DEFAULT_PREDICTOR_PARAMS).toMatchObject({ linearRiseSamples: 4, linearRiseHorizonMs: 450_000, linearRiseShare: 0.7 });
    expect(() => predictorParams({ linearRiseShare: 0 })).toThrow(RangeError);
    expect(() => predictorParams({ linearRiseShare: Number.NaN })).toThrow(RangeError);
    expect(() => predictorParams({ linearRiseHorizonMs: 20_000 })).toThrow(/whole number of samples/);
    expect(() => predictorParams({ linearRiseSamples: -1 })).toThrow(RangeError);
    expect(predictorParams({ linearRiseSamples: 0 }).linearRiseSamples).toBe(0);
  });
});

describe('labels', () => {
  it('start a breach after a quiet spell, and ask whether one comes within the horizon', () => {
    const p99 = [10, 300, 10, 300, 10, 10, 10, 300];
    expect(breachStarts(p99, 200, 2)).toEqual([1, 7]);
    expect(breachTargets([10, 10, 10, 300, 10, 10, 10, 10], 200, 2, 2)).toEqual([0, 1, 1, null, null, 0, null, null]);
  });
});

/** Each disk's predictions over a generated run, and the P99s they are judged against. */
function predictions(options: ScenarioOptions) {
  const generator = new ScenarioGenerator(options);
  const lines = [...generator.ticks()].flatMap((t) => t.lines);
  const byDisk = traceSamples([...lines, { tick: generator.info.ticks }], generator.info.intervalMs, 15_000);
  return {
    info: generator.info,
    disks: new Map(
      [...byDisk].map(([disk, samples]) => {
        const predictor = new Predictor();
        return [
          disk,
          samples.map(({ atMs, sample }) => ({
            atMs,
            warning: predictor.observe(atMs, sample)?.warning ?? false,
            p99Ms: sampleFeatures(sample, 100)!.p99Ms,
          })),
        ];
      }),
    ),
  };
}

describe('early warning on generated scenarios (the default model)', () => {
  it('warns of a slowdown developing over minutes before its P99 crosses the SLA, and not of its healthy peer', () => {
    // Seed 424242 is in neither the training nor the benchmark's selection.
    const run = predictions({ kind: 'ramp', seed: 424_242, disks: 2, media: 'ssd', factor: 800, rampMs: 480_000, slowDisk: 0, durationMs: 1_200_000 });
    const slow = run.disks.get('raft')!;
    const crossing = slow.find((s) => s.p99Ms > 200)!;
    expect(crossing).toBeDefined();
    expect(crossing.atMs).toBeGreaterThan(run.info.onsetMs! + 120_000);
    const firstWarning = slow.find((s) => s.warning)!;
    expect(firstWarning.atMs).toBeLessThan(crossing.atMs);
    expect(firstWarning.atMs).toBeGreaterThanOrEqual(run.info.onsetMs!);
    expect(run.disks.get('kv')!.some((s) => s.warning)).toBe(false);
  });

  it('keeps quiet for an hour of a healthy host', () => {
    const run = predictions({ kind: 'healthy', seed: 424_242, disks: 2, media: 'ssd', durationMs: 3_600_000 });
    for (const samples of run.disks.values()) expect(samples.some((s) => s.warning)).toBe(false);
  });
});
