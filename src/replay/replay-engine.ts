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
import { DEFAULT_PROBE_PARAMS, type ScoreParams } from '../params.js';
import { RunVerdict, worseSeverity, type Severity } from '../score/store-score.js';
import { StoreTicks } from '../ticks/store-ticks.js';
import { detectorSeverity } from '../detect/severity.js';
import { StatisticalDetector, type DetectorState } from '../detect/statistical-detector.js';
import { statisticalParams, type StatisticalParams } from '../detect/statistical-params.js';
import { feedDetector } from '../detect/tick-feed.js';
import { PredictorFeed } from '../predict/predictor-feed.js';
import { predictorParams, type PredictorParams } from '../predict/predictor-params.js';
import type { Prediction } from '../predict/predictor.js';
import { predictionSeverity } from '../predict/prediction-severity.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { TraceLine } from '../trace/trace-format.js';
import { MAX_TICK_GAP, TraceError } from '../trace/trace-reader.js';

/** One hour of 100 ms ticks: longer than any wait for a result that counts. */
export const SETTLE_WINDOW_TICKS = 36_000;

export interface ScoreUpdate {
  tick: number;
  /** On the virtual clock: tick x interval. */
  timeMs: number;
  /** Each disk's score, unrounded, in the order of the disks. */
  scores: ReadonlyMap<string, number>;
  storeScore: number;
  /** Each disk's statistical detector state, in the order of the disks. */
  statistical: ReadonlyMap<string, DetectorState>;
  /** Each disk's early-warning prediction, once it has one. */
  predictions: ReadonlyMap<string, Prediction>;
  severity: Severity;
}

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
  /** 'any': a disk the detector confirms makes the verdict CRITICAL, as in watch and check. */
  criticalOn?: 'evict' | 'any';
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
  /** On the virtual clock: when the inspection in flight started, and when the latest one replayed ended. */
  inFlightSinceMs = 0;
  endedMs = 0;

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
  private readonly ticks: StoreTicks;
  private readonly verdict: RunVerdict;
  private readonly detector: StatisticalDetector;
  private readonly predictions: PredictorFeed;
  private readonly disks = new Map<string, PendingLines>();
  private readonly disksKnown: boolean;
  /** Device lines by tick, until the tick is replayed. */
  private readonly devices = new Map<number, DeviceFigures[]>();
  private replayed = 0;
  private latestTick = 0;

  constructor(
    private readonly options: ReplayOptions,
    private readonly observer: ReplayObserver = {},
  ) {
    this.detector = new StatisticalDetector(options.statistical ?? statisticalParams({ failureLatencyMs: options.params.timeoutMs }));
    const { intervalMs, timeoutMs } = options.params;
    this.predictions = new PredictorFeed(options.predictor ?? predictorParams({ timeoutMs }), intervalMs);
    const detectorFeed = feedDetector(this.detector, intervalMs);
    this.ticks = new StoreTicks(options.params, (disk, tickId, durationMs) => {
      detectorFeed(disk, tickId, durationMs);
      this.predictions.outcome(disk, tickId, durationMs);
    });
    this.verdict = new RunVerdict(options.params);
    this.disksKnown = options.disks !== undefined;
    for (const name of options.disks ?? []) this.disks.set(name, new PendingLines(name));
    this.ticks.setInspected([...this.disks.keys()], 0);
  }

  /** With `ticks`, all of them have been replayed: the rest of the trace is not needed. */
  get done(): boolean {
    return this.options.ticks !== undefined && this.replayed >= this.options.ticks;
  }

  add(line: TraceLine): void {
    if (line.tick > this.latestTick) this.latestTick = line.tick;
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
    this.replayUpTo(last);
    return {
      ticks: this.replayed,
      disks: [...this.disks.keys()],
      storeScore: this.ticks.storeScore(),
      verdict: this.verdict,
    };
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
      this.ticks.setInspected([...this.disks.keys()], 0);
    }
    disk.lastTick = line.tick;
    if (line.tick > this.replayed) {
      if (this.options.ticks === undefined || line.tick <= this.options.ticks) disk.push(line);
    } else if (this.counts(line)) {
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

  /** A result counts at its tick when it came back within the interval, in time. */
  private counts(line: TraceLine): line is TraceLine & { ms: number } {
    return line.ms !== null && line.ms < this.options.params.intervalMs && !line.late;
  }

  private replayUpTo(last: number): void {
    while (this.replayed < last) this.replay(this.replayed + 1);
  }

  private replay(k: number): void {
    const devices = this.devices.get(k);
    if (devices) {
      this.devices.delete(k);
      this.observer.devices?.(k, devices);
    }
    const tick = this.ticks.tick(k * this.options.params.intervalMs);
    // As live: the round's device figures are read at its close, after the tick's charges.
    this.predictions.tick(k, devices);
    if (tick.updated) this.emitUpdate(k);
    // Every disk's inspection is settled within its own tick, so none is left in flight to
    // block the next tick's: one that did not count is charged as a timeout at k+1.
    for (const disk of this.disks.values()) {
      const line = disk.take(k);
      if (line && this.counts(line)) {
        this.ticks.finished(disk.name, k, line.ms);
      } else {
        if (line && line.ms === null) this.predictions.failed(disk.name, k);
        this.ticks.failed(disk.name, k);
      }
      this.observer.inspection?.(disk.name, k, line?.ms ?? null);
      if (this.hungAt(disk, k, line)) this.verdict.note('slow');
    }
    this.replayed = k;
  }

  /**
   * Whether the disk was hung at tick k, as the live run saw it: an inspection starts at a
   * tick and its line is at that tick, with its duration, so one in flight at k is one whose
   * line says it ends after k, or one that started at the first tick after the last one
   * ended and never wrote a line (it never returned while recording).
   */
  private hungAt(disk: PendingLines, k: number, line: TraceLine | undefined): boolean {
    const nowMs = k * this.options.params.intervalMs;
    if (line) {
      disk.inFlightSinceMs = nowMs;
      disk.endedMs = nowMs + (line.ms ?? 0);
    } else if (disk.endedMs !== -Infinity && disk.endedMs <= nowMs) {
      // The last one ended: this tick's started, and never came back.
      disk.inFlightSinceMs = nowMs;
      disk.endedMs = -Infinity;
    }
    const inFlight = disk.endedMs === -Infinity || disk.endedMs > nowMs;
    return inFlight && nowMs - disk.inFlightSinceMs >= (this.options.hangAfterMs ?? DEFAULT_PROBE_PARAMS.hangAfterMs);
  }

  private emitUpdate(k: number): void {
    const storeScore = this.ticks.storeScore();
    const scores = this.ticks.scores();
    const statistical = new Map([...scores.keys()].map((disk) => [disk, this.detector.state(disk)]));
    const predictions = new Map<string, Prediction>();
    for (const disk of scores.keys()) {
      const prediction = this.predictions.predictionOf(disk);
      if (prediction) predictions.set(disk, prediction);
    }
    const detected = detectorSeverity(statistical.values(), { confirmedIsCritical: this.options.criticalOn === 'any' });
    const severity = this.verdict.observe(storeScore, worseSeverity(detected, predictionSeverity(predictions.values())));
    this.observer.update?.({ tick: k, timeMs: k * this.options.params.intervalMs, scores, storeScore, statistical, predictions, severity });
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
