// The article's three-layer fully connected network (docs/early-warning.md): the window's features in, the probability
// that the P99 exceeds the SLA within the horizon out. Two tanh hidden layers and a sigmoid
// output; the weights and the input normalisation come from a JSON file that
// dev/predict/train.ts writes.
import { calibrated, type PlattScaling } from './calibration.js';
import { evidenceWindow } from './evidence-window.js';
import type { SampleFeatures } from './sample-features.js';

/** The inputs a sample can give, per sample of the window. Latencies are taken relative to the SLA. */
export const FEATURE_NAMES = ['p50', 'p90', 'p99', 'queueDepth', 'iops', 'errors'] as const;
export type FeatureName = (typeof FEATURE_NAMES)[number];

export const NETWORK_FORMAT = 'slowdisk-predictor-network';

export interface NetworkLayer {
  /** weights[j][k]: from input k to unit j. */
  weights: number[][];
  biases: number[];
}

export interface NetworkModel {
  format: typeof NETWORK_FORMAT;
  version: 1;
  /** The sampling the network was trained on; the predictor refuses other parameters. */
  sampleMs: number;
  windowSamples: number;
  horizonMs: number;
  /** Which inputs each sample gives, in order; the window's samples follow each other, oldest first. */
  features: FeatureName[];
  /** Each input is normalised as (x - mean) / std before the first layer. */
  inputMean: number[];
  inputStd: number[];
  /** Three layers: tanh, tanh, then one sigmoid unit. */
  layers: NetworkLayer[];
  /** The monotone map from the network's output to a calibrated probability (absent: none). */
  calibration?: PlattScaling;
  /** How the weights were made (data, seeds, settings), for the record. */
  training?: Record<string, unknown>;
}

/** Smallest latency taken into a logarithm: the recorder's resolution. */
export const LATENCY_FLOOR_MS = 0.001;

/** One input from one sample: log of the latency over the SLA, log(1 + x) for a count; a missing count is 0. */
export function featureInput(sample: SampleFeatures, name: FeatureName, slaMs: number): number {
  switch (name) {
    case 'p50':
      return Math.log(Math.max(sample.p50Ms, LATENCY_FLOOR_MS) / slaMs);
    case 'p90':
      return Math.log(Math.max(sample.p90Ms, LATENCY_FLOOR_MS) / slaMs);
    case 'p99':
      return Math.log(Math.max(sample.p99Ms, LATENCY_FLOOR_MS) / slaMs);
    default:
      return Math.log1p(sample[name] ?? 0);
  }
}

/**
 * The network's raw inputs for a window (oldest sample first, 1 to `windowSamples` of them),
 * read as the evidence rule says (evidence-window.ts): padded with the window's median, each
 * sample between two others read as the median of the three.
 */
export function windowInputs(window: readonly SampleFeatures[], windowSamples: number, features: readonly FeatureName[], slaMs: number): number[] {
  if (window.length === 0 || window.length > windowSamples) throw new RangeError(`a window holds 1 to ${windowSamples} samples, got ${window.length}`);
  const rows = window.map((sample) => features.map((name) => featureInput(sample, name, slaMs)));
  // By index: flat() takes some ten times as long on these small rows, and every sample of every disk reads a window.
  const inputs: number[] = [];
  const read = evidenceWindow(rows, windowSamples);
  for (let i = 0; i < read.length; i += 1) for (let k = 0; k < read[i].length; k += 1) inputs.push(read[i][k]);
  return inputs;
}

/** The activations of every layer for raw inputs: [normalised inputs, hidden 1, hidden 2, [probability]]. */
export function forwardLayers(model: NetworkModel, inputs: readonly number[]): number[][] {
  const normalised = inputs.map((x, k) => (x - model.inputMean[k]) / model.inputStd[k]);
  const activations = [normalised];
  model.layers.forEach((layer, l) => {
    const input = activations[activations.length - 1];
    const last = l === model.layers.length - 1;
    activations.push(
      layer.weights.map((row, j) => {
        let z = layer.biases[j];
        for (let k = 0; k < row.length; k += 1) z += row[k] * input[k];
        return last ? 1 / (1 + Math.exp(-z)) : Math.tanh(z);
      }),
    );
  });
  return activations;
}

/** The network's own output, before calibration. */
export function rawNetworkProbability(model: NetworkModel, inputs: readonly number[]): number {
  const activations = forwardLayers(model, inputs);
  return activations[activations.length - 1][0];
}

/** The probability: the network's output through the calibration it was shipped with. */
export function networkProbability(model: NetworkModel, inputs: readonly number[]): number {
  const raw = rawNetworkProbability(model, inputs);
  return model.calibration ? calibrated(model.calibration, raw) : raw;
}

function numbers(value: unknown, length: number, what: string): number[] {
  if (!Array.isArray(value) || value.length !== length || !value.every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new TypeError(`predictor network: ${what} must be ${length} finite numbers`);
  }
  return value as number[];
}

/** Checks a parsed weights file: every shape must fit the next. */
export function parseNetworkModel(json: unknown): NetworkModel {
  const m = json as Partial<NetworkModel> | null;
  if (m === null || typeof m !== 'object' || m.format !== NETWORK_FORMAT || m.version !== 1) {
    throw new TypeError(`predictor network: not a ${NETWORK_FORMAT} version 1 file`);
  }
  for (const key of ['sampleMs', 'windowSamples', 'horizonMs'] as const) {
    if (typeof m[key] !== 'number' || !(m[key] > 0)) throw new TypeError(`predictor network: ${key} must be a number above 0`);
  }
  if (!Array.isArray(m.features) || m.features.length === 0 || !m.features.every((f) => FEATURE_NAMES.includes(f))) {
    throw new TypeError(`predictor network: features must name some of ${FEATURE_NAMES.join(', ')}`);
  }
  const inputs = m.features.length * (m.windowSamples as number);
  numbers(m.inputMean, inputs, 'inputMean');
  const std = numbers(m.inputStd, inputs, 'inputStd');
  if (std.some((s) => s <= 0)) throw new TypeError('predictor network: inputStd must be above 0');
  if (!Array.isArray(m.layers) || m.layers.length !== 3) throw new TypeError('predictor network: three layers expected');
  let width = inputs;
  m.layers.forEach((layer, l) => {
    if (!Array.isArray(layer?.weights) || layer.weights.length === 0) throw new TypeError(`predictor network: layer ${l + 1} has no units`);
    layer.weights.forEach((row, j) => numbers(row, width, `layer ${l + 1} unit ${j + 1} weights`));
    numbers(layer.biases, layer.weights.length, `layer ${l + 1} biases`);
    width = layer.weights.length;
  });
  if (width !== 1) throw new TypeError('predictor network: the last layer must have one unit');
  if (m.calibration !== undefined) numbers([m.calibration?.slope, m.calibration?.intercept], 2, 'calibration slope and intercept');
  return m as NetworkModel;
}
