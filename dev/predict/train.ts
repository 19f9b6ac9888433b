// Regenerates the predictor's network weights (src/early-warning/network-weights.json) from the
// training selection of corpus.ts: generated scenarios (half of them also with the training
// recordings' host delays) and the traces recorded on loop disks; then fits the calibration of
// its output (Platt scaling) on the validation selection, which training never saw. Both leave
// out the breaches no sample of the disk foretells (foreseeableFrom). Deterministic: the same
// repository gives the same file, byte for byte.
//
//   npm run train:predict                 # tsc, then this script
//   node dist-dev/dev/predict/train.js [--out FILE] [--window N]
//
// --out     where the weights are written (src/early-warning/network-weights.json; run tsc afterwards
//           so that dist/ ships them). Written there, their inputs' digest and their own are
//           recorded too (data/predict/network-weights.digests), for test/dev/shipped-weights.test.ts
// --window  a window of N samples instead of the predictor's windowSamples, for trying a network
//           with more inputs (bench:predict --network FILE --set windowSamples=N measures it)
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { type FeatureName, rawNetworkProbability } from '../../src/early-warning/network.js';
import { DEFAULT_PREDICTOR_PARAMS } from '../../src/early-warning/predictor-params.js';
import { REPO_ROOT } from '../repo-root.js';
import { fitPlattScaling } from './calibration-fit.js';
import { type CorpusDisk, foreseeableFrom, runJobs, type Selection, TRAINING, VALIDATION } from './corpus.js';
import { currentDigests, RECORDED_DIGESTS, SHIPPED_WEIGHTS, TRAINING_SCRIPT } from './training-inputs.js';
import { type Dataset, seriesExamples, trainNetwork, type TrainingSettings } from './training.js';

/** The settings the shipped weights were trained with. */
export const SETTINGS = Object.freeze<TrainingSettings>({
  hidden: [16, 8],
  epochs: 30,
  batchSize: 64,
  learningRate: 0.002,
  // 1, 3 and 8 were tried on the validation selection: 1 gave the best F1 (bench:predict --validation).
  positiveWeight: 1,
  l2: 0.0001,
  seed: 20_030,
});

const LATENCY_FEATURES: readonly FeatureName[] = ['p50', 'p90', 'p99'];
const COUNTERS = ['queueDepth', 'iops', 'errors'] as const satisfies readonly FeatureName[];

interface Options {
  out: string;
  window: number;
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = { out: path.join(REPO_ROOT, SHIPPED_WEIGHTS), window: DEFAULT_PREDICTOR_PARAMS.windowSamples };
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--out' && argv[i + 1] !== undefined) options.out = path.resolve(argv[++i]);
    else if (argv[i] === '--window' && Number.isInteger(Number(argv[i + 1])) && Number(argv[i + 1]) >= DEFAULT_PREDICTOR_PARAMS.minSamples) options.window = Number(argv[++i]);
    else {
      process.stderr.write('usage: node dist-dev/dev/predict/train.js [--out FILE] [--window N]\n');
      process.exit(3);
    }
  }
  return options;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  const tty = Boolean(process.stdout.isTTY) && (process.stdout.columns ?? 0) > 0;
  const spinner = tty ? (await import('ora')).default({ text: 'generating', stream: process.stdout }).start() : null;

  const disksOf = (selection: Selection): CorpusDisk[] => {
    const jobs = runJobs(selection);
    const disks: CorpusDisk[] = [];
    jobs.forEach((job, i) => {
      if (spinner) spinner.text = `${i + 1}/${jobs.length} runs: ${job.label}`;
      disks.push(...job.run().disks);
    });
    return disks;
  };
  const params = { ...DEFAULT_PREDICTOR_PARAMS, windowSamples: options.window };
  const examplesOf = (disks: readonly CorpusDisk[], features: readonly FeatureName[]): Dataset => {
    const data: Dataset = { inputs: [], labels: [] };
    for (const disk of disks) {
      const examples = seriesExamples(disk.features, params, features, foreseeableFrom(disk));
      data.inputs.push(...examples.inputs);
      data.labels.push(...examples.labels);
    }
    return data;
  };
  const disks = disksOf(TRAINING);
  // A counter is an input only if training saw it vary: the network has nothing to learn from
  // a constant, and would read an untrained weight at run time.
  const features: FeatureName[] = [...LATENCY_FEATURES, ...COUNTERS.filter((name) => disks.some((d) => d.features.some((f) => (f[name] ?? 0) > 0)))];
  const data = examplesOf(disks, features);
  const positives = data.labels.filter((y) => y === 1).length;
  if (spinner) spinner.text = `training on ${data.inputs.length} examples (${positives} positive)`;
  const { sampleMs, windowSamples, horizonMs } = params;
  const model = trainNetwork(data, SETTINGS, { sampleMs, windowSamples, horizonMs, features });
  const validation = examplesOf(disksOf(VALIDATION), features);
  if (spinner) spinner.text = `calibrating on ${validation.inputs.length} validation examples`;
  model.calibration = fitPlattScaling(validation.inputs.map((x) => rawNetworkProbability(model, x)), validation.labels);
  model.training = {
    script: TRAINING_SCRIPT,
    selection: TRAINING,
    settings: SETTINGS,
    examples: data.inputs.length,
    positives,
    calibration: { selection: VALIDATION, examples: validation.inputs.length },
  };
  writeFileSync(options.out, `${JSON.stringify(model)}\n`);
  if (options.out === path.join(REPO_ROOT, SHIPPED_WEIGHTS)) writeFileSync(path.join(REPO_ROOT, RECORDED_DIGESTS), currentDigests());
  spinner?.succeed(`${path.relative(process.cwd(), options.out)}: ${data.inputs.length} examples (${positives} positive), ${features.join(', ')}`);
}

main().catch((error: unknown) => {
  process.stderr.write(`train: ${(error as Error).message}\n`);
  process.exit(1);
});
