// Training of the network: examples from disks' series of samples, labelled from their own
// future P99s, and plain minibatch Adam on a weighted cross-entropy. Deterministic: the same
// examples and settings give the same weights, bit for bit (one seeded PRNG, a fixed order
// of operations).
import { type FeatureName, NETWORK_FORMAT, type NetworkModel, windowInputs } from '../../src/early-warning/network.js';
import { horizonSamples, type PredictorParams } from '../../src/early-warning/predictor-params.js';
import type { SampleFeatures } from '../../src/early-warning/sample-features.js';
import { Rng } from '../scenarios/prng.js';
import { breachTargets, foreseeableTargets } from './labels.js';

export interface Dataset {
  inputs: number[][];
  labels: (0 | 1)[];
}

export interface TrainingSettings {
  /** Units of the two hidden layers. */
  hidden: readonly [number, number];
  epochs: number;
  batchSize: number;
  learningRate: number;
  /** A positive example weighs this many negatives in the loss (positives are rare). */
  positiveWeight: number;
  /** L2 penalty on the weights (not the biases). */
  l2: number;
  seed: number;
}

/**
 * One disk's labelled examples: one per sample from the `minSamples`-th on whose target is
 * known (see breachTargets), the window ending there as input. A positive one before sample
 * `foreseeableFrom` is left out: a breach that no slowdown of the disk's own, begun by the
 * end of the window, leads up to (a slowdown still to start, which the corpus starts far
 * more often than a real disk has one, or a chance spike) cannot be seen coming from its
 * samples (corpus.ts, foreseeableFrom).
 */
export function seriesExamples(series: readonly SampleFeatures[], params: PredictorParams, features: readonly FeatureName[], foreseeableFrom = 0): Dataset {
  const targets = foreseeableTargets(breachTargets(series.map((s) => s.p99Ms), params.slaMs, horizonSamples(params), params.windowSamples), foreseeableFrom);
  const data: Dataset = { inputs: [], labels: [] };
  for (let i = params.minSamples - 1; i < series.length; i += 1) {
    const label = targets[i];
    if (label === null) continue;
    const window = series.slice(Math.max(0, i - params.windowSamples + 1), i + 1);
    data.inputs.push(windowInputs(window, params.windowSamples, features, params.slaMs));
    data.labels.push(label);
  }
  return data;
}

/** Seven significant digits: the weights file stays small and reads the same everywhere. */
const rounded = (x: number): number => Number(x.toPrecision(7));

function normalisation(inputs: readonly number[][]): { mean: number[]; std: number[] } {
  const width = inputs[0].length;
  const mean = new Array<number>(width).fill(0);
  const std = new Array<number>(width).fill(0);
  for (const row of inputs) for (let k = 0; k < width; k += 1) mean[k] += row[k] / inputs.length;
  for (const row of inputs) for (let k = 0; k < width; k += 1) std[k] += (row[k] - mean[k]) ** 2 / inputs.length;
  return { mean: mean.map(rounded), std: std.map((v) => rounded(Math.sqrt(v) > 1e-6 ? Math.sqrt(v) : 1)) };
}

interface Layer {
  w: Float64Array; // out x in, row-major
  b: Float64Array;
  inputs: number;
  outputs: number;
}

/** Trains a network on the data; `shape` is what the predictor will check it against. */
export function trainNetwork(
  data: Dataset,
  settings: TrainingSettings,
  shape: Pick<NetworkModel, 'sampleMs' | 'windowSamples' | 'horizonMs' | 'features'>,
): NetworkModel {
  if (data.inputs.length === 0) throw new RangeError('no examples to train on');
  const { mean, std } = normalisation(data.inputs);
  const x = data.inputs.map((row) => Float64Array.from(row, (v, k) => (v - mean[k]) / std[k]));
  const rng = new Rng(settings.seed);
  const sizes = [x[0].length, settings.hidden[0], settings.hidden[1], 1];
  const layers: Layer[] = [];
  for (let l = 0; l < 3; l += 1) {
    const limit = Math.sqrt(6 / (sizes[l] + sizes[l + 1]));
    const w = Float64Array.from({ length: sizes[l] * sizes[l + 1] }, () => rng.uniform(-limit, limit));
    layers.push({ w, b: new Float64Array(sizes[l + 1]), inputs: sizes[l], outputs: sizes[l + 1] });
  }
  const params = layers.flatMap((layer) => [layer.w, layer.b]);
  const grads = params.map((p) => new Float64Array(p.length));
  const m1 = params.map((p) => new Float64Array(p.length));
  const m2 = params.map((p) => new Float64Array(p.length));
  const acts = sizes.map((n) => new Float64Array(n));
  const deltas = sizes.map((n) => new Float64Array(n));
  const order = Array.from(x, (_, i) => i);
  const [beta1, beta2, eps] = [0.9, 0.999, 1e-8];
  let step = 0;

  for (let epoch = 0; epoch < settings.epochs; epoch += 1) {
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = rng.int(i + 1);
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (let start = 0; start < order.length; start += settings.batchSize) {
      const batch = order.slice(start, start + settings.batchSize);
      for (const g of grads) g.fill(0);
      for (const n of batch) {
        acts[0].set(x[n]);
        layers.forEach((layer, l) => {
          for (let j = 0; j < layer.outputs; j += 1) {
            let z = layer.b[j];
            const row = j * layer.inputs;
            for (let k = 0; k < layer.inputs; k += 1) z += layer.w[row + k] * acts[l][k];
            acts[l + 1][j] = l === 2 ? 1 / (1 + Math.exp(-z)) : Math.tanh(z);
          }
        });
        const y = data.labels[n];
        deltas[3][0] = (y === 1 ? settings.positiveWeight : 1) * (acts[3][0] - y);
        for (let l = 2; l >= 0; l -= 1) {
          const layer = layers[l];
          const gw = grads[2 * l];
          const gb = grads[2 * l + 1];
          if (l > 0) deltas[l].fill(0);
          for (let j = 0; j < layer.outputs; j += 1) {
            const d = deltas[l + 1][j];
            gb[j] += d;
            const row = j * layer.inputs;
            for (let k = 0; k < layer.inputs; k += 1) {
              gw[row + k] += d * acts[l][k];
              if (l > 0) deltas[l][k] += d * layer.w[row + k];
            }
          }
          if (l > 0) for (let k = 0; k < layer.inputs; k += 1) deltas[l][k] *= 1 - acts[l][k] * acts[l][k];
        }
      }
      step += 1;
      const lr = settings.learningRate * Math.sqrt(1 - beta2 ** step) / (1 - beta1 ** step);
      params.forEach((p, q) => {
        const isWeight = q % 2 === 0;
        for (let i = 0; i < p.length; i += 1) {
          const g = grads[q][i] / batch.length + (isWeight ? settings.l2 * p[i] : 0);
          m1[q][i] = beta1 * m1[q][i] + (1 - beta1) * g;
          m2[q][i] = beta2 * m2[q][i] + (1 - beta2) * g * g;
          p[i] -= (lr * m1[q][i]) / (Math.sqrt(m2[q][i]) + eps);
        }
      });
    }
  }

  return {
    format: NETWORK_FORMAT,
    version: 1,
    ...shape,
    features: [...shape.features],
    inputMean: mean,
    inputStd: std,
    layers: layers.map((layer) => ({
      weights: Array.from({ length: layer.outputs }, (_, j) => Array.from(layer.w.subarray(j * layer.inputs, (j + 1) * layer.inputs), rounded)),
      biases: Array.from(layer.b, rounded),
    })),
  };
}
