// The prober's batches as the verdict pipeline's events, on the schedule's clock: each record
// in the order it was recorded, and before it every tick whose deadline it passed, so that a
// batch read late (the CLI held up) is judged as it happened, not as it was read. The one
// live path from a record to the pipeline: a replay of the trace it records takes the same
// (test/unit/replay.test.ts holds the two together).
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { BatchRecord, InspectedRecord, PhaseTimings, ResolvedRecord } from '../probe/prober-protocol.js';
import { wallOffsetMs } from '../common/monotonic-clock.js';
import type { TickSchedule } from '../ticks/tick-schedule.js';
import type { RoundVerdict, VerdictPipeline } from '../verdict/verdict-pipeline.js';
import type { LiveDisks } from './live-disks.js';

/** What the session does at the feeder's ticks, beside the pipeline. */
export interface FeederHooks {
  /** A tick is about to begin: disks left to a stuck prober may come back to this one. */
  tickBegins(tick: number): void;
  /** The block devices' figures over the round the tick closes, read at its close. */
  roundDevices(): DeviceFigures[] | undefined;
  /** A round closed, at `atMs`, `sinceStartMs` after the schedule's start. */
  round(round: RoundVerdict, sinceStartMs: number, atMs: number, devices: DeviceFigures[]): void;
  /** A directory's resolution came in a batch. */
  resolved(record: ResolvedRecord): void;
  /** Whether anyone listens to the inspections: a record of each is made only then. */
  listening(): boolean;
}

export class BatchFeeder {
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
  /** A check's end waiting for the next batch. */
  private readonly batchWaiters: (() => void)[] = [];

  constructor(
    private readonly pipeline: VerdictPipeline,
    private readonly disks: LiveDisks,
    private readonly hooks: FeederHooks,
  ) {}

  /** The schedule followed, null before start and after stop. */
  get current(): TickSchedule | null {
    return this.schedule;
  }

  get lastTick(): number {
    return this.tickDone;
  }

  get known(): number {
    return this.knownMs;
  }

  /** From now on ticks are told on `schedule`. */
  start(schedule: TickSchedule): void {
    this.schedule = schedule;
  }

  /** No tick is told from now on, nor any record. */
  stop(): void {
    this.schedule = null;
  }

  /** Everything up to `ms` is known (a check's end judges at its own clock). */
  knownUpTo(ms: number): void {
    this.knownMs = ms;
  }

  /** Tells the pipeline of every tick due by `ms`, on the schedule's clock. */
  advanceTo(ms: number): void {
    const schedule = this.schedule;
    if (!schedule) return;
    if (ms > this.knownMs) this.knownMs = ms;
    const due = schedule.dueBy(ms);
    while (this.tickDone < due && this.schedule) this.onTick(++this.tickDone, schedule);
  }

  /** A batch from the prober: its records and the ticks between them, in the order they came, up to `coveredMs`. */
  feed(coveredMs: number, records: readonly BatchRecord[]): void {
    if (!this.schedule) return;
    // One reading of the clocks a batch, not two an inspection: its records are a second old at most.
    const wallOffset = wallOffsetMs();
    const told = this.hooks.listening();
    for (let i = 0; i < records.length; i += 1) {
      const record = records[i]!;
      if (Array.isArray(record)) {
        // Indexed, not destructured: watch runs unoptimised code, where destructuring an array
        // walks its iterator, an object an element (bin/slowdisk.js).
        const atMs = record[2];
        this.advanceTo(atMs);
        const timings: PhaseTimings = { openMs: record[3], writeMs: record[4], syncMs: record[5], readMs: record[6], closeMs: record[7], totalMs: record[8], waitMs: record[10], startWaitMs: record[11] };
        this.disks.timed(record[0], record[1], atMs, timings, wallOffset, told);
      } else if (record.kind === 'inspected') {
        this.advanceTo(record.atMs);
        this.disks.inspected(record as InspectedRecord, wallOffset, told);
      } else {
        this.advanceTo(record.atMs);
        this.hooks.resolved(record);
      }
    }
    this.advanceTo(coveredMs);
  }

  /** Resolves once the next batch has been fed and its layout placed (fed()), or after `timeoutMs`. */
  nextBatch(timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.batchWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** The batch fed last is done with: whoever waited for it goes on. */
  fed(): void {
    for (const waiter of this.batchWaiters.splice(0)) waiter();
  }

  /** A tick's start, at its deadline: the prober's thread started its inspections then. */
  private onTick(tick: number, schedule: TickSchedule): void {
    this.hooks.tickBegins(tick);
    const atMs = schedule.deadlineMs(tick);
    const out = this.pipeline.tick({ tick, atMs });
    for (const told of out.hung) this.disks.announceHung(told);
    // One read of the counters a round, at its close, whatever the inspections are waiting on.
    const devices = out.closesRound ? this.hooks.roundDevices() : undefined;
    const round = this.pipeline.devices({ tick, devices });
    if (round) this.hooks.round(round, tick * schedule.intervalMs, atMs, devices ?? []);
  }
}
