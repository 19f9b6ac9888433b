// Probe orchestration in the CLI process: starts the prober, gives it its schedule and the
// disks to inspect, and wires the parts that turn what comes back into the verdict pipeline's
// events and the outputs' news: the feeder (batch-feeder.ts), the disks' states (live-disks.ts),
// the layout (session-layout.ts), the probers of earlier runs stuck on a filesystem
// (stuck-probers.ts), the disks' statuses (disk-statuses.ts), and a watchdog that charges the ticks
// of a prober whose batch is overdue, on the CLI's own clock: a hung prober never hides a hung
// disk. It never makes a syscall on a disk under test: the kernel's counters come from procfs
// and sysfs, and the one stat the block-device walk makes (of a loop device's backing file)
// is bounded in time (src/kernel/block-devices.ts).
import { EventEmitter } from 'node:events';
import { DeviceCounters } from '../kernel/device-counters.js';
import type { PredictorParams } from '../early-warning/predictor-params.js';
import type { StatisticalParams } from '../detectors/statistical-params.js';
import type { TailParams } from '../detectors/tail-params.js';
import type { ScoreParams } from '../score/score-params.js';
import type { ProbeParams } from '../probe/probe-params.js';
import type { BatchRecord, FromProber, ProberProgram, ProbeTarget } from '../probe/prober-protocol.js';
import type { HostedChannel } from '../output/output-writer.js';
import { ProberClient } from '../prober/prober-client.js';
import { MONOTONIC_CLOCK } from '../common/monotonic-clock.js';
import { TickSchedule } from '../ticks/tick-schedule.js';
import type { RunVerdict } from '../verdict/run-verdict.js';
import { VerdictPipeline, type PipelineParams, type VerdictParams } from '../verdict/verdict-pipeline.js';
import { BatchFeeder } from './batch-feeder.js';
import { BatchWatchdog } from './batch-watchdog.js';
import { diskStatuses, roundReport } from './disk-statuses.js';
import { LiveDisks } from './live-disks.js';
import type { DiskStatus, SessionEvents } from './session-events.js';
import { SessionLayout } from './session-layout.js';
import type { FilesystemChange } from '../layout/filesystem-memory.js';
import { StuckProbers, tellIfRegistryUnusable } from './stuck-probers.js';

/** How long a check's end waits for the prober's last records, at least. */
const CATCH_UP_MIN_MS = 200;

/** What a session is opened with: the paths, every parameter group, and the prober's program. */
export interface ProbeSessionOptions {
  targets: ProbeTarget[];
  score: ScoreParams;
  probe: ProbeParams;
  statistical: StatisticalParams;
  tail: TailParams;
  predictor: PredictorParams;
  verdict: VerdictParams;
  program: ProberProgram;
}

export class ProbeSession extends EventEmitter<SessionEvents> {
  private readonly pipeline: VerdictPipeline;
  private readonly feeder: BatchFeeder;
  private readonly disks: LiveDisks;
  private readonly layout: SessionLayout;
  private readonly stuck: StuckProbers;
  private readonly watchdog: BatchWatchdog;
  private readonly counters = new DeviceCounters();
  /** What the prober was last told to inspect, as sent. */
  private placementSent = '';

  private constructor(
    private readonly targets: ProbeTarget[],
    private readonly score: ScoreParams,
    params: PipelineParams,
    private readonly prober: ProberClient,
  ) {
    super();
    this.layout = new SessionLayout(targets);
    this.pipeline = new VerdictPipeline(params);
    this.disks = new LiveDisks(this.pipeline, {
      event: (event) => this.emit('event', event),
      inspection: (record) => this.emit('inspection', record),
      fatal: (message) => this.emit('fatal', message),
      resolve: (name) => {
        // Not asked again while the last statx has not come back (a hung filesystem).
        const asked = this.layout.toResolve([name]);
        if (asked.length > 0) this.prober.send({ type: 'resolve', names: asked });
      },
    });
    this.stuck = new StuckProbers(this.pipeline, () => this.prober.pid);
    this.feeder = new BatchFeeder(this.pipeline, this.disks, {
      tickBegins: (tick) => this.stuck.release(this.disks) && this.sendPlacement(tick),
      roundDevices: () => this.counters.sample(),
      round: (round, sinceStartMs, atMs, devices) => {
        // For the next round: a changed filesystem, or a device that went away, is resolved anew.
        void this.counters.follow(this.layout.inspected());
        this.emit('round', roundReport(round, sinceStartMs, this.statuses(atMs), devices));
      },
      resolved: (record) => this.layout.resolved(record.name, record.resolution),
      listening: () => this.listenerCount('inspection') > 0,
    });
    this.watchdog = new BatchWatchdog({
      charge: () => this.feeder.advanceTo(MONOTONIC_CLOCK.now()),
      ask: () => this.prober.send({ type: 'flush' }),
      heldUp: (ms) => this.emit('event', { kind: 'held-up', ms }),
    });
    prober.on('message', (message) => this.onMessage(message));
    prober.on('lost', (reason) => this.emit('fatal', reason));
    prober.on('restarted', ({ reason, pid }) => this.onProberRestarted(reason, pid));
  }

  /** Starts the prober and resolves every path; a path that does not exist fails here. */
  static async open(options: ProbeSessionOptions): Promise<ProbeSession> {
    const { targets, score, probe, statistical, tail, predictor, verdict, program } = options;
    const params = { score, statistical, tail, predictor, ...verdict, hangAfterMs: probe.hangAfterMs };
    const session = new ProbeSession(targets, score, params, new ProberClient(program, targets, probe));
    tellIfRegistryUnusable();
    try {
      await session.layout.resolveAtStart(session.prober);
      // A path that did not answer in time is inspected as its own disk until it does.
      session.applyLayout(false);
      // The first round's outputs name every disk's devices, and its figures have a start.
      await session.counters.follow(session.layout.inspected());
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
    this.feeder.knownUpTo(MONOTONIC_CLOCK.now());
    this.pipeline.checkEnd(this.feeder.known);
    return this.pipeline.exitCode();
  }

  /** From now on the prober inspects on the schedule, and its batches move the session on. */
  start(): void {
    const schedule = new TickSchedule(MONOTONIC_CLOCK.now(), this.score.intervalMs, this.score.roundTicks);
    this.feeder.start(schedule);
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
    if (!this.feeder.current) return;
    const fed = this.feeder.nextBatch(Math.max(this.score.intervalMs, CATCH_UP_MIN_MS));
    this.prober.send({ type: 'flush' });
    await fed;
  }

  /**
   * Stops ticking and asks the prober to remove its probe files, and waits for that. A hung
   * disk (an inspection has missed its tick) is not waited for, so that it never holds up
   * exit: the prober removes its file once the disk lets it.
   */
  async stop(): Promise<void> {
    this.feeder.stop();
    this.watchdog.stop();
    const hung = new Set(this.disks.waiting(MONOTONIC_CLOCK.now()));
    if (hung.size === 0) {
      await this.prober.stop(2000);
      return;
    }
    // The other disks' probe files are removed before exit all the same; the prober records
    // the hung ones as stuck, so that the next run starts no prober of its own there.
    await this.prober.stop(2000, this.targets.map(({ name }) => name).filter((name) => !hung.has(name)), [...hung]);
    this.prober.detach();
  }

  /** The path is on another filesystem than at the last run that remembers it: an event, and WARNING from now on. */
  filesystemChangedSince(change: FilesystemChange): void {
    this.disks.filesystemChangedSince(change);
  }

  /** What the prober process hosts beside the probes (the run's outputs), until stop(). */
  get hosted(): HostedChannel {
    return this.prober.hosted;
  }

  /**
   * Each disk as the records that have come say it was, at the clock they reach, or at `now`;
   * a round's, at its close: records read late (the CLI held up) are judged in their order,
   * and an inspection that had just started then is not hung.
   */
  statuses(now = this.feeder.known): DiskStatus[] {
    return diskStatuses(this.disks.all(), this.pipeline, this.counters, now);
  }

  /** Tells the prober the disks to inspect from `fromTick`, each new one left to an earlier run's prober stuck on its filesystem. */
  private placeInspected(fromTick: number): void {
    for (const disk of this.disks.all()) {
      if (!disk.status.inspected) continue;
      const told = this.stuck.leave(disk);
      if (told) this.disks.announceHung(told);
    }
    this.sendPlacement(fromTick);
  }

  private sendPlacement(fromTick: number, force = false): void {
    const disks = this.disks.placements();
    const sent = JSON.stringify(disks);
    if (!force && sent === this.placementSent) return;
    this.placementSent = sent;
    this.prober.send({ type: 'place', disks, fromTick });
  }

  /** What the dead prober had in flight will never come back; the new one starts afresh. */
  private onProberRestarted(reason: string, pid: number | undefined): void {
    this.disks.abandonInFlight();
    this.layout.forgetAsked();
    this.sendPlacement(this.feeder.lastTick + 1, true);
    this.emit('event', { kind: 'prober-restarted', reason, ...(pid === undefined ? {} : { pid }) });
  }

  /** The prober's other messages say how it stops: stop() waits for them. */
  private onMessage(message: FromProber): void {
    if (message.type === 'batch') {
      this.onBatch(message.coveredMs, JSON.parse(message.recordsJson) as BatchRecord[]);
    } else if (message.type === 'resolved') {
      this.layout.resolved(message.name, message.resolution);
      if (this.layout.answered(message.name)) this.applyStaleLayout();
    }
  }

  private onBatch(coveredMs: number, records: readonly BatchRecord[]): void {
    if (!this.feeder.current) return;
    this.feeder.feed(coveredMs, records);
    this.applyStaleLayout();
    const schedule = this.feeder.current;
    if (schedule) this.watchdog.expect(schedule, coveredMs, this.pipeline.nextHangAtMs(coveredMs));
    this.feeder.fed();
  }

  private applyStaleLayout(): void {
    if (this.layout.takeStale()) this.applyLayout(true);
  }

  /** Places the paths anew from the mount table; tells the outputs when anything changed. */
  private applyLayout(announce: boolean): void {
    const { placements, changed } = this.layout.place();
    for (const placement of placements) this.disks.place(placement);
    if (!changed) return;
    // The block devices behind a disk on another filesystem are known by the round's close.
    void this.counters.follow(this.layout.inspected());
    this.pipeline.disks(placements.filter((placement) => placement.inspected).map((placement) => placement.name));
    // Before start, the schedule's first placement is this one.
    if (this.feeder.current) this.placeInspected(this.feeder.lastTick + 1);
    if (announce) this.emit('event', { kind: 'layout', disks: placements });
  }
}
