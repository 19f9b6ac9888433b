// Detection-quality benchmark: runs the slow score, the statistical detector (with its fast
// path, and the article's rules alone beside it), the tail detector and a fixed-threshold
// baseline over seeded scenarios and prints one table.
//
//   npm run bench:detect                       # tsc, then this script
//   node dist-dev/dev/bench/detect.js [--runs N] [--disk-hours H] [--workers N] [--seed S]
//                                     [--only NAME[,NAME...]] [--json FILE]
//
// --runs        runs (seeds) per fault scenario and host (100)
// --disk-hours  seeded disk-hours per host of each scenario without a fault (404)
// --workers     worker threads (min(2, cores))
// --seed        the first seed (1); run i uses seed + i
// --only        only the scenarios whose names contain one of these
// --json        where the figures are written (bench-results/detect.json)
// --stat K=V    overrides a parameter of the statistical detector (repeatable), e.g. --stat threshold=4
// --tail K=V    overrides a parameter of the tail detector (repeatable), e.g. --tail significance=0.001
//
// One run is detect-runs.ts, run in worker threads (detect-worker.ts); the figures, the
// targets and the table are detect-figures.ts, detect-targets.ts and detect-table.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Ora } from 'ora';
import { DEFAULT_STATISTICAL_PARAMS, type StatisticalParams } from '../../src/detectors/statistical-params.js';
import { DEFAULT_TAIL_PARAMS, type TailParams } from '../../src/detectors/tail-params.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { DEFAULT_FIXED_THRESHOLD_PARAMS } from '../baselines/fixed-threshold.js';
import { REPO_ROOT } from '../repo-root.js';
import { NOT_MODELLED } from '../scenarios/index.js';
import { aggregate, summary } from './detect-figures.js';
import { HOSTS, QUIET_KINDS, runJob, runOne, SCENARIOS, type Job, type RunResult } from './detect-runs.js';
import { SEED_FIGURES, table } from './detect-table.js';
import { targets } from './detect-targets.js';
import type { WorkerSetup } from './detect-worker.js';

interface Options {
  runs: number;
  diskHours: number;
  workers: number;
  seed: number;
  only: string[] | null;
  json: string;
  stat: StatisticalParams;
  tail: TailParams;
}

/** `--stat K=V` or `--tail K=V`: a parameter of the defaults' kind, a boolean as `true`, anything else as a number. */
function setParam<P extends object>(flag: string, assignment: string, defaults: Readonly<P>, params: P): void {
  const [key, v] = assignment.split('=');
  if (!(key in defaults)) throw new Error(`${flag}: no parameter '${key}'`);
  const def: unknown = defaults[key as keyof P];
  (params as Record<string, unknown>)[key] = typeof def === 'boolean' ? v === 'true' : Number(v);
}

function parseArgs(argv: readonly string[]): Options {
  const options: Options = {
    runs: 100,
    diskHours: 404,
    workers: Math.max(1, Math.min(2, os.availableParallelism?.() ?? os.cpus().length)),
    seed: 1,
    only: null,
    json: path.join(REPO_ROOT, 'bench-results', 'detect.json'),
    stat: { ...DEFAULT_STATISTICAL_PARAMS },
    tail: { ...DEFAULT_TAIL_PARAMS },
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    const int = (v: string, min: number) => {
      const n = Number(v);
      if (!Number.isInteger(n) || n < min) throw new Error(`${arg}: expected a whole number from ${min}, got '${v}'`);
      return n;
    };
    if (arg === '--runs') options.runs = int(value(), 1);
    else if (arg === '--disk-hours') options.diskHours = Number(value());
    else if (arg === '--workers') options.workers = int(value(), 1);
    else if (arg === '--seed') options.seed = int(value(), 0);
    else if (arg === '--only') options.only = value().split(',');
    else if (arg === '--json') options.json = path.resolve(value());
    else if (arg === '--stat') setParam(arg, value(), DEFAULT_STATISTICAL_PARAMS, options.stat);
    else if (arg === '--tail') setParam(arg, value(), DEFAULT_TAIL_PARAMS, options.tail);
    else if (arg === '--help' || arg === '-h') {
      process.stdout.write(
        'usage: node dist-dev/dev/bench/detect.js [--runs N] [--disk-hours H] [--workers N] [--seed S] [--only NAME,...] [--json FILE]\n',
      );
      process.exit(0);
    } else throw new Error(`unknown argument '${arg}'`);
  }
  if (!(options.diskHours > 0)) throw new Error('--disk-hours must be above 0');
  return options;
}

function makeJobs(options: Options): Job[] {
  const jobs: Job[] = [];
  for (const scenario of SCENARIOS) {
    if (options.only && !options.only.some((o) => scenario.name.includes(o))) continue;
    const faulty = !QUIET_KINDS.includes(scenario.kind);
    for (const host of HOSTS) {
      // A run without a fault lasts 1 h: enough runs for the disk-hours asked.
      const runs = faulty ? options.runs : Math.ceil(options.diskHours / host.disks);
      for (let i = 0; i < runs; i += 1) jobs.push({ scenario: scenario.name, host: host.name, seed: options.seed + i });
    }
  }
  return jobs;
}

async function runJobs(jobs: readonly Job[], workers: number, statParams: StatisticalParams, tailParams: TailParams, onResult: (result: RunResult) => void): Promise<void> {
  if (workers <= 1) {
    for (const job of jobs) {
      onResult(runJob(job, statParams, tailParams));
      // Let the spinner draw.
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return;
  }
  // The longest runs first, so that the workers finish together.
  const queue = [...jobs].sort((a, b) => cost(b) - cost(a));
  await Promise.all(
    Array.from({ length: Math.min(workers, queue.length) }, () => {
      const setup: WorkerSetup = { statParams, tailParams };
      const worker = new Worker(new URL('./detect-worker.js', import.meta.url), { workerData: setup });
      return new Promise<void>((resolve, reject) => {
        const feed = () => worker.postMessage(queue.length ? queue.shift() : null);
        worker.on('message', (result: RunResult) => {
          onResult(result);
          feed();
        });
        worker.on('error', reject);
        worker.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited with ${code}`))));
        feed();
      });
    }),
  );
}

function cost(job: Job): number {
  const host = HOSTS.find((h) => h.name === job.host)!;
  const scenario = SCENARIOS.find((s) => s.name === job.scenario)!;
  const faulty = !QUIET_KINDS.includes(scenario.kind);
  return host.disks * (faulty ? 21 : 60);
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  const jobs = makeJobs(options);
  // A terminal that reports no width (a pseudo-terminal without one) gets no spinner either.
  const tty = Boolean(process.stdout.isTTY) && (process.stdout.columns ?? 0) > 0;
  let spinner: Ora | null = null;
  if (tty) {
    const { default: ora } = await import('ora');
    spinner = ora({ text: `0/${jobs.length} runs`, stream: process.stdout }).start();
  }
  const started = Date.now();
  const results: RunResult[] = [];
  await runJobs(jobs, options.workers, options.stat, options.tail, (result) => {
    results.push(result);
    if (spinner) spinner.text = `${results.length}/${jobs.length} runs (${result.scenario}, ${result.host}, seed ${result.seed})`;
  });
  // The slow score's textbook hang: onset on a round boundary (tick 3000).
  const hangScenario = SCENARIOS.find((s) => s.kind === 'hang')!;
  const aligned = jobs.some((j) => j.scenario === hangScenario.name)
    ? HOSTS.map((host) => runOne(hangScenario, host, options.seed, options.stat, { onsetMs: 300_000 }, options.tail))
    : [];
  spinner?.stop();
  const elapsedS = (Date.now() - started) / 1000;
  const rows = aggregate(results);
  const summaryFigures = summary(rows);
  const targetList = targets(rows, aligned);
  process.stdout.write(`${table(rows, options, summaryFigures, targetList, elapsedS)}\n`);

  mkdirSync(path.dirname(options.json), { recursive: true });
  writeFileSync(
    options.json,
    `${JSON.stringify(
      {
        generated: new Date().toISOString(),
        elapsedS,
        options: { runs: options.runs, diskHours: options.diskHours, seed: options.seed, workers: options.workers, only: options.only },
        params: { statistical: options.stat, tail: options.tail, slowScore: DEFAULT_SCORE_PARAMS, fixed: DEFAULT_FIXED_THRESHOLD_PARAMS },
        hosts: HOSTS,
        scenarios: SCENARIOS,
        notModelled: NOT_MODELLED,
        seedFigures: SEED_FIGURES,
        summary: summaryFigures,
        targets: targetList,
        rows,
      },
      null,
      2,
    )}\n`,
  );
  if (tty) process.stdout.write(`figures written to ${path.relative(process.cwd(), options.json) || options.json}\n`);
}

// Run as a script (not when imported, e.g. by a test or a notebook).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((error: unknown) => {
    process.stderr.write(`bench:detect: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
