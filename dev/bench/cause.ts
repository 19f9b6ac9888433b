// Why a disk was slow, on real loop devices: each cause made as it really happens, each case
// run several times, and what `watch --json` said of the disks made slow. Prints the confusion
// matrix (the true cause against the cause given, over the slow rounds after the first), the
// rounds from the slowness showing to the first right cause, and the verdicts reached.
//
//   device     a disk on a media disk whose writes the kit's slow caps (its own device slow)
//   load       four processes writing 1 MiB direct to a healthy disk
//   throttle   the kit's throttle: the disk's own device capped in slowdisk's (root) cgroup
//   cpu        watch in a cgroup at a CPU quota that a neighbour in it uses up
//   shared     two disks on one media, slowed through it
//   neighbour  two disks on one media; one written to by four processes, the other idle
//
// 1 s rounds (10 ticks), as the tests of the causes; the load cases with a 2 ms timeout, under
// which a busy healthy disk's 1.5 to 3.5 ms inspections time out (at 100 ms they would only
// be doubted by the statistical detector).
import { join } from 'node:path';
import type { Severity } from '../../src/score/store-score.js';
import type { SlowCause } from '../../src/verdict/slow-cause.js';
import {
  BIN,
  SETTINGS,
  BenchCgroup,
  benchDir,
  isMain,
  loadDisk,
  makeDisk,
  median,
  onCleanup,
  progress,
  row,
  runCleanups,
  runParts,
  sleep,
  slowDisk,
  spawnTracked,
  throttleDisk,
  unloadDisk,
  unslowDisk,
  unthrottleDisk,
  waitUntil,
  type Disk,
  type Row,
  type Tracked,
} from './lib.js';

const RUNS = SETTINGS.quick ? 1 : Math.max(5, SETTINGS.repeats);
const HEALTHY_ROUNDS = 6;
const OBSERVED_ROUNDS = SETTINGS.quick ? 10 : 20;
const FLAGS = ['--keep-going', '--json', '--round-ticks', '10', '--stat-min-baseline', '5', '--stat-suspect-after', '2s'];
const CAUSES: readonly SlowCause[] = ['device', 'shared', 'load', 'throttle', 'cpu', 'unknown'];
const CPU_CGROUP = '/sys/fs/cgroup/cpu';

/** The fields of `watch --json` lines (docs/json-lines.md) that this bench reads. */
interface WatchLine {
  type: string;
  tick: number;
  disk?: string;
  cause?: SlowCause;
  held?: string;
  severity?: Severity;
  event?: string;
}

/** One case made: its disks by name, the cause each should be given, and how its fault comes and goes. */
interface MadeCase {
  paths: [string, Disk][];
  truth: Record<string, SlowCause>;
  /** More flags for watch. */
  flags?: string[];
  /** A command line that runs watch inside it. */
  wrap?: readonly string[];
  inject: () => void;
  lift: () => void;
  /** Waited for once watch has gone, before the clean-up. */
  done?: () => Promise<boolean>;
}

/** A media disk in memory and `count` disks made on it, or `count` disks of their own. */
function disks(base: string, count: number, { onMedia }: { onMedia: boolean }): Disk[] {
  const media = onMedia ? makeDisk(join(base, 'media'), 120 * count + 64, { backingDir: '/dev/shm' }) : null;
  return Array.from({ length: count }, (_, i) => makeDisk(join(base, String.fromCharCode(97 + i)), 100, { backingDir: media ? media.dir : '/dev/shm' }));
}

const CASES = {
  device: (base) => {
    const [a] = disks(base, 1, { onMedia: true });
    return { paths: [['a', a]], truth: { a: 'device' }, inject: () => slowDisk(a, 15), lift: () => unslowDisk(a) };
  },
  load: (base) => {
    const [a] = disks(base, 1, { onMedia: false });
    return { paths: [['a', a]], truth: { a: 'load' }, flags: ['--timeout', '2ms'], inject: () => loadDisk(a, 4), lift: () => unloadDisk(a) };
  },
  throttle: (base) => {
    const [a] = disks(base, 1, { onMedia: false });
    return { paths: [['a', a]], truth: { a: 'throttle' }, inject: () => throttleDisk(a, 5), lift: () => unthrottleDisk(a) };
  },
  cpu: (base) => {
    const [a] = disks(base, 1, { onMedia: false });
    const cgroup = new BenchCgroup(CPU_CGROUP, 'cpu');
    const quota = (value: string): void => cgroup.write('cpu.cfs_quota_us', value);
    let hog: Tracked | null = null;
    // Run before the group's own removal (last in, first out): the group is empty by then.
    onCleanup(() => {
      quota('-1');
      if (hog) hog.kill('SIGKILL');
    });
    return {
      paths: [['a', a]],
      truth: { a: 'cpu' },
      wrap: cgroup.wrap,
      inject: () => {
        cgroup.write('cpu.cfs_period_us', '1000000');
        quota('50000');
        hog = cgroup.spawn('sh', ['-c', 'while :; do :; done']);
      },
      lift: () => {
        hog?.kill('SIGKILL');
        quota('-1');
      },
      // Empty once watch and the neighbour have gone: the clean-up removes it then.
      done: () => cgroup.emptied(10_000),
    };
  },
  shared: (base) => {
    const [a, b] = disks(base, 2, { onMedia: true });
    return { paths: [['a', a], ['b', b]], truth: { a: 'shared', b: 'shared' }, inject: () => slowDisk(a, 15), lift: () => unslowDisk(a) };
  },
  neighbour: (base) => {
    const [a, b] = disks(base, 2, { onMedia: true });
    return { paths: [['a', a], ['b', b]], truth: { a: 'load', b: 'load' }, flags: ['--timeout', '2ms'], inject: () => loadDisk(b, 4), lift: () => unloadDisk(b) };
  },
} satisfies Record<string, (base: string) => MadeCase>;

type CaseName = keyof typeof CASES;

const isCaseName = (name: string): name is CaseName => name in CASES;

/** One disk's rounds after the fault: the cause given at each (null: not slow). */
interface DiskRounds {
  disk: string;
  truth: SlowCause;
  causes: (SlowCause | null)[];
  firstSlow: number;
  firstRight: number;
}

interface CaseRun {
  perDisk: DiskRounds[];
  verdict: 'CRITICAL' | 'WARNING' | 'OK';
  held: boolean;
  evictEvent: boolean;
}

/** One run of a case: the disks' rounds after the fault, and the store's. */
async function runCase(name: CaseName, index: number): Promise<CaseRun | null> {
  const base = benchDir(`cause-${name}-${index}`);
  const made: MadeCase = CASES[name](base);
  const args = [BIN, 'watch', ...made.paths.flatMap(([disk, { dir }]) => ['--path', `${disk}=${dir}`]), ...FLAGS, ...(made.flags ?? [])];
  const command = made.wrap ? [...made.wrap, process.execPath, ...args] : [process.execPath, ...args];
  const watch = spawnTracked(command[0], command.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  watch.stdout.on('data', (chunk: Buffer) => (out += chunk));
  const lines = (): WatchLine[] =>
    out
      .slice(0, out.lastIndexOf('\n') + 1)
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as WatchLine);
  const diskLines = (disk: string): WatchLine[] => lines().filter((line) => line.type === 'disk' && line.disk === disk);
  const truthDisks = Object.keys(made.truth);
  const healthy = await waitUntil(() => truthDisks.every((disk) => diskLines(disk).filter((line) => line.cause === undefined).length >= HEALTHY_ROUNDS), 120_000, 200);
  if (!healthy) {
    watch.kill('SIGTERM');
    await watch.exited;
    await made.done?.();
    return null;
  }
  const from = Math.max(...lines().filter((line) => line.type === 'disk').map((line) => line.tick));
  made.inject();
  await waitUntil(() => truthDisks.every((disk) => diskLines(disk).filter((line) => line.tick > from).length >= OBSERVED_ROUNDS), 120_000, 200);
  made.lift();
  watch.kill('SIGTERM');
  await watch.exited;
  await made.done?.();
  const after = lines().filter((line) => line.tick > from);
  const perDisk = truthDisks.map((disk) => {
    const causes = after
      .filter((line) => line.type === 'disk' && line.disk === disk)
      .slice(0, OBSERVED_ROUNDS)
      .map((line) => line.cause ?? null);
    const firstSlow = causes.findIndex((cause) => cause !== null);
    const firstRight = causes.findIndex((cause) => cause === made.truth[disk]);
    return { disk, truth: made.truth[disk], causes, firstSlow, firstRight };
  });
  const stores = after.filter((line) => line.type === 'store');
  const verdict = stores.some((line) => line.severity === 'evict') ? 'CRITICAL' : stores.some((line) => line.severity !== 'ok') ? 'WARNING' : 'OK';
  const held = after.some((line) => line.type === 'disk' && line.held !== undefined);
  return { perDisk, verdict, held, evictEvent: after.some((line) => line.type === 'event' && line.event === 'evict') };
}

/** BENCH_CAUSES=load,cpu runs those cases alone (every case by default). */
function caseNames(): CaseName[] {
  const asked = process.env.BENCH_CAUSES;
  if (!asked) return Object.keys(CASES).filter(isCaseName);
  const names = asked.split(',');
  const unknown = names.filter((name) => !isCaseName(name));
  if (unknown.length > 0) throw new Error(`BENCH_CAUSES: no case ${unknown.join(', ')} (cases: ${Object.keys(CASES).join(', ')})`);
  return names.filter(isCaseName);
}

interface CaseFigures {
  shares: number[];
  /** null: the right cause never given. */
  lagsRounds: (number | null)[];
  verdicts: string[];
  runs: CaseRun[];
}

interface CauseFigures {
  runs: number;
  observedRounds: number;
  roundMs: number;
  confusion: Record<string, Record<SlowCause, number>>;
  unstarted: Record<string, number>;
  cases: Record<string, CaseFigures>;
  matrix?: string;
}

async function cause(): Promise<{ rows: Row[]; figures: CauseFigures }> {
  const results = new Map<CaseName, CaseRun[]>();
  const unstarted: Partial<Record<CaseName, number>> = {};
  const names = caseNames();
  const noCauses = (): Record<SlowCause, number> => Object.fromEntries(CAUSES.map((c) => [c, 0])) as Record<SlowCause, number>;
  const confusion = Object.fromEntries(names.map((name) => [name, noCauses()])) as Record<CaseName, Record<SlowCause, number>>;
  for (const name of names) {
    const caseRuns: CaseRun[] = [];
    results.set(name, caseRuns);
    for (let i = 0; i < RUNS; i += 1) {
      const spin = progress(`cause: ${name}, run ${i + 1} of ${RUNS}`);
      let result: CaseRun | null;
      try {
        result = await runCase(name, i);
      } finally {
        spin.stop();
      }
      // A disk never healthy for long enough before the fault says nothing of its cause.
      if (result) caseRuns.push(result);
      else unstarted[name] = (unstarted[name] ?? 0) + 1;
      // What the run made goes before the next run makes its own.
      runCleanups();
      await sleep(500);
    }
    for (const run of caseRuns) {
      for (const disk of run.perDisk) {
        if (disk.firstSlow < 0) continue;
        for (const given of disk.causes.slice(disk.firstSlow + 1)) if (given !== null) confusion[name][given] += 1;
      }
    }
  }
  const rows: Row[] = [];
  const figures: CauseFigures = { runs: RUNS, observedRounds: OBSERVED_ROUNDS, roundMs: 1000, confusion, unstarted, cases: {} };
  for (const [name, runs] of results) {
    // Per run: the share of its slow rounds, after each disk's first, with the right cause.
    const shares = runs.map((run) => {
      let right = 0;
      let all = 0;
      for (const disk of run.perDisk) {
        if (disk.firstSlow < 0) continue;
        const later = disk.causes.slice(disk.firstSlow + 1).filter((given) => given !== null);
        all += later.length;
        right += later.filter((given) => given === disk.truth).length;
      }
      return all === 0 ? 0 : right / all;
    });
    const lags = runs.flatMap((run) => run.perDisk.map((disk) => (disk.firstRight < 0 || disk.firstSlow < 0 ? Infinity : disk.firstRight - disk.firstSlow)));
    const deviceGiven = name === 'device' || name === 'shared' ? 0 : confusion[name].device;
    const verdicts = runs.map((run) => `${run.verdict}${run.held ? ' held' : ''}`);
    const share = median(shares);
    const lag = median(lags);
    figures.cases[name] = { shares, lagsRounds: lags.map((x) => (Number.isFinite(x) ? x : null)), verdicts, runs };
    rows.push(row('cause', `${name}: slow rounds with the right cause, median run`, `${(100 * share).toFixed(0)} %`, '>= 90 %', share >= 0.9));
    rows.push(row('cause', `${name}: rounds from the slowness showing to the right cause, median`, Number.isFinite(lag) ? String(lag) : 'never', '<= 2', lag <= 2));
    if (name !== 'device' && name !== 'shared') rows.push(row('cause', `${name}: slow rounds called device, all runs`, String(deviceGiven), '0', deviceGiven === 0));
    rows.push(row('cause', `${name}: verdicts`, summarise(verdicts)));
    const left = unstarted[name];
    if (left) rows.push(row('cause', `${name}: runs left out, not ${HEALTHY_ROUNDS} healthy rounds in 120 s before the fault`, String(left)));
  }
  const header = ['true \\ given', ...CAUSES].join(' | ');
  const matrix = [
    `| ${header} |`,
    `|${'---|'.repeat(CAUSES.length + 1)}`,
    ...Object.entries(confusion).map(([name, given]) => `| ${name} | ${CAUSES.map((c) => given[c]).join(' | ')} |`),
  ];
  process.stdout.write(`\nslow rounds after the first, true cause (rows) against the cause given (columns), ${RUNS} run(s) a case:\n\n${matrix.join('\n')}\n\n`);
  figures.matrix = matrix.join('\n');
  return { rows, figures };
}

/** "CRITICAL x5" or "WARNING held x4, CRITICAL x1". */
function summarise(verdicts: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const verdict of verdicts) counts.set(verdict, (counts.get(verdict) ?? 0) + 1);
  return [...counts].map(([verdict, count]) => `${verdict} x${count}`).join(', ');
}

if (isMain(import.meta.url)) await runParts([{ name: 'cause', run: cause }]);
