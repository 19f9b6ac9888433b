// Shared by the benchmark parts: statistics, progress, real test disks and their
// clean-up, /proc readers, the slowdisk CLI as a measured process, and the
// results file. Plain JS over the compiled project (dist/), as a user runs it.
import { execFileSync, spawn } from 'node:child_process';
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
import { fileURLToPath } from 'node:url';
import ora from 'ora';
import { childPids } from '../process-tree.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const HERE = fileURLToPath(new URL('./', import.meta.url));
export const BIN = join(ROOT, 'bin/slowdisk.js');
export const KIT = join(ROOT, 'scripts/fault');
export const OBSERVER = join(HERE, 'observer.mjs');
export const HARNESS = join(HERE, 'harness.mjs');
export const RESULTS_DIR = join(ROOT, 'bench-results');
// A smoke run (BENCH_QUICK=1) keeps its figures apart, never over the real ones.
const RESULTS_NAME = process.env.BENCH_QUICK === '1' ? 'probe-quick' : 'probe';
export const RESULTS_FILE = join(RESULTS_DIR, `${RESULTS_NAME}.json`);
export const ADDON = join(ROOT, 'build/Release/slowdisk_probe.node');

function envInt(name, fallback) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive whole number, got '${text}'`);
  return value;
}

function envChoice(name, choices, fallback) {
  const text = process.env[name];
  if (text === undefined || text === '') return fallback;
  if (!choices.includes(text)) throw new Error(`${name} must be one of ${choices.join(', ')}, got '${text}'`);
  return text;
}

/** Where each BENCH_BACKING keeps the scale run's loop images. */
export const BACKING_DIRS = { tmp: tmpdir(), shm: '/dev/shm' };

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
    backing: envChoice('BENCH_BACKING', Object.keys(BACKING_DIRS), 'tmp'),
  };
})();

// ---------------------------------------------------------------------------
// statistics

/** The q-quantile with linear interpolation between order statistics (R's type 7). */
export function quantile(values, q) {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

export const median = (values) => quantile(values, 0.5);
export const p99 = (values) => quantile(values, 0.99);

/** Median over the repeats of one figure, each run's figure picked by `pick`. */
export function medianOver(runs, pick) {
  return median(runs.map(pick).filter((value) => Number.isFinite(value)));
}

// ---------------------------------------------------------------------------
// output

// A terminal without a size (a pty nobody set up) would make ora redraw without end.
const interactive = process.stdout.isTTY === true && process.stdout.columns > 0;

/**
 * A spinner on a terminal; nothing at all otherwise, so that `npm run bench > file`
 * holds the table only.
 */
export function progress(text) {
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
export function note(line) {
  process.stderr.write(`bench: ${line}\n`);
}

/** Formats milliseconds for the table: 3 significant digits. */
export function ms(value) {
  if (!Number.isFinite(value)) return '-';
  if (value >= 100) return `${value.toFixed(0)} ms`;
  if (value >= 10) return `${value.toFixed(1)} ms`;
  if (value >= 1) return `${value.toFixed(2)} ms`;
  return `${(value * 1000).toFixed(value >= 0.1 ? 0 : 1)} µs`;
}

export function ratio(value) {
  return Number.isFinite(value) ? value.toFixed(2) : '-';
}

export function pct(value, digits = 2) {
  return Number.isFinite(value) ? `${value.toFixed(digits)} %` : '-';
}

export function mb(kib) {
  return Number.isFinite(kib) ? `${(kib / 1024).toFixed(1)} MB` : '-';
}

/** A row of the results table: what, measured, target, verdict. */
export function row(part, what, value, target = '', ok = null) {
  return { part, what, value, target, verdict: ok === null ? '' : ok ? 'met' : 'MISSED' };
}

export function formatTable(rows) {
  const header = { part: 'part', what: 'measure', value: 'measured', target: 'target', verdict: '' };
  const all = [header, ...rows];
  const keys = ['part', 'what', 'value', 'target', 'verdict'];
  const width = Object.fromEntries(keys.map((key) => [key, Math.max(...all.map((r) => String(r[key]).length))]));
  const line = (r) => keys.map((key) => String(r[key]).padEnd(width[key])).join('  ').trimEnd();
  const rule = keys.map((key) => '-'.repeat(width[key])).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export function markdownTable(rows) {
  const lines = ['| part | measure | measured | target | |', '|---|---|---|---|---|'];
  for (const r of rows) lines.push(`| ${r.part} | ${r.what} | ${r.value} | ${r.target} | ${r.verdict} |`);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------
// the machine and the results file

export function machine() {
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

/** Merges one part's figures into bench-results/probe.json, keeping the other parts'. */
export function saveResults(part, figures) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  let all = {};
  try {
    all = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
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

export function onPath(command) {
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
export function requireBuilt() {
  const missing = [];
  if (!existsSync(join(ROOT, 'dist/live/probe-session.js'))) missing.push('dist/ (run `npx tsc -p tsconfig.json`)');
  if (!existsSync(ADDON)) missing.push('the native addon (run `npm run build`)');
  if (missing.length > 0) throw new Error(`not built: ${missing.join(', ')}`);
  const addonTime = statSync(ADDON).mtimeMs;
  const newer = readdirSync(join(ROOT, 'native')).filter((file) => statSync(join(ROOT, 'native', file)).mtimeMs > addonTime);
  if (newer.length > 0) note(`the native addon is older than native/${newer[0]}: the figures are the old addon's (npm run build)`);
}

export function requireRoot(what) {
  if (process.geteuid?.() !== 0) throw new Error(`${what} needs root: it makes loop devices and throttles them`);
}

/** Compiles scripts/bench/plain-loop.c once per run into a temporary directory. */
let plainLoopBinary = null;
export function plainLoop() {
  if (plainLoopBinary) return plainLoopBinary;
  if (!onPath('cc')) throw new Error('cc not found: the plain C loop needs a C compiler (apt-get install -y gcc)');
  const dir = mkdtempSync(join(tmpdir(), 'slowdisk-bench-cc-'));
  onCleanup(() => {
    rmSync(dir, { recursive: true, force: true });
    plainLoopBinary = null;
  });
  plainLoopBinary = join(dir, 'plain-loop');
  execFileSync('cc', ['-O2', '-Wall', '-o', plainLoopBinary, join(HERE, 'plain-loop.c')], { stdio: ['ignore', 'ignore', 'inherit'] });
  return plainLoopBinary;
}

// ---------------------------------------------------------------------------
// clean-up: disks, frozen filesystems and child processes, also on Ctrl-C

const cleanups = [];
const children = new Set();
let cleaningUp = false;

/** Registers an undo step; steps run last-in first-out. Returns a function that runs it now. */
export function onCleanup(step) {
  const entry = { step, done: false };
  cleanups.push(entry);
  return () => {
    if (entry.done) return;
    entry.done = true;
    step();
  };
}

export function runCleanups() {
  while (cleanups.length > 0) {
    const entry = cleanups.pop();
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
export function spawnTracked(command, args, options = {}) {
  const child = spawn(command, args, options);
  children.add(child);
  child.exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  child.exited.then(() => children.delete(child));
  return child;
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

function sleepSync(msToSleep) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, msToSleep);
}

function interrupted(signal) {
  if (cleaningUp) return;
  cleaningUp = true;
  note(`${signal}: stopping what the bench started and removing its disks`);
  killChildrenNow();
  // The CLI stops its prober on SIGTERM; give both a moment before the disks go.
  const until = Date.now() + 3000;
  while (Date.now() < until && [...children].some((c) => c.exitCode === null && c.signalCode === null && alive(c.pid))) sleepSync(100);
  runCleanups();
  process.exit({ SIGINT: 130, SIGHUP: 129 }[signal] ?? 143);
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

export function alive(pid) {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

export async function waitUntil(predicate, timeoutMs, stepMs = 50) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (predicate()) return true;
    await sleep(stepMs);
  }
  return predicate();
}

export const sleep = (msToSleep) => new Promise((resolve) => setTimeout(resolve, msToSleep));

// ---------------------------------------------------------------------------
// disks, made with the fault kit

/** A fresh directory to mount the bench's disks under; removed at the end if empty. */
export function benchDir(label) {
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

function kit(script, args) {
  return execFileSync(join(KIT, script), args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/**
 * A loop-device ext4 disk mounted at `dir` (scripts/fault/make-disk), its image in
 * `backingDir` (make-disk's default: the temporary directory), removed at the end of the run
 * whatever happens: thawed first, unthrottled, unmounted, detached.
 */
export function makeDisk(dir, sizeMib, { backingDir } = {}) {
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
export function loadDisk(disk, writers) {
  kit('load', [disk.dir, '--writers', String(writers)]);
}

export function unloadDisk(disk) {
  kit('unload', [disk.dir]);
}

/** Its own device serves slowly: the media it was made on (makeDisk's backingDir, another kit disk) capped. */
export function slowDisk(disk, writeIops) {
  kit('slow', [disk.dir, '--write-iops', String(writeIops)]);
}

export function unslowDisk(disk) {
  kit('unslow', [disk.dir]);
}

export function throttleDisk(disk, writeIops) {
  kit('throttle', [disk.dir, '--write-iops', String(writeIops)]);
}

export function unthrottleDisk(disk) {
  kit('unthrottle', [disk.dir]);
}

export function freezeDisk(disk) {
  kit('hang', [disk.dir]);
}

export function thawDisk(disk) {
  kit('thaw', [disk.dir]);
}

/** Completed write and flush requests of a block device, from /sys/block/NAME/stat. */
export function deviceWrites(loop) {
  const fields = readFileSync(`/sys/block/${loop.replace('/dev/', '')}/stat`, 'utf8').trim().split(/\s+/).map(Number);
  // Documentation/block/stat.rst: [0] read I/Os ... [4] write I/Os ... [11..14] discard, [15] flush I/Os
  return { writes: fields[4], flushes: fields[15] ?? NaN };
}

// ---------------------------------------------------------------------------
// /proc

/** CPU time of a process's live threads, in ms, to the ns. */
export function cpuMs(pid) {
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
 * measured one's pages (scripts/bench/memory.py reads PSS with no Node harness alive).
 */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s*(\\d+)`, 'm').exec(status)?.[1]);
  return { hwmKiB: kib('VmHWM'), rssKiB: kib('VmRSS') };
}

// ---------------------------------------------------------------------------
// the real CLI, measured from outside

/**
 * Starts `slowdisk watch --path NAME=DIR ... --keep-going` off a terminal (so it prints
 * round lines), optionally with scripts/bench/observer.mjs preloaded to record tick
 * lateness and inspections (`observe`), or only where its ticks fall (`phase`). Resolves
 * once its prober is running and (waitForRound) it printed its first round line.
 */
export async function startWatch(disks, { observe = false, samples = false, phase = false, extraArgs = [], waitForRound = true } = {}) {
  const observeDir = observe || phase ? mkdtempSync(join(tmpdir(), 'slowdisk-bench-observe-')) : null;
  if (observeDir) onCleanup(() => rmSync(observeDir, { recursive: true, force: true }));
  const observeFile = observe ? join(observeDir, 'observe.json') : null;
  const phaseFile = phase ? join(observeDir, 'phase') : null;
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
  const cli = spawnTracked(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  cli.stdout.on('data', (chunk) => (stdout += chunk));
  cli.stderr.on('data', (chunk) => (stderr += chunk));
  let proberPid = null;
  const started = await waitUntil(() => {
    if (cli.exitCode !== null) return true;
    proberPid = childPids(cli.pid)[0] ?? null;
    // The first round line (after 30 ticks) means the session is ticking.
    return proberPid !== null && (!waitForRound || /tick \d+/.test(stdout));
  }, 15_000);
  if (!started || cli.exitCode !== null || proberPid === null) {
    killPid(cli.pid);
    throw new Error(`slowdisk watch did not start: ${stderr.trim() || stdout.trim() || 'no output'}`);
  }
  return {
    pid: cli.pid,
    proberPid,
    observeFile,
    stdout: () => stdout,
    stderr: () => stderr,
    /** Asks the observer to take a snapshot of its counters (window start / end). */
    mark() {
      process.kill(cli.pid, 'SIGUSR2');
    },
    async stop() {
      if (cli.exitCode === null && cli.signalCode === null) process.kill(cli.pid, 'SIGTERM');
      const { code, signal } = await cli.exited;
      return { code, signal };
    },
    readObservation() {
      return JSON.parse(readFileSync(observeFile, 'utf8'));
    },
    /** Where the ticks fall: their deadlines mod the interval on CLOCK_MONOTONIC, in ms. */
    async tickPhaseMs() {
      if (!(await waitUntil(() => existsSync(phaseFile) && readFileSync(phaseFile, 'utf8').endsWith('\n'), 10_000))) {
        throw new Error('the observer did not report the tick phase');
      }
      const [deadlineNs, intervalMs] = readFileSync(phaseFile, 'utf8').trim().split(' ');
      const interval = BigInt(Math.round(Number(intervalMs) * 1e6));
      return Number(BigInt(deadlineNs) % interval) / 1e6;
    },
  };
}

export function killPid(pid, signal = 'SIGTERM') {
  try {
    process.kill(pid, signal);
  } catch {
    // gone already
  }
}

/** Reads the CPU time of the CLI and its prober at one moment. */
export function sampleProcesses(watch) {
  return { atMs: performance.now(), cli: cpuMs(watch.pid), prober: cpuMs(watch.proberPid) };
}

/** Busy loops on every core, started and killed by PID: the "loaded" condition. */
export function startLoad(count) {
  const devNull = { stdio: ['ignore', 'ignore', 'ignore'] };
  const hogs = Array.from({ length: count }, () => spawnTracked('yes', [], devNull));
  return {
    pids: hogs.map((hog) => hog.pid),
    async stop() {
      for (const hog of hogs) killPid(hog.pid, 'SIGKILL');
      await Promise.all(hogs.map((hog) => hog.exited));
    },
  };
}

/** Lines of a child's stdout, as numbers split on whitespace. */
export function numbersOf(text) {
  return text
    .trim()
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/).map(Number));
}

/**
 * The floors: the plain C loop on each disk at 100 ms for `seconds`, alone (the syscalls of
 * an inspection) and with slowdisk's checks (PLAIN_LOOP_CHECKED=1,
 * scripts/bench/plain-loop.c), side by side with whatever runs meanwhile. Resolves to each
 * one's CPU as a share of one core, in %. Each runs at a phase of its own on
 * CLOCK_MONOTONIC, `phasesMs` [plain, checked] (ms past a multiple of 100 ms), away from
 * slowdisk's ticks: programs flushing the same disk at the same instant share the device's
 * cache flushes, and each pays less than it would alone (three loops on one disk in step:
 * 0.8 to 0.9 ms of CPU a second each; a third of the interval apart: 1.4 to 1.6 ms).
 */
export async function cFloors(dirs, seconds, phasesMs) {
  const inspections = seconds * 10;
  const loops = (env, phaseMs) =>
    Promise.all(dirs.map((dir) => run(plainLoop(), [dir, String(inspections), '100', '4096', '64', 'written', phaseMs.toFixed(3)], { env: { ...process.env, ...env } })));
  const [plain, checked] = await Promise.all([loops({}, phasesMs[0]), loops({ PLAIN_LOOP_CHECKED: '1' }, phasesMs[1])]);
  const share = (outputs) => (outputs.reduce((sum, { stdout }) => sum + Number(/# cpu_ns (\d+)/.exec(stdout)?.[1]) / 1e6, 0) / (inspections * 100)) * 100;
  return { plainPct: share(plain), checkedPct: share(checked) };
}

/** Phases for the two floors a third of the interval either side of slowdisk's ticks. */
export const floorPhasesMs = (tickPhaseMs) => [(tickPhaseMs + 100 / 3) % 100, (tickPhaseMs + 200 / 3) % 100];

/**
 * One window of `seconds` over a running `watch`: the CLI's and the prober's CPU as shares of
 * one core. With `floorDirs`, the floors run beside it in the same window, at `phasesMs`.
 */
export async function watchWindow(watch, seconds, { floorDirs = null, phasesMs = null, onSecond = () => {} } = {}) {
  const s0 = sampleProcesses(watch);
  const floors = floorDirs ? cFloors(floorDirs, seconds, phasesMs) : null;
  for (let left = seconds; left > 0; left -= 1) {
    onSecond(left);
    await sleep(1000);
  }
  const s1 = sampleProcesses(watch);
  const share = (key) => ((s1[key] - s0[key]) / (s1.atMs - s0.atMs)) * 100;
  return { cpuPct: share('cli') + share('prober'), cliPct: share('cli'), proberPct: share('prober'), ...((await floors) ?? {}) };
}

/**
 * One repeat's `watchRun` and the floors alone on `dirs` in a window of their own (slowdisk
 * not running, so their phases matter only to each other), in the order that takes turns:
 * slowdisk first in even repeats, the floors first in odd ones, so that a machine growing
 * busier or quieter over the run weighs on both alike. Resolves to watchRun's figures with the
 * floors' `plainPct` and `checkedPct`.
 */
export async function inTurn(repeat, watchRun, dirs, onFloors = () => {}) {
  const floorsRun = () => {
    onFloors();
    return cFloors(dirs, SETTINGS.windowS, floorPhasesMs(0));
  };
  let watched;
  let floors;
  if (repeat % 2 === 0) {
    watched = await watchRun();
    floors = await floorsRun();
  } else {
    floors = await floorsRun();
    watched = await watchRun();
  }
  return { ...watched, plainPct: floors.plainPct, checkedPct: floors.checkedPct };
}

export async function run(command, args, options = {}) {
  const child = spawnTracked(command, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  // 'close', not 'exit': the last of its output can still be on its way when it exits.
  const { code, signal } = await new Promise((resolve) => child.once('close', (c, s) => resolve({ code: c, signal: s })));
  if (code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${signal ?? code}): ${stderr.trim()}`);
  return { stdout, stderr, pid: child.pid };
}

// ---------------------------------------------------------------------------
// running parts

/**
 * Runs benchmark parts in order: each is { name, run() -> { rows, figures } }. Prints
 * one table on stdout, merges the figures into bench-results/probe.json (and the table
 * into bench-results/probe.md), removes everything the parts made, and exits 0 when
 * every part ran (missed targets are results, not failures).
 */
export async function runParts(parts) {
  const started = machine();
  const rows = [];
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
function writeMarkdown() {
  let all;
  try {
    all = JSON.parse(readFileSync(RESULTS_FILE, 'utf8'));
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
export function isMain(url) {
  return process.argv[1] !== undefined && fileURLToPath(url) === process.argv[1];
}
