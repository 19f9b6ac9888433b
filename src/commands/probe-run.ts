// The run loop shared by watch and check: probe, score, report, and exit with the verdict.
import type { StatisticalParams } from '../detectors/statistical-params.js';
import type { VerdictParams } from '../verdict/verdict-pipeline.js';
import type { TailParams } from '../detectors/tail-params.js';
import type { PredictorParams } from '../early-warning/predictor-params.js';
import { ActionHooks } from '../hooks/action-hooks.js';
import type { ScoreParams } from '../score/score-params.js';
import type { ProbeParams } from '../probe/probe-params.js';
import type { HookParams } from '../hooks/hook-params.js';
import type { ProbeTarget } from '../probe/prober-protocol.js';
import { OutputWriter, tellNotWritten } from '../output/output-writer.js';
import { PROBER_WITH_OUTPUTS } from '../prober/prober-program.js';
import { MetricsExport } from '../prometheus/metrics-export.js';
import { stoppingRunFlushed, whenReaderGone } from '../terminal/stdout-flushed.js';
import { SessionRecorder } from '../record/session-recorder.js';
import { MONOTONIC_CLOCK } from '../common/monotonic-clock.js';
import { Teardown } from '../common/teardown.js';
import { ProbeSession } from '../live/probe-session.js';
import { StartupError } from '../live/session-layout.js';
import type { DriveRequest } from '../drives/drive-params.js';
import type { DriveJudgement } from '../drives/drive-monitor.js';
import { DriveRun, DriveStartError } from './drive-run.js';
import { EXIT_CRITICAL, EXIT_OK, EXIT_SIGHUP, EXIT_SIGINT, EXIT_SIGTERM, EXIT_UNKNOWN, EXIT_WARNING } from '../verdict/exit-codes.js';
import { fail } from '../formats/fail.js';
import type { OutputOptions } from '../formats/report-options.js';
import { RunOutput } from './run-output.js';
import { compareFilesystemsWithLastRun, type FilesystemComparison } from './filesystems-since.js';
import { exitCodeOf } from '../verdict/exit-codes.js';
import { EXIT_UNTIL_TIMED_OUT, type UntilEvent } from './watch-params.js';
import { misplacedPaths, type MountRequirement } from '../layout/mount-requirement.js';
import { reasonLine } from '../formats/reason-line.js';
import { visible } from '../common/visible-text.js';
import { realpathSync } from 'node:fs';
import { DiskSummaries } from '../formats/disk-summary.js';
import { StatusServer } from '../status/status-server.js';
import { STATUS_FORMAT, type StatusSnapshot } from '../status/status-snapshot.js';
import type { Severity } from '../score/store-score.js';
import { currentSeverity } from '../verdict/current-verdict.js';

export interface RunOptions {
  mode: 'watch' | 'check';
  targets: ProbeTarget[];
  score: ScoreParams;
  probe: ProbeParams;
  /** check: how long to probe; watch: when to stop, if ever. */
  durationMs?: number;
  /** watch: go on past the eviction threshold. */
  keepGoing?: boolean;
  /** watch: stop at the first of these events. */
  until?: readonly UntilEvent[];
  /** Write every inspection to this trace file (never over an existing file). */
  record?: string;
  /** --json, --format, --textfile, --listen. */
  output?: OutputOptions;
  /** Commands to run on eviction and recovery. */
  hooks?: HookParams;
  statistical: StatisticalParams;
  tail: TailParams;
  /** --critical-on (a confirmed disk CRITICAL) and --busy (a busy disk at the eviction threshold WARNING). */
  verdict: VerdictParams;
  /** --sla, --warn-probability, --predictor: a disk in state `warning` makes the run at least WARNING. */
  predictor: PredictorParams;
  /** --all-devices, --devices: the drives judged against each other beside the probed paths. */
  drives?: DriveRequest;
  /** --store: the store's name; watch answers `slowdisk status` for it. */
  store?: string;
  /** --mountpoint: where the paths must be. */
  mountpoints?: MountRequirement[];
  /** --state-dir: where each path's filesystem is remembered from one run to the next. */
  stateDir?: string;
}

/** The inspections of a disk the service's summary covers: 5 minutes at 100 ms. */
const STATUS_WINDOW_INSPECTIONS = 3000;

/** A device's own path, through /dev/disk/by-* links: /dev is devtmpfs, no disk under test. */
function realDevicePath(device: string): string {
  try {
    return realpathSync(device);
  } catch {
    return device;
  }
}

/** The snapshot's `problems`, when there are some. */
function problemsOf(...problems: (string | null)[]): { problems?: string[] } {
  const present = problems.filter((problem) => problem !== null);
  return present.length > 0 ? { problems: present } : {};
}

/** The run's exit code with the drives': a signal or UNKNOWN stays; else the worse of the two. */
function withDrives(code: number, drives: number): number {
  if (code !== EXIT_OK && code !== EXIT_WARNING) return code;
  return Math.max(code, drives);
}

export async function runProbe(options: RunOptions): Promise<void> {
  const teardown = new Teardown();
  const session = await openSession(options);
  teardown.add(() => session.stop());
  // A path not where it must be (its disk not mounted, say) is CRITICAL before anything is probed there.
  const misplaced = misplacedPaths(session.statuses(), options.mountpoints ?? [], realDevicePath);
  if (misplaced.length > 0) {
    await teardown.release();
    process.stdout.write(`${visible(reasonLine(options.output ?? { json: false, format: 'human' }, EXIT_CRITICAL, misplaced.join('; ')))}\n`);
    await stoppingRunFlushed();
    process.exit(EXIT_CRITICAL);
  }
  const state: RunState = { startMs: MONOTONIC_CLOCK.now(), storeScore: 1, lastSeverity: 'ok' };
  const outputs = await startOutputs(options, session, state, teardown);
  new ProbeRun(options, session, state, outputs, teardown).start();
}

async function openSession(options: RunOptions): Promise<ProbeSession> {
  const { targets, score, probe, statistical, tail, predictor, verdict } = options;
  try {
    return await ProbeSession.open({ targets, score, probe, statistical, tail, predictor, verdict, program: PROBER_WITH_OUTPUTS });
  } catch (error) {
    if (error instanceof StartupError) fail(error.message, EXIT_UNKNOWN);
    throw error;
  }
}

/** What the status service reports of the run beside the session's own state. */
interface RunState {
  startMs: number;
  storeScore: number;
  lastSeverity: Severity;
}

/** What a run writes and serves beside its live output, each stopped by the run's teardown. */
interface RunOutputs {
  writer: OutputWriter | null;
  drives: DriveRun | null;
  /** The drives' last judgement, once their teardown step has run. */
  drivesJudgement: () => DriveJudgement | undefined;
  metricsExport: MetricsExport | null;
  recorder: SessionRecorder | null;
  hooks: ActionHooks | undefined;
  output: RunOutput;
}

/** Starts the outputs in turn; one that cannot start releases what was taken, and ends the run UNKNOWN. */
async function startOutputs(options: RunOptions, session: ProbeSession, state: RunState, teardown: Teardown): Promise<RunOutputs> {
  const { score, probe } = options;
  const buffered = !probe.direct;
  const failReleased = async (error: unknown, known: boolean): Promise<never> => {
    await teardown.release();
    if (known) fail((error as Error).message, EXIT_UNKNOWN);
    throw error;
  };
  // The CLI makes no syscall on an output's path: the prober process writes them all, the
  // textfile, the trace and the drives' files, so that they take no third process. Their
  // stops are bounded by the output deadline, and wait side by side before the session stops.
  const writer = options.record !== undefined || options.drives || options.stateDir !== undefined || options.output?.textfile !== undefined ? OutputWriter.hostedBy(session.hosted) : null;
  let drives: DriveRun | null = null;
  let judgement: DriveJudgement | undefined;
  if (options.drives) {
    drives = await DriveRun.start(options.drives, {
      json: options.output?.json === true,
      output: writer!,
      textfile: options.output?.textfile,
      serveMetrics: options.output?.listen !== undefined,
    }).catch((error: unknown) => failReleased(error, error instanceof DriveStartError));
    const started = drives;
    teardown.add(async () => void (judgement = await started.finish()), { sideBySide: true });
  }
  const metricsExport = await MetricsExport.start({ ...options.output, output: writer, ...(options.store === undefined ? {} : { store: options.store }) }, session, score, buffered, drives?.registry ?? null).catch((error: unknown) => failReleased(error, true));
  if (metricsExport) teardown.add(() => metricsExport.stop(), { sideBySide: true });
  let recorder: SessionRecorder | null = null;
  if (options.record !== undefined) {
    const { statistical, tail, verdict, predictor } = options;
    recorder = await SessionRecorder.start(writer!, options.record, session, { score, probe, statistical, tail, verdict, predictor }).catch((error: unknown) => failReleased(error, true));
    const started = recorder;
    teardown.add(() => started.stop(), { sideBySide: true });
  }
  if (drives) {
    // The live view owns the terminal: drives that turn slow are shown as they do in JSON only.
    const live = drives;
    live.every(() => (options.output?.json ? live.reportChanges() : undefined));
  }
  const hooks = options.hooks && ActionHooks.attach(session, options.hooks, score);
  if (options.mode === 'watch' && options.store !== undefined) {
    const server = await startStatusServer(options, options.store, session, state, metricsExport).catch((error: unknown) => failReleased(error, true));
    // From then on status says the service is not running, rather than what it stops with.
    teardown.add(() => server.close());
  }
  const output = await RunOutput.open(options.mode, options.output, session, score, buffered, options.predictor.warnProbability);
  teardown.add(() => output.reporter?.stop());
  return { writer, drives, drivesJudgement: () => judgement, metricsExport, recorder, hooks, output };
}

/** watch --store: answers `slowdisk status` with the run's state. */
function startStatusServer(options: RunOptions, store: string, session: ProbeSession, state: RunState, metricsExport: MetricsExport | null): Promise<StatusServer> {
  const summaries = new DiskSummaries(session, STATUS_WINDOW_INSPECTIONS);
  const snapshot = (): StatusSnapshot => {
    const disks = session.statuses();
    return {
      slowdisk_status: STATUS_FORMAT,
      store,
      pid: process.pid,
      severity: currentSeverity(state.lastSeverity, disks),
      storeScore: state.storeScore,
      maxReported: session.verdict.maxReported,
      uptimeMs: MONOTONIC_CLOCK.now() - state.startMs,
      disks,
      summaries: [...summaries.of(disks)],
      params: options.score,
      buffered: !options.probe.direct,
      warnProbability: options.predictor.warnProbability,
      ...problemsOf(metricsExport?.listenProblem() ?? null),
    };
  };
  return StatusServer.start(store, snapshot);
}

/** A started run: its events, its signals and timers, and its one way to end. */
class ProbeRun {
  #finishing = false;
  #filesystems: FilesystemComparison | null = null;

  constructor(
    private readonly options: RunOptions,
    private readonly session: ProbeSession,
    private readonly state: RunState,
    private readonly outputs: RunOutputs,
    private readonly teardown: Teardown,
  ) {}

  start(): void {
    const { options, session } = this;
    const reporter = this.outputs.output.reporter;
    // watch --until: the run ends at the first of its events, once it is written, with the verdict so far.
    const until = new Set<string>(options.until ?? []);
    const endIfAwaited = (event: string) => {
      if (until.has(event)) void this.finish(exitCodeOf(session.verdict.severity));
    };
    session.on('round', (report) => {
      this.state.storeScore = report.storeScore;
      this.state.lastSeverity = report.severity;
      reporter?.round(report);
      if (report.severity === 'evict' && (options.mode === 'check' || !options.keepGoing)) void this.finish(EXIT_CRITICAL);
      for (const crossing of report.crossings) endIfAwaited(crossing.event);
    });
    session.on('event', (event) => {
      reporter?.event(event);
      endIfAwaited(event.kind);
    });
    // The trace is closed by the prober's process, which may be gone: every output's stop is bounded.
    session.on('fatal', (message) => void this.teardown.release().then(() => this.outputs.hooks?.settle()).then(() => fail(message, EXIT_UNKNOWN)));
    process.on('SIGINT', () => void this.finish(EXIT_SIGINT, 'SIGINT'));
    process.on('SIGTERM', () => void this.finish(EXIT_SIGTERM, 'SIGTERM'));
    // An SSH session or a terminal that closes: a stop like any other, not a crash.
    process.on('SIGHUP', () => void this.finish(EXIT_SIGHUP, 'SIGHUP'));
    // The probe files are removed as on a signal; a failed write leaves the run going.
    whenReaderGone(() => void this.finish(EXIT_UNKNOWN), true);
    // Beside the probing, once its events are heard: a state directory on a hung disk costs the comparison, not the run's time.
    if (options.stateDir !== undefined) this.#filesystems = compareFilesystemsWithLastRun(session, this.outputs.writer!, options.stateDir, options.store);
    if (options.mode === 'check') {
      // The last records first: the prober sends them about once a round.
      setTimeout(() => void session.catchUp().then(() => this.finish(session.checkEnd())), options.durationMs);
    } else if (options.durationMs !== undefined) {
      setTimeout(() => void this.finish(until.size > 0 ? EXIT_UNTIL_TIMED_OUT : exitCodeOf(session.verdict.severity)), options.durationMs);
    }
    session.start();
  }

  async finish(code: number, interruptedBy?: string): Promise<void> {
    if (this.#finishing) return;
    this.#finishing = true;
    const { session, outputs } = this;
    const disks = session.statuses();
    await this.teardown.release();
    const { drives } = outputs;
    const judgement = outputs.drivesJudgement();
    const exitCode = drives && judgement ? withDrives(code, drives.exitCode(judgement)) : code;
    this.#filesystems?.untold();
    if (this.options.mode === 'check') {
      const elapsedMs = MONOTONIC_CLOCK.now() - this.state.startMs;
      outputs.output.writeCheckResult({ verdict: session.verdict, storeScore: this.state.storeScore, elapsedMs, disks, interruptedBy, exitCode });
    }
    // After check's line: a Nagios-style reader takes the first line as the status.
    if (judgement) drives?.report(judgement);
    tellNotWritten([outputs.recorder?.notWritten(), outputs.metricsExport?.notWritten(), ...(drives?.notWritten() ?? [])]);
    outputs.writer?.end();
    await stoppingRunFlushed();
    await outputs.hooks?.settle();
    process.exit(exitCode);
  }
}
