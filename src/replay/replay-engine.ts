// Runs a trace through the store's tick semantics (StoreTicks, the same code watch runs) on
// a virtual clock: tick k happens at k x interval, and nothing ever sleeps.
//
// When a tick is replayed. The lines of one disk come in tick order, but the disks
// interleave freely, and the recorder writes a result when it arrives, so a slow disk's line
// for tick k may follow another disk's lines for k+1, k+2, ... Tick k is replayed once every
// disk's line for k is known: when each disk has a line with a later tick, or the trace has
// ended. A disk that hangs writes nothing until its inspection returns, so the wait is capped:
// once any line (a clock line too) is SETTLE_WINDOW_TICKS past tick k, tick k is replayed with
// what has come. A line that comes after its tick was replayed is one the live run charged as
// a timeout anyway (a result counts only if it arrives within its own tick, and the recorder
// writes results in the order they arrive), so replay charges it the same; only a line that
// would have counted is an error, since a replay can no longer count it. Memory is bounded
// by the window: at most SETTLE_WINDOW_TICKS lines per disk are held.
//
// Without a "disks" list in the header the disks are those named in the lines; a disk must
// then be named before the window first runs out (within its first SETTLE_WINDOW_TICKS ticks),
// because each disk is scored from tick 1.
import { type ScoreParams } from '../score/score-params.js';
import { DEFAULT_PROBE_PARAMS } from '../probe/probe-params.js';
import { statisticalParams, type StatisticalParams } from '../detectors/statistical-params.js';
import { tailParams, type TailParams } from '../detectors/tail-params.js';
import { predictorParams, type PredictorParams } from '../early-warning/predictor-params.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { TraceLine } from '../trace/trace-format.js';
import { MAX_TICK_GAP, TraceError } from '../trace/trace-reader.js';
import type { RunVerdict } from '../verdict/run-verdict.js';
import { countsForItsTick, VerdictPipeline, type DevicesEvent, type InspectionEvent, type RoundVerdict, type TickEvent, type VerdictParams } from '../verdict/verdict-pipeline.js';

/** One hour of 100 ms ticks: longer than any wait for a result that counts. */
export const SETTLE_WINDOW_TICKS = 36_000;

/**
 * Replay steps through every tick of every disk, lines or not, so its work is the ticks times
 * the disks: bounded by what the trace holds, at most REPLAY_STEPS_PER_LINE for each line,
 * and MAX_TICK_GAP more (a day of one disk with no line at 100 ms, about 3 s of replay). A
 * recorded trace has a line per disk per tick, with gaps where a disk hung: sixty lines each
 * a day past the one before would otherwise keep replay busy for minutes.
 */
export const REPLAY_STEPS_PER_LINE = 10;

/** A score update: what the round that closed at `tick` made of the store. */
export type ScoreUpdate = RoundVerdict;

export interface ReplayObserver {
  /** A score update, at every tick that closes a round. */
  update?(update: ScoreUpdate): void;
  /**
   * A disk's inspection of a tick, once the tick is replayed: its duration as the trace has it,
   * or null when it failed or has no line. Called after the update of the same tick, so a
   * tick's inspection belongs to the round the next update closes, as in the score.
   */
  inspection?(disk: string, tick: number, ms: number | null): void;
  /** The block devices' figures recorded at a tick (the close of a live round), as it is replayed, before its update. */
  devices?(tick: number, devices: readonly DeviceFigures[]): void;
}

export interface ReplayOptions {
  params: ScoreParams;
  /** The header's disks; without them, the disks named in the lines, in order of appearance. */
  disks?: readonly string[];
  /** Replay exactly this many ticks; by default up to the largest tick on any line. */
  ticks?: number;
  /** The statistical detector's; by default its defaults, a tick with no result counting as the timeout. */
  statistical?: StatisticalParams;
  /** The tail detector's; by default its defaults, a tick with no result counting as the timeout. */
  tail?: TailParams;
  /** --critical-on and --busy, as in watch and check; by default theirs. */
  verdict?: VerdictParams;
  /** The early-warning predictor's; by default its defaults, a tick with no result counting as the timeout. */
  predictor?: PredictorParams;
  /** --hang-after: a disk whose inspection was in flight this long made the live run WARNING, and makes the verdict so. */
  hangAfterMs?: number;
}

export interface ReplayResult {
  /** Ticks replayed. */
  ticks: number;
  disks: string[];
  storeScore: number;
  /** The worst the reported store score got: check's verdict for the same scores. */
  verdict: RunVerdict;
}

/** One disk's lines not yet replayed, in tick order. */
class PendingLines {
  private lines: TraceLine[] = [];
  private head = 0;
  /** The tick of this disk's latest line. */
  lastTick = 0;

  constructor(readonly name: string) {}

  push(line: TraceLine): void {
    this.lines.push(line);
  }

  /** The line for `tick`, if it has one; lines are taken in tick order. */
  take(tick: number): TraceLine | undefined {
    const line = this.lines[this.head];
    if (line === undefined || line.tick !== tick) return undefined;
    this.head += 1;
    // Drop what was taken now and then rather than shifting the array every time.
    if (this.head >= 1024 && this.head * 2 >= this.lines.length) {
      this.lines = this.lines.slice(this.head);
      this.head = 0;
    }
    return line;
  }
}

export class ReplayEngine {
  private readonly pipeline: VerdictPipeline;
  private readonly disks = new Map<string, PendingLines>();
  private readonly disksKnown: boolean;
  /** Device lines by tick, until the tick is replayed. */
  private readonly devices = new Map<number, DeviceFigures[]>();
  private replayed = 0;
  private latestTick = 0;
  /** Lines added so far: what the trace holds, which bounds the ticks replayed. */
  private lines = 0;
  /** Disks named in the lines and not told to the pipeline yet. */
  private joining = false;
  /** The events handed to the pipeline, filled afresh for each tick and line: it keeps none, and a day has 864,000 ticks. */
  private readonly tickEvent: TickEvent = { tick: 0, atMs: 0 };
  private readonly devicesEvent: DevicesEvent = { tick: 0 };
  private readonly inspection: InspectionEvent = { tick: 0, disk: '', ms: null, waitMs: null, startWaitMs: null, late: false, atMs: 0 };

  constructor(
    private readonly options: ReplayOptions,
    private readonly observer: ReplayObserver = {},
  ) {
    const { timeoutMs } = options.params;
    this.pipeline = new VerdictPipeline({
      score: options.params,
      statistical: options.statistical ?? statisticalParams({ failureLatencyMs: timeoutMs }),
      tail: options.tail ?? tailParams({ failureLatencyMs: timeoutMs }),
      predictor: options.predictor ?? predictorParams({ timeoutMs }),
      criticalOn: options.verdict?.criticalOn ?? 'evict',
      busy: options.verdict?.busy ?? 'warning',
      hangAfterMs: options.hangAfterMs ?? DEFAULT_PROBE_PARAMS.hangAfterMs,
    });
    this.disksKnown = options.disks !== undefined;
    for (const name of options.disks ?? []) this.disks.set(name, new PendingLines(name));
    this.pipeline.disks([...this.disks.keys()]);
  }

  /** With `ticks`, all of them have been replayed: the rest of the trace is not needed. */
  get done(): boolean {
    return this.options.ticks !== undefined && this.replayed >= this.options.ticks;
  }

  add(line: TraceLine): void {
    this.lines += 1;
    if (line.tick > this.latestTick) {
      this.latestTick = line.tick;
      this.holdToLines(Math.min(line.tick, this.options.ticks ?? Infinity), line.line);
    }
    if (line.disk !== null) this.addInspection(line, line.disk);
    if (line.device) this.addDevice(line.tick, line.device);
    this.replayUpTo(this.settledTick());
  }

  /** The trace has ended: replays the ticks left and returns the verdict. */
  end(): ReplayResult {
    const last = this.options.ticks ?? this.latestTick;
    if (last - this.latestTick > MAX_TICK_GAP) {
      throw new TraceError(null, `ends at tick ${this.latestTick}: --ticks ${last} would replay more than ${MAX_TICK_GAP} ticks past it`);
    }
    this.holdToLines(last, null);
    this.replayUpTo(last);
    // The verdict check would give at the trace's end: a disk hung then, or with no
    // inspection completed, or whose rounds repeated would evict it, is not OK.
    this.pipeline.checkEnd(this.replayed * this.options.params.intervalMs);
    return {
      ticks: this.replayed,
      disks: [...this.disks.keys()],
      storeScore: this.pipeline.storeScore(),
      verdict: this.pipeline.verdict,
    };
  }

  /** Refuses to replay up to `tick` when that is more steps than the lines so far pay for (REPLAY_STEPS_PER_LINE). */
  private holdToLines(tick: number, lineNumber: number | null): void {
    const disks = Math.max(1, this.disks.size);
    const steps = tick * disks;
    const allowed = MAX_TICK_GAP + REPLAY_STEPS_PER_LINE * this.lines;
    if (steps <= allowed) return;
    const what = lineNumber === null ? `--ticks ${tick}` : `tick ${tick}`;
    throw new TraceError(
      lineNumber,
      `${what} of ${disks} disk${disks === 1 ? '' : 's'} is ${steps} steps of replay, more than the ${allowed} that ${this.lines} line${this.lines === 1 ? '' : 's'} allow (${MAX_TICK_GAP}, and ${REPLAY_STEPS_PER_LINE} a line): replay steps through every tick of every disk, lines or not`,
    );
  }

  private addInspection(line: TraceLine, name: string): void {
    let disk = this.disks.get(name);
    if (!disk) {
      if (this.replayed > 0) {
        throw new TraceError(
          line.line,
          `disk ${JSON.stringify(name)} is first named after tick ${this.replayed} was replayed; list every disk in the header's "disks"`,
        );
      }
      disk = new PendingLines(name);
      this.disks.set(name, disk);
      // Told to the pipeline once, before the first tick is replayed: telling it at each new
      // disk cost a pass over every disk known, quadratic in a trace naming thousands.
      this.joining = true;
    }
    disk.lastTick = line.tick;
    if (line.tick > this.replayed) {
      if (this.options.ticks === undefined || line.tick <= this.options.ticks) disk.push(line);
    } else if (countsForItsTick(line.ms, line.late, this.options.params.intervalMs)) {
      throw new TraceError(
        line.line,
        `tick ${line.tick} of disk ${JSON.stringify(name)} comes after tick ${this.latestTick}, more than ${SETTLE_WINDOW_TICKS} ticks late, yet it would count: keep each disk's lines within ${SETTLE_WINDOW_TICKS} ticks of the others`,
      );
    }
  }

  /**
   * The recorder writes a round's device lines as the round closes, before any result of a
   * later tick: one that comes after its tick was replayed is past the settle window, and
   * has nothing left to be shown with.
   */
  private addDevice(tick: number, device: DeviceFigures): void {
    if (tick <= this.replayed || (this.options.ticks !== undefined && tick > this.options.ticks)) return;
    const devices = this.devices.get(tick);
    if (devices) devices.push(device);
    else this.devices.set(tick, [device]);
  }

  /** The latest tick whose lines are all known. */
  private settledTick(): number {
    let settled = this.latestTick - SETTLE_WINDOW_TICKS;
    if (this.disksKnown && this.disks.size > 0) {
      let oldest = Infinity;
      for (const disk of this.disks.values()) oldest = Math.min(oldest, disk.lastTick);
      settled = Math.max(settled, oldest - 1);
    }
    return Math.min(settled, this.options.ticks ?? Infinity);
  }

  private replayUpTo(last: number): void {
    if (this.replayed >= last) return;
    if (this.joining) {
      this.pipeline.disks([...this.disks.keys()]);
      this.joining = false;
    }
    while (this.replayed < last) this.replay(this.replayed + 1);
  }

  /**
   * Tick k as the live run had it: it began at k x interval, with the figures recorded at
   * its close of a round, and each disk's inspection of it came back after the duration its
   * line has (one without a line never came back while recording).
   */
  private replay(k: number): void {
    const devices = this.devices.get(k);
    if (devices) {
      this.devices.delete(k);
      this.observer.devices?.(k, devices);
    }
    const atMs = k * this.options.params.intervalMs;
    this.tickEvent.tick = k;
    this.tickEvent.atMs = atMs;
    this.pipeline.tick(this.tickEvent);
    this.devicesEvent.tick = k;
    this.devicesEvent.devices = devices;
    const round = this.pipeline.devices(this.devicesEvent);
    if (round) this.observer.update?.(round);
    for (const disk of this.disks.values()) {
      const line = disk.take(k);
      if (line) {
        const event = this.inspection;
        event.tick = k;
        event.disk = disk.name;
        event.ms = line.ms;
        event.waitMs = line.waitMs ?? null;
        event.startWaitMs = line.startWaitMs ?? null;
        event.late = line.late;
        event.lost = line.lost === true;
        event.error = line.error;
        event.atMs = atMs + (line.ms ?? 0);
        this.pipeline.inspection(event);
      }
      this.observer.inspection?.(disk.name, k, line?.ms ?? null);
    }
    this.replayed = k;
  }
}

/** Replays a stream of line batches; stops reading once `ticks` ticks are replayed. */
export async function replayBatches(
  batches: AsyncIterable<TraceLine[]>,
  options: ReplayOptions,
  observer?: ReplayObserver,
): Promise<ReplayResult> {
  const engine = new ReplayEngine(options, observer);
  for await (const batch of batches) {
    for (const line of batch) engine.add(line);
    if (engine.done) break;
  }
  return engine.end();
}
