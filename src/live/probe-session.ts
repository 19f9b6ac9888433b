// Probe orchestration in the CLI process: gives the prober its schedule and the disks to
// inspect, follows the same schedule (src/ticks/) to turn the batches that come back into the
// verdict pipeline's events (src/verdict/), in the order they happened, and places the disks
// anew whenever a directory resolves otherwise (the prober resolves each once a round), so
// that no view of a disk or of the mount table goes stale. A watchdog charges the ticks of a
// prober whose batch is overdue, on the CLI's own clock: a hung prober never hides a hung
// disk. It never makes a syscall on a disk under test: the kernel's counters come from procfs
// and sysfs, and the one stat the block-device walk makes (of a loop device's backing file)
// is bounded in time (src/kernel/block-devices.ts).
import { describeFilesystem, identityOf, type FilesystemChange, type FilesystemIdentity } from '../layout/filesystem-memory.js';
import { EventEmitter } from 'node:events';
import { placeDisks, layoutChanged, type DiskPlacement } from '../layout/disk-layout.js';
import { MountTable } from '../mounts/mount-table.js';
import { DeviceCounters, type DeviceFigures } from '../kernel/device-counters.js';
import type { DetectorState } from '../statistical/statistical-detector.js';
import type { PredictorParams } from '../early-warning/predictor-params.js';
import type { Prediction } from '../early-warning/predictor.js';
import type { StatisticalParams } from '../statistical/statistical-params.js';
import type { TailParams } from '../statistical/tail-params.js';
import type { TailState } from '../statistical/tail-detector.js';
import type { ScoreParams } from '../score/score-params.js';
import type { ProbeParams } from '../prober/probe-params.js';
import type { BatchRecord, FromProber, InspectedRecord, PhaseTimings, Placement, ProberProgram, ProbeTarget, Resolution, SerializedProbeError } from '../prober/protocol.js';
import { registryProblem, REGISTRY_DIR, stillStuck, stuckProberOn, type StuckProber } from '../prober/prober-registry.js';
import { writeStderrLine } from '../common/visible-text.js';
import { RestartingProber, type HostedChannel } from '../prober/restarting-prober.js';
import { reportedScore, type Severity } from '../score/store-score.js';
import { MONOTONIC_CLOCK, wallOf, wallOffsetMs } from '../common/monotonic-clock.js';
import { TickSchedule } from '../ticks/tick-schedule.js';
import type { RunVerdict } from '../verdict/run-verdict.js';
import type { ThresholdCrossing } from '../verdict/threshold-crossings.js';
import { VerdictPipeline, type HungDisk, type RoundVerdict } from '../verdict/verdict-pipeline.js';
import { isUnwritable } from '../verdict/down-verdict.js';
import { BatchWatchdog } from './batch-watchdog.js';
import { describeError, shownError } from './shown-error.js';

/** `hung`: an inspection has been in flight for --hang-after, from the clock, whatever the score says yet. */
/** `contested`: each probe file made in its directory has its name taken by someone else; nothing of the disk is seen, nothing charged. */
export type DiskState = 'starting' | 'up' | 'down' | 'hung' | 'contested' | 'skipped';

export interface DiskStatus extends DiskPlacement {
  state: DiskState;
  score: number;
  /** The last inspection that completed. */
  last?: PhaseTimings;
  /** Why the disk is down. */
  error?: SerializedProbeError;
  /** How long the inspection in flight has been running, once it has missed its tick. */
  waitingMs?: number;
  /** A hung disk: when the inspection in flight started, wall-clock ms since the epoch. */
  hungSinceMs?: number;
  /** A hung disk left to the prober of an earlier run, stuck there: that prober's pid. */
  stuckProber?: number;
  inspections: number;
  errors: number;
  /** The statistical detector's state, for an inspected disk. */
  statistical?: DetectorState;
  /** The tail detector's state, for an inspected disk. */
  tail?: TailState;
  /** The kernel's names of the block devices behind its filesystem, from the filesystem's own down. */
  blockDevices?: string[];
  /** Those of them that stalled in the last round: requests in flight, none completed. */
  stalledDevices?: string[];
  /** The early-warning predictor's latest answer, for an inspected disk, once it has a sample. */
  prediction?: Prediction;
  /** The statistical detector has judged it against a baseline (else its state is no verdict yet: warming up). */
  statisticalJudged?: boolean;
  /** The tail detector has a baseline for it (else its state is no verdict yet: warming up). */
  tailJudged?: boolean;
  /** How long a continuous run repeating its recent rounds would take to evict it: null if never. */
  evictionInMs?: number | null;
  /** Another filesystem was mounted onto its directory during the run, or since the last run that remembers it: WARNING. */
  filesystemChanged?: boolean;
  /** The filesystem it was on before that change, as describeFilesystem says it. */
  filesystemWas?: string;
}

export interface RoundReport {
  tick: number;
  elapsedMs: number;
  storeScore: number;
  reportedScore: number;
  disks: DiskStatus[];
  /** What each block device behind the inspected disks did over the round, from the kernel's counters. */
  devices: DeviceFigures[];
  /** What the round made the run: the score's severity and the detectors' (a hang is the verdict's between rounds). */
  severity: Severity;
  /** The thresholds the reported store score crossed at this round. */
  crossings: readonly ThresholdCrossing[];
}

export type SessionEvent =
  | { kind: 'down'; disk: string; error: SerializedProbeError }
  | { kind: 'back'; disk: string }
  /** An inspection of the disk has been in flight for --hang-after, since `sinceMs` (wall clock). */
  | { kind: 'hung'; disk: string; sinceMs: number; waitingMs: number; stuckProber?: number }
  | { kind: 'layout'; disks: DiskPlacement[] }
  /** The path is on another filesystem than at the last run with this --state-dir. */
  | { kind: 'filesystem-changed'; disk: string; dir: string; was: FilesystemIdentity; now: FilesystemIdentity }
  | { kind: 'stale-removed'; disk: string; paths: string[] }
  /** The probe file's name held someone else's file (the error says what): left alone, and probed under a fresh name. */
  | { kind: 'name-taken'; disk: string; error: SerializedProbeError }
  /** The fresh probe file's name was taken too: the directory is contested, its ticks neither counted nor charged. */
  | { kind: 'contested'; disk: string; error: SerializedProbeError }
  /** The CLI itself was held up this long (stopped, or starved of CPU): the prober's records were read late, judged on their own clock. */
  | { kind: 'held-up'; ms: number }
  /** The prober died (`reason` names its pid and how) and a new one took over. */
  | { kind: 'prober-restarted'; reason: string; pid?: number };

/** One inspection as it came back: what the recorder and the detectors consume. */
export interface InspectionRecord {
  tick: number;
  disk: string;
  timings?: PhaseTimings;
  error?: SerializedProbeError;
  /** It finished under the interval but was recorded after its tick had ended: charged. */
  late: boolean;
  /** No inspection was made: its probe file's name was taken (`error` says by what), neither counted nor charged. */
  lost?: boolean;
  /** Wall-clock time the prober recorded it, ms since the epoch. */
  wallMs: number;
}

export interface SessionEvents {
  round: [RoundReport];
  inspection: [InspectionRecord];
  event: [SessionEvent];
  /** The run cannot go on: a path that cannot be probed at start, or a lost prober. */
  fatal: [string];
}

interface DiskRecord {
  status: DiskStatus;
  /** When the inspection in flight started, on the wall clock. */
  inFlightSinceWallMs: number;
  /** The prober of an earlier run stuck on this disk's filesystem: no inspection is started there while it is. */
  stuckProber: StuckProber | null;
  /** Whether any inspection of this disk has completed or failed yet. */
  attempted: boolean;
  /** Its last tick was lost: its probe file's name was taken, and no fresh file was inspected since. */
  losing: boolean;
  /** Each probe file made in its directory has had its name taken: nothing of it is seen until one is inspected. */
  contested: boolean;
}

export class StartupError extends Error {}

const RESOLVE_TIMEOUT_MS = 5000;
/** How long a check's end waits for the prober's last records, at least. */
const CATCH_UP_MIN_MS = 200;

export class ProbeSession extends EventEmitter<SessionEvents> {
  private readonly pipeline: VerdictPipeline;
  private schedule: TickSchedule | null = null;
  /** The last tick the pipeline has been told of. */
  private tickDone = 0;
  /**
   * The clock up to which the pipeline has been told everything: the last batch's cover, or
   * the watchdog's reading when it charged an overdue batch's ticks. The disks are judged at
   * it, not at the view's clock: an inspection that started just before a batch was cut and
   * ended 5 ms later is in the next batch, and judged at the view's clock a second on it
   * would read as waiting a second for an inspection that was over.
   */
  private knownMs = 0;
  private readonly watchdog: BatchWatchdog;
  /** What the prober was last told to inspect, as sent. */
  private placementSent = '';
  /** A check's end waiting for the next batch. */
  private readonly batchWaiters: (() => void)[] = [];
  private readonly disks = new Map<string, DiskRecord>();
  private readonly resolutions = new Map<string, Resolution>();
  private readonly resolving = new Set<string>();
  /**
   * The names given each directory, the first of them the one resolved: a directory is
   * resolved once a round whatever the number of names given it (2,000 --path to one
   * directory were 2,000 statx, messages and answers a round, which cost the inspections
   * their ticks).
   */
  private readonly namesOfDir = new Map<string, string[]>();
  private readonly targetOfName = new Map<string, ProbeTarget>();
  private readonly counters = new DeviceCounters();
  /** Resolutions came back since the layout was last applied (see onMessage). */
  private layoutStale = false;
  private layout: DiskPlacement[] = [];

  private constructor(
    private readonly targets: ProbeTarget[],
    private readonly score: ScoreParams,
    statistical: StatisticalParams,
    tail: TailParams,
    private readonly prober: RestartingProber,
    predictor: PredictorParams,
    criticalOn: 'evict' | 'any',
    hangAfterMs: number,
  ) {
    super();
    for (const target of targets) {
      this.targetOfName.set(target.name, target);
      const names = this.namesOfDir.get(target.dir);
      if (names) names.push(target.name);
      else this.namesOfDir.set(target.dir, [target.name]);
    }
    this.pipeline = new VerdictPipeline({ score, statistical, tail, predictor, criticalOn, hangAfterMs });
    this.watchdog = new BatchWatchdog({
      charge: () => this.advanceTo(MONOTONIC_CLOCK.now()),
      ask: () => this.prober.send({ type: 'flush' }),
      heldUp: (ms) => this.emit('event', { kind: 'held-up', ms }),
    });
    prober.on('message', (message) => this.onMessage(message));
    prober.on('lost', (reason) => this.emit('fatal', reason));
    prober.on('restarted', ({ reason, pid }) => this.onProberRestarted(reason, pid));
  }

  /** Starts the prober and resolves every path; a path that does not exist fails here. */
  static async open(
    targets: ProbeTarget[],
    score: ScoreParams,
    probe: ProbeParams,
    statistical: StatisticalParams,
    tail: TailParams,
    predictor: PredictorParams,
    criticalOn: 'evict' | 'any',
    program: ProberProgram,
  ): Promise<ProbeSession> {
    const session = new ProbeSession(targets, score, statistical, tail, new RestartingProber(program, targets, probe), predictor, criticalOn, probe.hangAfterMs);
    // As root, where a prober registers: without the registry a stuck prober is found by its socket instead.
    const registry = process.geteuid?.() === 0 ? registryProblem() : null;
    if (registry !== null) writeStderrLine(`the prober registry ${REGISTRY_DIR} cannot be used (${registry}): stuck probers of earlier runs are found by their sockets instead`);
    try {
      await session.resolveAtStart();
      // The first round's outputs name every disk's devices, and its figures have a start.
      await session.counters.follow(session.inspectedPlacements());
      session.counters.sample();
    } catch (error) {
      await session.prober.stop(1000);
      throw error;
    }
    return session;
  }

  get currentTick(): number {
    return this.pipeline.currentTick;
  }

  /** The worst any round, or a hang, made the run so far. */
  get verdict(): RunVerdict {
    return this.pipeline.verdict;
  }

  /** Ticks charged as timeouts per disk since the start: the metrics' counter. */
  chargedTimeouts(): ReadonlyMap<string, number> {
    return this.pipeline.chargedTimeouts();
  }

  /** A check ends now: its exit code, a disk hung or with no inspection completed counted in. */
  checkEnd(): number {
    // Judged at the check's own clock, as the watchdog judges an overdue batch: its last disks too.
    this.knownMs = MONOTONIC_CLOCK.now();
    this.pipeline.checkEnd(this.knownMs);
    return this.pipeline.exitCode();
  }

  /** From now on the prober inspects on the schedule, and its batches move the session on. */
  start(): void {
    const schedule = new TickSchedule(MONOTONIC_CLOCK.now(), this.score.intervalMs, this.score.roundTicks);
    this.schedule = schedule;
    const { startMs, intervalMs, roundTicks, flushPeriodMs, flushSlackMs } = schedule;
    this.prober.send({ type: 'schedule', schedule: { startMs, intervalMs, roundTicks, flushPeriodMs, flushSlackMs } });
    this.placeInspected(1);
    this.watchdog.expect(schedule, startMs);
  }

  /**
   * Asks the prober for its records now and waits for them (at most an interval, or 200 ms),
   * so that a check's end judges every inspection that came back by then.
   */
  async catchUp(): Promise<void> {
    if (!this.schedule) return;
    const waited = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(this.score.intervalMs, CATCH_UP_MIN_MS));
      this.batchWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.prober.send({ type: 'flush' });
    await waited;
  }

  /**
   * Stops ticking and asks the prober to remove its probe files, and waits for that. A hung
   * disk (an inspection has missed its tick) is not waited for, so that it never holds up
   * exit: the prober removes its file once the disk lets it.
   */
  async stop(): Promise<void> {
    this.schedule = null;
    this.watchdog.stop();
    const now = MONOTONIC_CLOCK.now();
    const hung = new Set(
      [...this.disks.values()]
        .filter((disk) => disk.stuckProber === null && this.pipeline.disk(disk.status.name, now)?.waitingMs !== undefined)
        .map((disk) => disk.status.name),
    );
    if (hung.size === 0) {
      await this.prober.stop(2000);
      return;
    }
    // The other disks' probe files are removed before exit all the same; the prober records
    // the hung ones as stuck, so that the next run starts no prober of its own there.
    await this.prober.stop(2000, this.targets.map(({ name }) => name).filter((name) => !hung.has(name)), [...hung]);
    this.prober.detach();
  }

  /** What the prober process hosts beside the probes (the run's outputs), until stop(). */
  get hosted(): HostedChannel {
    return this.prober.hosted;
  }

  /** The path is on another filesystem than at the last run that remembers it: an event, and WARNING from now on. */
  filesystemChangedSince(change: FilesystemChange): void {
    const disk = this.disks.get(change.disk);
    if (!disk) return;
    disk.status.filesystemChanged = true;
    disk.status.filesystemWas = describeFilesystem(change.was);
    this.pipeline.filesystemChanged(change.disk);
    this.emit('event', { kind: 'filesystem-changed', disk: change.disk, dir: change.dir, was: change.was, now: change.now });
  }

  /** Puts an output file (a textfile) at dir/name through the prober, before stop(): see ProberClient.replace. */
  replaceFile(dir: string, name: string, text: string, mode: number): Promise<void> {
    return this.prober.replace(dir, name, text, mode);
  }

  /**
   * Each disk as the records that have come say it was, at the clock they reach (knownMs), or
   * at `now`; a round's, at its close: records read late (the CLI held up) are judged in their
   * order, and an inspection that had just started then is not hung.
   */
  statuses(now = this.knownMs): DiskStatus[] {
    return [...this.disks.values()].map((disk) => {
      const status: DiskStatus = { ...disk.status, ...this.pipeline.countsOf(disk.status.name), score: 1 };
      const verdict = this.pipeline.disk(status.name, now);
      if (!status.inspected || !verdict) return status;
      status.score = verdict.score;
      status.statistical = verdict.statistical;
      status.statisticalJudged = verdict.statisticalJudged;
      status.evictionInMs = verdict.evictionInMs;
      if (verdict.filesystemChanged) status.filesystemChanged = true;
      status.tail = verdict.tail;
      status.tailJudged = verdict.tailJudged;
      status.blockDevices = this.counters.devicesOf(status.name);
      status.stalledDevices = this.counters.stalledOf(status.name);
      if (verdict.prediction) status.prediction = verdict.prediction;
      if (verdict.waitingMs !== undefined) status.waitingMs = verdict.waitingMs;
      if (disk.contested && !verdict.hung) status.state = 'contested';
      if (verdict.hung) {
        status.state = 'hung';
        status.hungSinceMs = disk.inFlightSinceWallMs;
        if (disk.stuckProber) status.stuckProber = disk.stuckProber.pid;
      }
      return status;
    });
  }

  private async resolveAtStart(): Promise<void> {
    const pending = new Map<string, (message: FromProber & { type: 'resolved' }) => void>();
    const results = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => resolve(), RESOLVE_TIMEOUT_MS);
      const onMessage = (message: FromProber) => {
        if (message.type !== 'resolved') return;
        pending.get(message.name)?.(message);
        pending.delete(message.name);
        if (pending.size === 0) {
          clearTimeout(timer);
          this.prober.off('message', onMessage);
          resolve();
        }
      };
      this.prober.on('message', onMessage);
      this.prober.on('lost', (reason) => reject(new StartupError(reason)));
    });
    const failures: string[] = [];
    for (const { name, dir } of this.targets) {
      if (this.firstNameOf(name) !== name) continue;
      pending.set(name, (message) => {
        if (!message.error) return;
        for (const each of this.namesOfDir.get(dir)!) failures.push(`${each}=${dir}: ${describeError(message.error)}`);
      });
    }
    this.prober.send({ type: 'resolve', names: [...pending.keys()] });
    await results;
    if (failures.length > 0) throw new StartupError(`cannot probe ${failures.join('; ')}`);
    // Resolutions recorded by onMessage; a path that did not answer in time is inspected
    // as its own disk until it does.
    this.applyLayout(false);
  }

  /** Tells the pipeline of every tick due by `ms`, on the schedule's clock. */
  private advanceTo(ms: number): void {
    const schedule = this.schedule;
    if (!schedule) return;
    if (ms > this.knownMs) this.knownMs = ms;
    const due = schedule.dueBy(ms);
    while (this.tickDone < due && this.schedule) this.onTick(++this.tickDone, schedule);
  }

  /** A tick's start, at its deadline: the prober's thread started its inspections then. */
  private onTick(tick: number, schedule: TickSchedule): void {
    this.releaseLeftStuck(tick);
    const atMs = schedule.deadlineMs(tick);
    const out = this.pipeline.tick({ tick, atMs });
    const startedWallMs = wallOf(atMs);
    // Indexed loops on this path: unoptimised (watch), for...of costs objects a disk a tick.
    for (let i = 0; i < out.start.length; i += 1) {
      const disk = this.disks.get(out.start[i]!);
      if (disk && !disk.stuckProber) disk.inFlightSinceWallMs = startedWallMs;
    }
    for (const told of out.hung) this.announceHung(told);
    // One read of the counters a round, at its close, whatever the inspections are waiting on.
    const devices = out.closesRound ? this.counters.sample() : undefined;
    const round = this.pipeline.devices({ tick, devices });
    if (!round) return;
    this.emitRound(round, tick * schedule.intervalMs, atMs, devices ?? []);
  }

  /** A batch from the prober: its records and the ticks between them, in the order they came. */
  private onBatch(coveredMs: number, records: readonly BatchRecord[]): void {
    if (!this.schedule) return;
    // One reading of the clocks a batch, not two an inspection: its records are a second old at most.
    const wallOffset = wallOffsetMs();
    const told = this.listenerCount('inspection') > 0;
    for (let i = 0; i < records.length; i += 1) {
      const record = records[i]!;
      if (Array.isArray(record)) {
        // Indexed, not destructured: watch runs unoptimised code, where destructuring an array
        // walks its iterator, an object an element (bin/slowdisk.js).
        const atMs = record[2];
        this.advanceTo(atMs);
        const timings = { openMs: record[3], writeMs: record[4], syncMs: record[5], readMs: record[6], closeMs: record[7], totalMs: record[8] };
        this.onTimed(record[0], record[1], atMs, timings, wallOffset, told);
      } else if (record.kind === 'inspected') {
        this.advanceTo(record.atMs);
        this.onInspected(record, wallOffset, told);
      } else {
        this.advanceTo(record.atMs);
        this.onResolved(record);
      }
    }
    this.advanceTo(coveredMs);
    this.applyStaleLayout();
    if (this.schedule) this.watchdog.expect(this.schedule, coveredMs, this.pipeline.nextHangAtMs(coveredMs));
    for (const waiter of this.batchWaiters.splice(0)) waiter();
  }

  /** Tells the prober the disks to inspect from `fromTick`, each new one left to an earlier run's prober stuck on its filesystem. */
  private placeInspected(fromTick: number): void {
    for (const disk of this.disks.values()) if (disk.status.inspected) this.leaveToStuckProber(disk);
    this.sendPlacement(fromTick);
  }

  /** The disks the prober inspects: those inspected, but for any left to an earlier run's stuck prober. */
  private sendPlacement(fromTick: number, force = false): void {
    const disks: Placement[] = [...this.disks.values()]
      .filter((disk) => disk.status.inspected && disk.stuckProber === null)
      .map(({ status: { name, device } }) => ({ name, ...(device === undefined ? {} : { device }) }));
    const sent = JSON.stringify(disks);
    if (!force && sent === this.placementSent) return;
    this.placementSent = sent;
    this.prober.send({ type: 'place', disks, fromTick });
  }

  /**
   * A disk about to be inspected for the first time on its filesystem, where the prober of
   * an earlier run is stuck, is left to it: its inspection is the one in flight, since that
   * prober got stuck, and a second prober would only get stuck beside it. One hung already
   * goes to `hung`.
   */
  private leaveToStuckProber(disk: DiskRecord): void {
    const device = disk.status.device;
    if (disk.stuckProber || disk.status.state !== 'starting' || device === undefined) return;
    const stuck = stuckProberOn(device, this.prober.pid);
    if (!stuck) return;
    disk.stuckProber = stuck;
    disk.inFlightSinceWallMs = stuck.stuckSinceMs;
    const now = MONOTONIC_CLOCK.now();
    const told = this.pipeline.elsewhere(disk.status.name, now - Math.max(0, Date.now() - stuck.stuckSinceMs), now);
    if (told) this.announceHung(told);
  }

  /**
   * A disk whose earlier prober came unstuck (or died) is inspected again from this tick; a
   * hang announced stays so until that inspection comes back, which says the disk is back.
   */
  private releaseLeftStuck(tick: number): void {
    let released = false;
    this.disks.forEach((disk) => {
      if (!disk.stuckProber || stillStuck(disk.stuckProber)) return;
      disk.stuckProber = null;
      this.pipeline.abandoned(disk.status.name);
      released = true;
    });
    if (released) this.sendPlacement(tick);
  }

  /** One event per hang, on the first tick at which it reaches --hang-after. */
  private announceHung({ disk: name, waitingMs }: HungDisk): void {
    const disk = this.disks.get(name);
    if (!disk) return;
    const stuckProber = disk.stuckProber?.pid;
    this.emit('event', { kind: 'hung', disk: name, sinceMs: disk.inFlightSinceWallMs, waitingMs, ...(stuckProber === undefined ? {} : { stuckProber }) });
  }

  private emitRound(round: RoundVerdict, sinceStartMs: number, atMs: number, devices: DeviceFigures[]): void {
    // For the next round: a changed filesystem, or a device that went away, is resolved anew.
    void this.counters.follow(this.inspectedPlacements());
    this.emit('round', {
      tick: round.tick,
      elapsedMs: sinceStartMs,
      storeScore: round.storeScore,
      reportedScore: reportedScore(round.storeScore),
      disks: this.statuses(atMs),
      devices,
      severity: round.severity,
      crossings: round.crossings,
    });
  }

  /** The names given the directory of `name`: the first of them is the one the prober resolves. */
  private namesOf(name: string): string[] {
    const target = this.targetOfName.get(name);
    return (target && this.namesOfDir.get(target.dir)) ?? [name];
  }

  private firstNameOf(name: string): string {
    return this.namesOf(name)[0]!;
  }

  private inspectedPlacements(): DiskPlacement[] {
    return this.layout.filter((placement) => placement.inspected);
  }

  private resolve(names: string[]): void {
    const firsts = new Set(names.map((name) => this.firstNameOf(name)));
    // A path whose last statx has not come back (a hung filesystem) is not asked again.
    const asked = [...firsts].filter((name) => !this.resolving.has(name));
    if (asked.length === 0) return;
    for (const name of asked) this.resolving.add(name);
    this.prober.send({ type: 'resolve', names: asked });
  }

  /** What the dead prober had in flight will never come back; the new one starts afresh. */
  private onProberRestarted(reason: string, pid: number | undefined): void {
    for (const disk of this.disks.values()) {
      // A disk left to an earlier run's prober stays so: this run's prober had nothing in flight there.
      if (disk.stuckProber) continue;
      this.pipeline.abandoned(disk.status.name);
    }
    this.resolving.clear();
    this.sendPlacement(this.tickDone + 1, true);
    this.emit('event', { kind: 'prober-restarted', reason, ...(pid === undefined ? {} : { pid }) });
  }

  private onMessage(message: FromProber): void {
    switch (message.type) {
      case 'resolved':
        this.resolving.delete(message.name);
        this.onResolved(message);
        if (this.resolving.size === 0) this.applyStaleLayout();
        return;
      case 'batch':
        this.onBatch(message.coveredMs, JSON.parse(message.recordsJson) as BatchRecord[]);
        return;
      case 'released':
      case 'stopping':
      case 'stopped':
        return;
    }
  }

  /**
   * A directory resolved otherwise. One layout for a batch's resolutions, not one per path:
   * each reads and parses the mount table and places every path, and 64 paths' answers in a
   * row held the event loop for most of a tick (scripts/bench/scale.mjs).
   */
  private onResolved(message: { name: string; resolution?: Resolution }): void {
    if (message.resolution) {
      // Pinned once: a restarted prober probes where the first one did, and nowhere else.
      for (const name of this.namesOf(message.name)) {
        this.resolutions.set(name, message.resolution);
        const target = this.targetOfName.get(name);
        if (target) target.resolvedDir ??= message.resolution.resolvedDir;
      }
    }
    if (this.layout.length > 0) this.layoutStale = true;
  }

  /** An inspection that completed; `wallOffset` turns its clock reading into the wall clock's. */
  private onTimed(name: string, tick: number, atMs: number, timings: PhaseTimings, wallOffset: number, told: boolean): void {
    const disk = this.disks.get(name);
    // A skipped path's last inspection, come back after its release, says nothing of it.
    if (!disk?.status.inspected) return;
    disk.attempted = true;
    const status = disk.status;
    const wasContested = disk.contested;
    disk.losing = false;
    disk.contested = false;
    const out = this.pipeline.inspection({ tick, disk: name, ms: timings.totalMs, atMs });
    // Made for a listener only (an output, a hook): 640 a second at 64 disks.
    if (told) this.emit('inspection', { tick, disk: name, timings, late: out?.late ?? false, wallMs: atMs + wallOffset });
    status.last = timings;
    const wasDown = status.state === 'down';
    status.state = 'up';
    if (status.error !== undefined) delete status.error;
    if (wasDown || wasContested || out?.hangEnded) this.emit('event', { kind: 'back', disk: name });
  }

  private onInspected(message: InspectedRecord, wallOffset: number, told: boolean): void {
    const disk = this.disks.get(message.name);
    if (!disk?.status.inspected) return;
    if (message.staleRemoved) this.emit('event', { kind: 'stale-removed', disk: message.name, paths: message.staleRemoved });
    const { atMs } = message;
    if (message.lost) {
      // No inspection: the directory's finding, never the disk's, at start as later.
      disk.attempted = true;
      this.pipeline.inspection({ tick: message.tick, disk: message.name, ms: null, lost: true, atMs });
      this.emit('inspection', { tick: message.tick, disk: message.name, error: message.lost, late: false, lost: true, wallMs: atMs + wallOffset });
      // The first tick lost since the disk was last seen tells what took the name; a fresh
      // file taken in its turn, that the directory is contested.
      if (!disk.losing) this.emit('event', { kind: 'name-taken', disk: message.name, error: message.lost });
      disk.losing = true;
      if (message.contested && !disk.contested) this.emit('event', { kind: 'contested', disk: message.name, error: message.lost });
      disk.contested ||= message.contested === true;
      return;
    }
    disk.losing = false;
    disk.contested = false;
    if (message.timings) {
      this.onTimed(message.name, message.tick, atMs, message.timings, wallOffset, told);
      return;
    }
    const firstAttempt = !disk.attempted;
    disk.attempted = true;
    const status = disk.status;
    const error = shownError(message.error!, status);
    const wasHung = this.pipeline.inspection({ tick: message.tick, disk: message.name, ms: null, atMs, error: error.code })?.hangEnded ?? false;
    this.emit('inspection', { tick: message.tick, disk: message.name, error, late: false, wallMs: atMs + wallOffset });
    // A disk that cannot be written is a finding (down, CRITICAL), not a path that cannot be probed.
    if (firstAttempt && !isUnwritable(error.code)) {
      this.emit('fatal', `cannot probe ${message.name}=${status.dir}: ${error.message}`);
      return;
    }
    if (error.code === 'EOTHERFS') {
      // The directory is on another filesystem now. Placed again at once, the path is either
      // shown as down (its filesystem vanished) or followed onto the new one.
      this.resolve([message.name]);
      return;
    }
    const changed = wasHung || status.state !== 'down' || status.error?.code !== error.code;
    status.state = 'down';
    status.error = error;
    if (changed) this.emit('event', { kind: 'down', disk: message.name, error });
  }

  private applyStaleLayout(): void {
    if (!this.layoutStale) return;
    this.layoutStale = false;
    this.applyLayout(true);
  }

  /**
   * Recomputes which paths are inspected, from the mount table as it is now; tells the
   * outputs when anything changed. A path whose filesystem vanished keeps its place.
   */
  private applyLayout(announce: boolean): void {
    const next = placeDisks(this.targets, this.resolutions, MountTable.read(), this.layout);
    const changed = layoutChanged(this.layout, next);
    for (const placement of next) this.place(placement);
    this.layout = next;
    if (!changed) return;
    // The block devices behind a disk on another filesystem are known by the round's close.
    void this.counters.follow(this.inspectedPlacements());
    this.pipeline.disks(next.filter((placement) => placement.inspected).map((placement) => placement.name));
    // Before start, the schedule's first placement is this one.
    if (this.schedule) this.placeInspected(this.tickDone + 1);
    if (announce) this.emit('event', { kind: 'layout', disks: next });
  }

  private place(placement: DiskPlacement): void {
    const disk = this.disks.get(placement.name);
    if (!disk) {
      const state: DiskState = placement.inspected ? 'starting' : 'skipped';
      this.disks.set(placement.name, {
        status: { ...placement, state, score: 1, inspections: 0, errors: 0 },
        inFlightSinceWallMs: 0,
        stuckProber: null,
        attempted: !placement.inspected,
        losing: false,
        contested: false,
      });
      return;
    }
    const status = disk.status;
    const wasInspected = status.inspected;
    const deviceBefore = status.device;
    const filesystemBefore = identityOf(status);
    if (placement.inspected) delete status.sameAs;
    if (!placement.vanished) delete status.vanished;
    Object.assign(status, placement);
    if (!placement.inspected) {
      if (!wasInspected) return;
      // The pipeline forgets it with the layout's inspected disks (applyLayout).
      status.state = 'skipped';
      delete status.error;
      disk.stuckProber = null;
    } else if (!wasInspected) {
      status.state = 'starting';
    } else if (deviceBefore !== undefined && placement.device !== undefined && placement.device !== deviceBefore) {
      // Another filesystem was mounted onto the directory: another disk, probed from 1 with
      // a probe file of its own. The old file stays where it is, out of reach under the mount.
      status.state = 'starting';
      delete status.error;
      disk.stuckProber = null;
      if (filesystemBefore !== null) status.filesystemWas = describeFilesystem(filesystemBefore);
      this.pipeline.restart(placement.name);
    }
  }
}
