// Shared by the benchmark parts: statistics, progress, real test disks and their
// clean-up, /proc readers, the slowdisk CLI as a measured process, and the
// results file. Measures the compiled project (dist/) as a user runs it: the CLI, bin/slowdisk.js.
import { execFileSync, spawn, type ChildProcess, type ChildProcessByStdio, type SpawnOptions } from 'node:child_process';
import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import ora from 'ora';
import { childPids } from '../process-tree.js';
import { REPO_ROOT } from '../repo-root.js';
import type { Observation } from './observation.js';

export const BIN = join(REPO_ROOT, 'bin/slowdisk.js');
export const KIT = join(REPO_ROOT, 'scripts/fault');
// Preloaded into, and run as, processes of their own: the compiled files beside this one.
export const OBSERVER = fileURLToPath(new URL('./observer.js', import.meta.url));
export const HARNESS = fileURLToPath(new URL('./harness.js', import.meta.url));
const PLAIN_LOOP_SOURCE = join(REPO_ROOT, 'dev/bench/plain-loop.c');
export const RESULTS_DIR = join(REPO_ROOT, 'bench-results');
// A smoke run (BENCH_QUICK=1) keeps its figures apart, never over the real ones.
const RESULTS_NAME = process.env.BENCH_QUICK === '1' ? 'probe-quick' : 'probe';
export const RESULTS_FILE = join(RESULTS_DIR, `${RESULTS_NAME}.json`);
export const ADDON = join(REPO_ROOT, 'build/Release/slowdisk_probe.node');

function envInt(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number, got '${text}'`);
  return value;
}

function envChoice<T extends string>(name: string, choices: readonly T[], fallback: T): T {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const isChoice = (value: string): value is T => (choices as readonly string[]).includes(value);
  if (!isChoice(text)) throw new Error(`${name} must be one of ${choices.join(', ')}, got '${text}'`);
  return text;
}

/** Where each BENCH_BACKING keeps the scale run's loop images. */
export const BACKING_DIRS = { tmp: tmpdir(), shm: '/dev/shm' };
export type Backing = keyof typeof BACKING_DIRS;

/**
 * How much to measure. The defaults are what the figures in docs/benchmarks.md were taken with;
 * BENCH_QUICK=1 is a smoke run (figures too short to quote).
 */
export const SETTINGS = (() => {
  const quick = process.env.BENCH_QUICK === '1';
  return {
    quick,
    /** Each figure is the median of this many runs. */
    repeats: envInt('BENCH_REPEATS', quick ? 1 : 3),
    /** The measured window of every `watch` run. */
    windowS: envInt('BENCH_WINDOW_S', quick ? 10 : 60),
    /** Inspections per fidelity run (at 100 ms: 30 s). */
    fidelitySamples: envInt('BENCH_SAMPLES', quick ? 40 : 300),
    /** Disks in the scale run. */
    scaleDisks: envInt('BENCH_SCALE_DISKS', quick ? 16 : 64),
    /**
     * Where the scale run's loop images live: 'tmp', the temporary directory (on the machine's
     * own disk, which a journal commit or a neighbour can stall), or 'shm', tmpfs, which cannot.
     */
    backing: envChoice('BENCH_BACKING', Object.keys(BACKING_DIRS) as Backing[], 'tmp'),
  };
})();

// ---------------------------------------------------------------------------
// statistics

/** The q-quantile with linear interpolation between order statistics (R's type 7). */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (values: ArrayLike<number>): number => quantile(values, 0.5);
export const p99 = (values: ArrayLike<number>): number => quantile(values, 0.99);

/** Median over the repeats of one figure, each run's figure picked by `pick`. */
export function medianOver<Run>(runs: readonly Run[], pick: (run: Run) => number): number {
  return median(runs.map(pick).filter((value) => Number.isFinite(value)));
}

// ---------------------------------------------------------------------------
// output

// A terminal without a size (a pty nobody set up) would make ora redraw without end.
const interactive = process.stdout.isTTY === true && process.stdout.columns > 0;

export interface Progress {
  set(next: string): void;
  done(final?: string): void;
  fail(final?: string): void;
  stop(): void;
}

/**
 * A spinner on a terminal; nothing at all otherwise, so that `npm run bench > file`
 * holds the table only.
 */
export function progress(text: string): Progress {
  const spinner = interactive ? ora({ text, stream: process.stdout, discardStdin: false }).start() : null;
  return {
    set(next) {
      if (spinner) spinner.text = next;
    },
    done(final) {
      if (spinner) spinner.succeed(final ?? spinner.text);
    },
    fail(final) {
      if (spinner) spinner.fail(final ?? spinner.text);
    },
    stop() {
      spinner?.stop();
    },
  };
}

/** One line on stderr: a skipped part or a missing tool, never silently. */
export function note(line: string): void {
  process.stderr.write(`bench: ${line}\n`);
}

/** Formats milliseconds for the table: 3 significant digits. */
export function ms(value: number): string {
  if (!Number.isFinite(value)) return '-';
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  return `${(value * 1000).toFixed(value >= 0.1 ? 0 : 1)} µs`;
}

export function ratio(value: number): string {
  return Number.isFinite(value) ? value.toFixed(2) : '-';
}

export function pct(value: number, digits = 2): string {
  return Number.isFinite(value) ? `${value.toFixed(digits)} %` : '-';
}

export function mib(kib: number): string {
  return Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MiB` : '-';
}

/** A row of the results table: what, measured, target, verdict. */
export interface Row {
  part: string;
  what: string;
  value: string;
  target: string;
  verdict: '' | 'met' | 'MISSED';
}

export function row(part: string, what: string, value: string, target = '', ok: boolean | null = null): Row {
  return { part, what, value, target, verdict: ok === null ? '' : ok ? 'met' : 'MISSED' };
}

type Column = keyof Row;

export function formatTable(rows: readonly Row[]): string {
  const header: Record<Column, string> = { part: 'part', what: 'measure', value: 'measured', target: 'target', verdict: '' };
  const all = [header, ...rows];
  const keys: Column[] = ['part', 'what', 'value', 'target', 'verdict'];
  const width = Object.fromEntries(keys.map((key) => [key, Math.max(...all.map((r) => String(r[key]).length))])) as Record<Column, number>;
  const line = (r: Record<Column, string>): string => keys.map((key) => String(r[key]).padEnd(width[key])).join('  ').trimEnd();
  const rule = keys.map((key) => '-'.repeat(width[key])).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function markdownTable(rows: readonly Row[]): string {
  const lines = ['| part | measure | measured | target | |', '|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.part} | ${r.what} | ${r.value} | ${r.target} | ${r.verdict} |`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// the machine and the results file

export interface Machine {
  nproc: number;
  cpuModel: string;
  kernel: string;
  node: string;
  memTotalKiB: number;
  loadAvgAtStart: number[];
}

export function machine(): Machine {
  const cpuinfo = readFileSync('/proc/cpuinfo', 'utf8');
  const model = /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? cpus()[0]?.model ?? 'unknown';
  return {
    nproc: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()),
    cpuModel: model,
    kernel: execFileSync('uname', ['-r'], { encoding: 'utf8' }).trim(),
    node: process.version,
    memTotalKiB: Number(/^MemTotal:\s*(\d+)/m.exec(readFileSync('/proc/meminfo', 'utf8'))?.[1]),
    loadAvgAtStart: loadavg().map((value) => Number(value.toFixed(2))),
  };
}

export type Settings = typeof SETTINGS;

/** One part's latest run in bench-results/probe.json. */
interface SavedPart {
  machine: Machine;
  settings: Settings;
  figures: unknown;
  rows: Row[];
  finishedAt: string;
}

interface ResultsFile {
  parts?: Record<string, SavedPart>;
  updatedAt?: string;
}

/** Merges one part's figures into bench-results/probe.json, keeping the other parts'. */
export function saveResults(part: string, figures: Omit<SavedPart, 'finishedAt'>): void {
  mkdirSync(RESULTS_DIR, { recursive: true });
  let all: ResultsFile = {};
  try {
    all = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as ResultsFile;
  } catch {
    all = {};
  }
  all.parts ??= {};
  all.parts[part] = { ...figures, finishedAt: new Date().toISOString() };
  all.updatedAt = new Date().toISOString();
  writeFileSync(RESULTS_FILE, `${JSON.stringify(all, null, 2)}\n`);
}

// ---------------------------------------------------------------------------
// preconditions

export function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** The compiled project and the addon must exist; the bench never builds the addon itself. */
export function requireBuilt(): void {
  const missing: string[] = [];
  if (!existsSync(join(REPO_ROOT, 'dist/live/probe-session.js'))) missing.push('dist/ (run `npx tsc -p tsconfig.json`)');
  if (!existsSync(ADDON)) missing.push('the native addon (run `npm run build`)');
  if (missing.length > 0) throw new Error(`not built: ${missing.join(', ')}`);
  const addonTime = statSync(ADDON).mtimeMs;
  const newer = readdirSync(join(REPO_ROOT, 'native')).filter((file) => statSync(join(REPO_ROOT, 'native', file)).mtimeMs > addonTime);
  if (newer.length > 0) note(`the native addon is older than native/${newer[0]}: the figures are the old addon's (npm run build)`);
}

export function requireRoot(what: string): void {
  if (process.geteuid?.() !== 0) throw new Error(`${what} needs root: it makes loop devices and throttles them`);
}

/** Compiles dev/bench/plain-loop.c once per run into a temporary directory. */
let plainLoopBinary: string | null = null;
export function plainLoop(): string {
  if (plainLoopBinary) return plainLoopBinary;
  if (!onPath('cc')) throw new Error('cc not found: the plain C loop needs a C compiler (apt-get install -y gcc)');
  const dir = mkdtempSync(join(tmpdir(), 'slowdisk-bench-cc-'));
  onCleanup(() => {
    rmSync(dir, { recursive: true, force: true });
    plainLoopBinary = null;
  });
  const binary = join(dir, 'plain-loop');
  execFileSync('cc', ['-O2', '-Wall', '-o', binary, PLAIN_LOOP_SOURCE], { stdio: ['ignore', 'ignore', 'inherit'] });
  plainLoopBinary = binary;
  return binary;
}

// ---------------------------------------------------------------------------
// clean-up: disks, frozen filesystems and child processes, also on Ctrl-C

/** The end of a child's life: its exit code, or the signal that ended it. */
export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child the bench owns, with the promise of its exit. */
export type Tracked<Child extends ChildProcess = ChildProcess> = Child & { exited: Promise<Exit> };

/** A child whose stdout and stderr the bench reads. */
export type Piped = Tracked<ChildProcessByStdio<null, Readable, Readable>>;

const cleanups: { step: () => void; done: boolean }[] = [];
const children = new Set<Tracked>();
let cleaningUp = false;

/** Registers an undo step; steps run last-in first-out. Returns a function that runs it now. */
export function onCleanup(step: () => void): () => void {
  const entry = { step, done: false };
  cleanups.push(entry);
  return () => {
    if (entry.done) return;
    entry.done = true;
    step();
  };
}

export function runCleanups(): void {
  for (let entry = cleanups.pop(); entry !== undefined; entry = cleanups.pop()) {
    if (entry.done) continue;
    entry.done = true;
    try {
      entry.step();
    } catch (error) {
      note(`clean-up: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

/** Spawns a child the bench owns: it is killed (by its PID) if the bench is interrupted. */
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions & { stdio: ['ignore', 'pipe', 'pipe'] }): Piped;
export function spawnTracked(command: string, args: readonly string[], options?: SpawnOptions): Tracked;
export function spawnTracked(command: string, args: readonly string[], options: SpawnOptions = {}): Tracked {
  const child = spawn(command, args, options);
  const exited = new Promise<Exit>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const tracked = Object.assign(child, { exited });
  children.add(tracked);
  void exited.then(() => children.delete(tracked));
  return tracked;
}

function killChildrenNow() {
  for (const child of children) {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        // gone already
      }
    }
  }
}

function sleepSync(msToSleep: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, msToSleep);
}

const SIGNAL_EXIT_CODES: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGHUP: 129 };

function interrupted(signal: NodeJS.Signals): void {
  if (cleaningUp) return;
  cleaningUp = true;
  note(`${signal}: stopping what the bench started and removing its disks`);
  killChildrenNow();
  // The CLI stops its prober on SIGTERM; give both a moment before the disks go.
  const until = Date.now() + 3000;
  while (Date.now() < until && [...children].some((c) => c.exitCode === null && c.signalCode === null && c.pid !== undefined && alive(c.pid))) sleepSync(100);
  runCleanups();
  process.exit(SIGNAL_EXIT_CODES[signal] ?? 143);
}

// Kept installed: a second Ctrl-C while the disks are being removed must not cut that short.
// SIGHUP too: a closed terminal must not leave loop devices and frozen filesystems behind.
process.on('SIGINT', () => interrupted('SIGINT'));
process.on('SIGTERM', () => interrupted('SIGTERM'));
process.on('SIGHUP', () => interrupted('SIGHUP'));
process.once('exit', () => {
  if (!cleaningUp) {
    killChildrenNow();
    runCleanups();
  }
});

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

export async function waitUntil(predicate: () => boolean, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (predicate()) return true;
    await sleep(stepMs);
  }
  return predicate();
}

export const sleep = (msToSleep: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, msToSleep));

/**
 * A cgroup of the bench's own, `label` and its PID under `hierarchy` (a v1 controller's
 * mount, or the v2 root), removed at clean-up once the processes in it have gone.
 */
export class BenchCgroup {
  readonly dir: string;
  /**
   * Put before a command line, runs it in the group: the shell joins the group before it
   * becomes the command, so the command's first instruction is already the group's.
   */
  readonly wrap: readonly [string, ...string[]];

  constructor(hierarchy: string, label: string) {
    this.dir = join(hierarchy, `slowdisk-bench-${label}-${process.pid}`);
    mkdirSync(this.dir);
    this.wrap = ['/bin/sh', '-c', 'echo $$ > "$0/cgroup.procs" && exec "$@"', this.dir];
    onCleanup(() => rmdirSync(this.dir));
  }

  read(file: string): string {
    return readFileSync(join(this.dir, file), 'utf8');
  }

  write(file: string, value: string): void {
    writeFileSync(join(this.dir, file), value);
  }

  empty(): boolean {
    return this.read('cgroup.procs').trim() === '';
  }

  /** Whether every process in the group has gone within `timeoutMs`. */
  emptied(timeoutMs: number): Promise<boolean> {
    return waitUntil(() => this.empty(), timeoutMs);
  }

  /** Starts `command` in the group, its output ignored. */
  spawn(command: string, args: readonly string[]): Tracked {
    const [shell, ...wrapArgs] = this.wrap;
    return spawnTracked(shell, [...wrapArgs, command, ...args], { stdio: 'ignore' });
  }
}

// ---------------------------------------------------------------------------
// disks, made with the fault kit

/** A fresh directory to mount the bench's disks under; removed at the end if empty. */
export function benchDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `slowdisk-bench-${label}-`));
  onCleanup(() => {
    try {
      rmdirSync(dir);
    } catch {
      // not empty: something of a disk is left, and remove-disk said so
    }
  });
  return dir;
}

function kit(script: string, args: readonly string[]): string {
  return execFileSync(join(KIT, script), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * A loop-device ext4 disk mounted at `dir` (scripts/fault/make-disk), its image in
 * `backingDir` (make-disk's default: the temporary directory), removed at the end of the run
 * whatever happens: thawed first, unthrottled, unmounted, detached.
 */
export interface Disk {
  dir: string;
  loop: string;
  fs: string;
  /** The device's major:minor. */
  majmin: string;
  /** Removes it now rather than at the end of the run. */
  remove: () => void;
}

export function makeDisk(dir: string, sizeMib: number, { backingDir }: { backingDir?: string } = {}): Disk {
  const removeNow = onCleanup(() => {
    try {
      kit('thaw', [dir]);
    } catch {
      // not mounted (any more): remove-disk copes
    }
    kit('remove-disk', [dir]);
  });
  const made = kit('make-disk', [dir, '--size-mib', String(sizeMib), ...(backingDir ? ['--backing-dir', backingDir] : [])]);
  const match = /^made (\/dev\/loop\d+) \((\w+), (\d+:\d+)\)/.exec(made);
  if (!match) throw new Error(`make-disk said: ${made}`);
  return { dir, loop: match[1], fs: match[2], majmin: match[3], remove: removeNow };
}

/** Busy with others' I/O: `writers` processes writing 1 MiB direct, until unloadDisk (or its removal). */
export function loadDisk(disk: Disk, writers: number): void {
  kit('load', [disk.dir, '--writers', String(writers)]);
}

export function unloadDisk(disk: Disk): void {
  kit('unload', [disk.dir]);
}

/** Its own device serves slowly: the media it was made on (makeDisk's backingDir, another kit disk) capped. */
export function slowDisk(disk: Disk, writeIops: number): void {
  kit('slow', [disk.dir, '--write-iops', String(writeIops)]);
}

export function unslowDisk(disk: Disk): void {
  kit('unslow', [disk.dir]);
}

export function throttleDisk(disk: Disk, writeIops: number): void {
  kit('throttle', [disk.dir, '--write-iops', String(writeIops)]);
}

export function unthrottleDisk(disk: Disk): void {
  kit('unthrottle', [disk.dir]);
}

export function freezeDisk(disk: Disk): void {
  kit('hang', [disk.dir]);
}

export function thawDisk(disk: Disk): void {
  kit('thaw', [disk.dir]);
}

/** Completed write and flush requests of a block device, from /sys/block/NAME/stat. */
export function deviceWrites(loop: string): { writes: number; flushes: number } {
  const fields = readFileSync(`/sys/block/${loop.replace('/dev/', '')}/stat`, 'utf8').trim().split(/\s+/).map(Number);
  // Documentation/block/stat.rst: [0] read I/Os ... [4] write I/Os ... [11..14] discard, [15] flush I/Os
  return { writes: fields[4], flushes: fields[15] ?? NaN };
}

// ---------------------------------------------------------------------------
// /proc

/** CPU time of a process's live threads, in ms, to the ns. */
export function cpuMs(pid: number): number {
  // The scheduler's own accounting, in ns, of every thread alive: the probe threads' few
  // hundred µs a tick are lost in utime and stime's 10 ms ticks.
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // the thread ended while we looked
    }
  }
  return ns / 1e6;
}

/**
 * VmHWM and VmRSS in KiB. No PSS: this process is Node too, and would take a share of the
 * measured one's pages (dev/bench/memory.py reads PSS with no Node harness alive).
 */
export function memory(pid: number): { hwmKiB: number; rssKiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key: string): number => Number(new RegExp(`^${key}:\\s*(\\d+)`, 'm').exec(status)?.[1]);
  return { hwmKiB: kib('VmHWM'), rssKiB: kib('VmRSS') };
}

// ---------------------------------------------------------------------------
// the real CLI, measured from outside

export interface WatchOptions {
  /** Preload the observer to record tick lateness and inspections. */
  observe?: boolean;
  /** With `observe`, keep every inspection's phase timings too. */
  samples?: boolean;
  /** Preload the observer to report only where the ticks fall. */
  phase?: boolean;
  extraArgs?: readonly string[];
  waitForRound?: boolean;
}

/** A running `slowdisk watch`. */
export interface Watch {
  pid: number;
  proberPid: number;
  observeFile: string | null;
  stdout(): string;
  stderr(): string;
  /** Asks the observer to take a snapshot of its counters (window start / end). */
  mark(): void;
  stop(): Promise<Exit>;
  readObservation(): Observation;
  /** Where the ticks fall: their deadlines mod the interval on CLOCK_MONOTONIC, in ms. */
  tickPhaseMs(): Promise<number>;
}

/**
 * Starts `slowdisk watch --path NAME=DIR ... --keep-going` off a terminal (so it prints
 * round lines), optionally with dev/bench/observer.ts preloaded to record tick
 * lateness and inspections (`observe`), or only where its ticks fall (`phase`). Resolves
 * once its prober is running and (waitForRound) it printed its first round line.
 */
export async function startWatch(
  disks: readonly { name: string; dir: string }[],
  { observe = false, samples = false, phase = false, extraArgs = [], waitForRound = true }: WatchOptions = {},
): Promise<Watch> {
  const observeDir = observe || phase ? mkdtempSync(join(tmpdir(), 'slowdisk-bench-observe-')) : null;
  if (observeDir) onCleanup(() => rmSync(observeDir, { recursive: true, force: true }));
  const observeFile = observeDir && observe ? join(observeDir, 'observe.json') : null;
  const phaseFile = observeDir && phase ? join(observeDir, 'phase') : null;
  const args = [
    ...(observeDir ? ['--import', OBSERVER] : []),
    BIN,
    'watch',
    ...disks.flatMap(({ name, dir }) => ['--path', `${name}=${dir}`]),
    '--keep-going',
    ...extraArgs,
  ];
  const env = { ...process.env };
  if (observeFile) env.SLOWDISK_BENCH_OBSERVE = observeFile;
  if (samples) env.SLOWDISK_BENCH_SAMPLES = '1';
  if (phaseFile) env.SLOWDISK_BENCH_PHASE = phaseFile;
  const cli = spawnTracked(process.execPath, args, { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  cli.stdout.on('data', (chunk) => (stdout += chunk));
  cli.stderr.on('data', (chunk) => (stderr += chunk));
  const pid = cli.pid ?? NaN;
  const prober = { pid: null as number | null };
  const started = await waitUntil(() => {
    if (cli.exitCode !== null) return true;
    prober.pid = childPids(pid)[0] ?? null;
    // The first round line (after 30 ticks) means the session is ticking.
    return prober.pid !== null && (!waitForRound || /tick \d+/.test(stdout));
  }, 15_000);
  const proberPid = prober.pid;
  if (!started || cli.exitCode !== null || proberPid === null) {
    killPid(pid);
    throw new Error(`slowdisk watch did not start: ${stderr.trim() || stdout.trim() || 'no output'}`);
  }
  return {
    pid,
    proberPid,
    observeFile,
    stdout: () => stdout,
    stderr: () => stderr,
    mark() {
      process.kill(pid, 'SIGUSR2');
    },
    async stop() {
      if (cli.exitCode === null && cli.signalCode === null) process.kill(pid, 'SIGTERM');
      return cli.exited;
    },
    readObservation() {
      if (observeFile === null) throw new Error('slowdisk watch was started without { observe: true }');
      return JSON.parse(readFileSync(observeFile, 'utf8')) as Observation;
    },
    async tickPhaseMs() {
      if (phaseFile === null) throw new Error('slowdisk watch was started without { phase: true }');
      if (!(await waitUntil(() => existsSync(phaseFile) && readFileSync(phaseFile, 'utf8').endsWith('\n'), 10_000))) {
        throw new Error('the observer did not report the tick phase');
      }
      const [deadlineNs, intervalMs] = readFileSync(phaseFile, 'utf8').trim().split(' ');
      const interval = BigInt(Math.round(Number(intervalMs) * 1e6));
      return Number(BigInt(deadlineNs) % interval) / 1e6;
    },
  };
}

export function killPid(pid: number, signal: NodeJS.Signals = 'SIGTERM'): void {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

/** The CPU time of the CLI and its prober at one moment. */
interface ProcessSample {
  atMs: number;
  cli: number;
  prober: number;
}

/** Reads the CPU time of the CLI and its prober at one moment. */
export function sampleProcesses(watch: Watch): ProcessSample {
  return { atMs: performance.now(), cli: cpuMs(watch.pid), prober: cpuMs(watch.proberPid) };
}

/** Busy loops on every core, started and killed by PID: the "loaded" condition. */
export function startLoad(count: number): { stop(): Promise<void> } {
  const hogs = Array.from({ length: count }, () => spawnTracked('yes', [], { stdio: ['ignore', 'ignore', 'ignore'] }));
  return {
    async stop() {
      for (const hog of hogs) if (hog.pid !== undefined) killPid(hog.pid, 'SIGKILL');
      await Promise.all(hogs.map((hog) => hog.exited));
    },
  };
}

/** Lines of a child's stdout, as numbers split on whitespace. */
export function numbersOf(text: string): number[][] {
  return text
    .trim()
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/).map(Number));
}

/** The floors' CPU, each as a share of one core, in %: the plain C loops, and those with slowdisk's checks. */
export interface Floors {
  plainPct: number;
  checkedPct: number;
}

/**
 * The floors: the plain C loop on each disk at 100 ms for `seconds`, alone (the syscalls of
 * an inspection) and with slowdisk's checks (PLAIN_LOOP_CHECKED=1,
 * dev/bench/plain-loop.c), side by side with whatever runs meanwhile. Resolves to each
 * one's CPU as a share of one core, in %. Each runs at a phase of its own on
 * CLOCK_MONOTONIC, `phasesMs` [plain, checked] (ms past a multiple of 100 ms), away from
 * slowdisk's ticks: programs flushing the same disk at the same instant share the device's
 * cache flushes, and each pays less than it would alone (three loops on one disk in step:
 * 0.8 to 0.9 ms of CPU a second each; a third of the interval apart: 1.4 to 1.6 ms).
 */
export async function cFloors(dirs: readonly string[], seconds: number, phasesMs: readonly [number, number]): Promise<Floors> {
  const inspections = seconds * 10;
  const loops = (env: NodeJS.ProcessEnv, phaseMs: number): Promise<RunOutput[]> =>
    Promise.all(dirs.map((dir) => run(plainLoop(), [dir, String(inspections), '100', '4096', '64', 'written', phaseMs.toFixed(3)], { env: { ...process.env, ...env } })));
  const [plain, checked] = await Promise.all([loops({}, phasesMs[0]), loops({ PLAIN_LOOP_CHECKED: '1' }, phasesMs[1])]);
  const share = (outputs: RunOutput[]): number =>
    (outputs.reduce((sum, { stdout }) => sum + Number(/# cpu_ns (\d+)/.exec(stdout)?.[1]) / 1e6, 0) / (inspections * 100)) * 100;
  return { plainPct: share(plain), checkedPct: share(checked) };
}

/** Phases for the two floors a third of the interval either side of slowdisk's ticks. */
export const floorPhasesMs = (tickPhaseMs: number): [number, number] => [(tickPhaseMs + 100 / 3) % 100, (tickPhaseMs + 200 / 3) % 100];

/** A window's CPU, as shares of one core, in %: CLI and prober together, and each. */
export interface WindowCpu {
  cpuPct: number;
  cliPct: number;
  proberPct: number;
}

export interface WindowOptions {
  /** Runs the floors beside slowdisk in the same window, on these directories... */
  floorDirs?: readonly string[] | null;
  /** ...at these phases. */
  phasesMs?: readonly [number, number] | null;
  onSecond?: (left: number) => void;
}

/**
 * One window of `seconds` over a running `watch`: the CLI's and the prober's CPU as shares of
 * one core. With `floorDirs`, the floors run beside it in the same window, at `phasesMs`.
 */
export async function watchWindow(watch: Watch, seconds: number, { floorDirs = null, phasesMs = null, onSecond = () => {} }: WindowOptions = {}): Promise<WindowCpu & Partial<Floors>> {
  const s0 = sampleProcesses(watch);
  const floors = floorDirs ? cFloors(floorDirs, seconds, phasesMs ?? floorPhasesMs(0)) : null;
  for (let left = seconds; left > 0; left -= 1) {
    onSecond(left);
    await sleep(1000);
  }
  const s1 = sampleProcesses(watch);
  const share = (key: 'cli' | 'prober'): number => ((s1[key] - s0[key]) / (s1.atMs - s0.atMs)) * 100;
  return { cpuPct: share('cli') + share('prober'), cliPct: share('cli'), proberPct: share('prober'), ...((await floors) ?? {}) };
}

/**
 * One repeat's `watchRun` and the floors alone on `dirs` in a window of their own (slowdisk
 * not running, so their phases matter only to each other), in the order that takes turns:
 * slowdisk first in even repeats, the floors first in odd ones, so that a machine growing
 * busier or quieter over the run weighs on both alike. Resolves to watchRun's figures with the
 * floors' `plainPct` and `checkedPct`.
 */
export async function inTurn<Figures extends object>(
  repeat: number,
  watchRun: () => Promise<Figures>,
  dirs: readonly string[],
  onFloors: () => void = () => {},
): Promise<Figures & Floors> {
  const floorsRun = (): Promise<Floors> => {
    onFloors();
    return cFloors(dirs, SETTINGS.windowS, floorPhasesMs(0));
  };
  let watched: Figures;
  let floors: Floors;
  if (repeat % 2 === 0) {
    watched = await watchRun();
    floors = await floorsRun();
  } else {
    floors = await floorsRun();
    watched = await watchRun();
  }
  return { ...watched, plainPct: floors.plainPct, checkedPct: floors.checkedPct };
}

/** What a child run to its end printed, and its PID. */
export interface RunOutput {
  stdout: string;
  stderr: string;
  pid: number | undefined;
}

/** Runs a command to its end, its output read; fails unless it exits 0. */
export async function run(command: string, args: readonly string[], options: Omit<SpawnOptions, 'stdio'> = {}): Promise<RunOutput> {
  const child = spawnTracked(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // 'close', not 'exit': the last of its output can still be on its way when it exits.
  const { code, signal } = await new Promise<Exit>((resolve) => child.once('close', (c, s) => resolve({ code: c, signal: s })));
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${signal ?? code}): ${stderr.trim()}`);
  return { stdout, stderr, pid: child.pid };
}

// ---------------------------------------------------------------------------
// running parts

/** What a part measured: rows for the table, figures for the results file. */
export interface PartResult {
  rows: Row[];
  figures: unknown;
}

/** One benchmark part. */
export interface Part {
  name: string;
  run(): Promise<PartResult>;
}

/**
 * Runs benchmark parts in order. Prints one table on stdout, merges the figures into
 * bench-results/probe.json (and the table into bench-results/probe.md), removes everything
 * the parts made, and exits 0 when every part ran (missed targets are results, not failures).
 */
export async function runParts(parts: readonly Part[]): Promise<void> {
  const started = machine();
  const rows: Row[] = [];
  let failed = false;
  try {
    requireRoot('the benchmark');
    requireBuilt();
    for (const part of parts) {
      const partMachine = machine();
      try {
        const result = await part.run();
        rows.push(...result.rows);
        saveResults(part.name, { machine: partMachine, settings: SETTINGS, figures: result.figures, rows: result.rows });
      } catch (error) {
        failed = true;
        note(`${part.name} failed: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
        rows.push(row(part.name, 'did not complete', error instanceof Error ? error.message.split('\n')[0] : String(error)));
      } finally {
        runCleanups();
      }
    }
  } catch (error) {
    failed = true;
    note(error instanceof Error ? error.message : String(error));
  } finally {
    runCleanups();
  }
  if (rows.length > 0) {
    const m = started;
    const header = `slowdisk bench: ${m.nproc} x ${m.cpuModel}, Linux ${m.kernel}, Node ${m.node}, load average at start ${m.loadAvgAtStart.join(' ')}; medians of ${SETTINGS.repeats} run(s)`;
    process.stdout.write(`${header}\n\n${formatTable(rows)}\n`);
    writeMarkdown();
  }
  process.exitCode = failed ? 1 : 0;
}

/**
 * bench-results/probe.md: the table of every part's latest run (from probe.json), for
 * docs/benchmarks.md; each part's date, load average and settings are in the JSON.
 */
function writeMarkdown(): void {
  let all: ResultsFile;
  try {
    all = JSON.parse(readFileSync(RESULTS_FILE, 'utf8')) as ResultsFile;
  } catch {
    return;
  }
  const parts = Object.entries(all.parts ?? {});
  const rows = parts.flatMap(([, part]) => part.rows ?? []);
  const lines = parts.map(([name, part]) => {
    const m = part.machine;
    return `- ${name}: ${part.finishedAt}, ${m.nproc} x ${m.cpuModel}, Linux ${m.kernel}, Node ${m.node}, load average at start ${m.loadAvgAtStart.join(' ')}, medians of ${part.settings.repeats} run(s)`;
  });
  writeFileSync(join(RESULTS_DIR, `${RESULTS_NAME}.md`), `${lines.join('\n')}\n\n${markdownTable(rows)}\n`);
}

/** True when the module at `url` is the script node was started with. */
export function isMain(url: string): boolean {
  return process.argv[1] !== undefined && fileURLToPath(url) === process.argv[1];
}
