// From inspection events to the run's verdict and exit code: the one path a live run and a
// replay both take. It is fed what a trace records (the disks inspected, each tick as it
// begins with the block devices' figures of a round it closes, each inspection as its result
// came), each with the clock's reading, and owns what they make: the store's tick semantics
// (StoreTicks), the statistical detector, the early-warning predictor, the hang rule
// (in-flight.ts), and the verdict. Pure: no I/O, no timers, and the clock is the events'.
import { StatisticalDetector, type DetectorState } from '../detect/statistical-detector.js';
import type { StatisticalParams } from '../detect/statistical-params.js';
import { detectorSeverity } from '../detect/severity.js';
import { feedDetector } from '../detect/tick-feed.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { ScoreParams } from '../params.js';
import { predictionSeverity } from '../predict/prediction-severity.js';
import { PredictorFeed } from '../predict/predictor-feed.js';
import type { PredictorParams } from '../predict/predictor-params.js';
import type { Prediction } from '../predict/predictor.js';
import { worseSeverity, type Severity } from '../score/store-score.js';
import { StoreTicks } from '../ticks/store-ticks.js';
import { exitCodeOf } from './exit-codes.js';
import { checkEndSeverity, hangSeverity, type DiskAnswers } from './hang-verdict.js';
import { InFlightInspections } from './in-flight.js';
import { RunVerdict } from './run-verdict.js';

export interface PipelineParams {
  score: ScoreParams;
  statistical: StatisticalParams;
  predictor: PredictorParams;
  /** 'any': a disk the statistical detector confirms makes the verdict CRITICAL, not WARNING. */
  criticalOn: 'evict' | 'any';
  /** --hang-after: an inspection in flight this long makes the disk hung, and the run WARNING. */
  hangAfterMs: number;
}

/** A tick as it begins. `atMs`: the clock then; `devices`: the figures read at the close of the round it closes. */
export interface TickEvent {
  tick: number;
  atMs: number;
  devices?: readonly DeviceFigures[];
}

/** An inspection's result, as it came at `atMs`: its duration, or null when it failed. */
export interface InspectionEvent {
  tick: number;
  disk: string;
  ms: number | null;
  /** It came back under the interval, but after its tick had ended (a trace says so; live, the pipeline finds it). */
  late?: boolean;
  atMs: number;
}

/** What a round's close made of the store. */
export interface RoundVerdict {
  tick: number;
  /** On the ticks' scheduled clock: tick x interval. */
  timeMs: number;
  /** Each disk's score, unrounded, in the order of the disks. */
  scores: ReadonlyMap<string, number>;
  storeScore: number;
  /** Each disk's statistical detector state, in the order of the disks. */
  statistical: ReadonlyMap<string, DetectorState>;
  /** Each disk's early-warning prediction, once it has one. */
  predictions: ReadonlyMap<string, Prediction>;
  /** What the round made the run: the score's severity and the detectors'. */
  severity: Severity;
}

/** A disk whose inspection has just been in flight for --hang-after: told once per hang. */
export interface HungDisk {
  disk: string;
  waitingMs: number;
}

export interface TickOutput {
  tick: number;
  /** Disks whose inspection for this tick starts now. */
  start: string[];
  hung: HungDisk[];
  /** Set when the tick closed a round. */
  round: RoundVerdict | null;
}

export interface InspectionOutput {
  /** It came back within its own tick, and so counted for it. */
  counted: boolean;
  /** It came back under the interval but after its tick ended: charged as a timeout. */
  late: boolean;
  /** It was the inspection in flight on a disk told hung: the hang is over. */
  hangEnded: boolean;
}

/** One inspected disk, as the pipeline has it at a clock reading. */
export interface DiskVerdict {
  score: number;
  statistical: DetectorState;
  prediction?: Prediction;
  /** How long its inspection in flight has been running, once it has missed its tick. */
  waitingMs?: number;
  hung: boolean;
}

/** The counts of a disk's inspections since the start: one that leaves or restarts keeps them. */
export interface InspectionCounts {
  inspections: number;
  errors: number;
}

/** Whether a result counts for its tick, once its tick is current: it came back within the interval, and in time. */
export function countsForItsTick(ms: number | null, late: boolean, intervalMs: number): ms is number {
  return ms !== null && !late && ms < intervalMs;
}

type Answers = DiskAnswers & { state: 'hung' | 'answering' };

export class VerdictPipeline {
  private readonly ticks: StoreTicks;
  private readonly detector: StatisticalDetector;
  private readonly predictions: PredictorFeed;
  private readonly inFlight: InFlightInspections;
  readonly verdict: RunVerdict;
  private readonly counts = new Map<string, InspectionCounts>();
  /** The inspected disks' answers to the hang rule, kept from tick to tick (and as a list, for the rules on them). */
  private readonly answers = new Map<string, Answers>();
  private answerList: Answers[] = [];
  /** Disks told hung, until their inspection in flight comes back or they are another disk. */
  private readonly hungTold = new Set<string>();
  /** The clock at the current tick's start. */
  private tickAtMs = 0;

  constructor(private readonly params: PipelineParams) {
    const { intervalMs } = params.score;
    this.detector = new StatisticalDetector(params.statistical);
    this.predictions = new PredictorFeed(params.predictor, intervalMs);
    const detectorFeed = feedDetector(this.detector, intervalMs);
    this.ticks = new StoreTicks(params.score, (disk, tickId, durationMs) => {
      detectorFeed(disk, tickId, durationMs);
      this.predictions.outcome(disk, tickId, durationMs);
    });
    this.inFlight = new InFlightInspections(params.hangAfterMs);
    this.verdict = new RunVerdict(params.score);
  }

  get currentTick(): number {
    return this.ticks.currentTick;
  }

  /** The inspected disks are these now: one that joins is scored from 1, one that leaves is forgotten. */
  disks(names: readonly string[]): void {
    for (const name of [...this.answers.keys()]) if (!names.includes(name)) this.forget(name);
    for (const name of names) if (!this.answers.has(name)) this.answer(name);
    this.ticks.setInspected(names, this.scheduledMs());
  }

  /** Another filesystem took the disk's place: it is another disk, scored from 1. */
  restart(disk: string): void {
    this.forget(disk);
    this.answer(disk);
    this.ticks.restart(disk, this.scheduledMs());
  }

  tick(event: TickEvent): TickOutput {
    const { tick, atMs } = event;
    this.tickAtMs = atMs;
    const { start, updated } = this.ticks.tick(tick * this.params.score.intervalMs);
    const hung: HungDisk[] = [];
    for (const answers of this.answerList) {
      this.inFlight.tick(answers.name, tick, atMs);
      const told = this.judgeHang(answers, atMs);
      if (told) hung.push(told);
    }
    this.verdict.note(hangSeverity(this.answerList));
    this.predictions.tick(tick, event.devices);
    return { tick, start, hung, round: updated ? this.closeRound(tick) : null };
  }

  inspection(event: InspectionEvent): InspectionOutput | null {
    const { tick, disk, ms } = event;
    const answers = this.answers.get(disk);
    // A disk no longer inspected: its last inspection says nothing of it.
    if (!answers) return null;
    const startedMs = tick === this.ticks.currentTick ? this.tickAtMs : event.atMs;
    const hangEnded = this.inFlight.ended(disk, tick, startedMs, event.atMs) && this.hungTold.delete(disk);
    const counts = this.countsOf(disk);
    if (ms === null) {
      counts.errors += 1;
      this.predictions.failed(disk, tick);
      this.ticks.failed(disk, tick);
      return { counted: false, late: false, hangEnded };
    }
    counts.inspections += 1;
    answers.inspections = counts.inspections;
    const { intervalMs } = this.params.score;
    const late = event.late === true;
    // Only a result that came back within its own tick counts for it; any other is charged as a timeout.
    const counted = countsForItsTick(ms, late, intervalMs) && this.ticks.finished(disk, tick, ms);
    if (!counted) this.ticks.failed(disk, tick);
    return { counted, late: late || (!counted && ms < intervalMs), hangEnded };
  }

  /**
   * The disk's inspection is left to the prober of another run, stuck there since `sinceMs`;
   * none of this run's starts there until it is abandoned. Told at once if it is hung already.
   */
  elsewhere(disk: string, sinceMs: number, atMs: number): HungDisk | null {
    const answers = this.answers.get(disk);
    if (!answers) return null;
    this.inFlight.elsewhere(disk, sinceMs);
    const told = this.judgeHang(answers, atMs);
    this.verdict.note(hangSeverity([answers]));
    return told;
  }

  /** The disk's inspection in flight will never come back: the next tick starts a new one. A hang told stays so until that one does. */
  abandoned(disk: string): void {
    this.ticks.abandon(disk);
    this.inFlight.forget(disk);
  }

  /** A disk as it is at `nowMs`; undefined for one not inspected. */
  disk(name: string, nowMs: number): DiskVerdict | undefined {
    const answers = this.answers.get(name);
    if (!answers) return undefined;
    const waiting = this.inFlight.waitingMs(name, nowMs);
    const verdict: DiskVerdict = {
      score: this.ticks.scoreOf(name) ?? 1,
      statistical: this.detector.state(name),
      hung: this.inFlight.hung(name, nowMs),
    };
    const prediction = this.predictions.predictionOf(name);
    if (prediction) verdict.prediction = prediction;
    if (waiting !== null && waiting > this.params.score.intervalMs) verdict.waitingMs = waiting;
    return verdict;
  }

  countsOf(name: string): InspectionCounts {
    let counts = this.counts.get(name);
    if (!counts) this.counts.set(name, (counts = { inspections: 0, errors: 0 }));
    return counts;
  }

  storeScore(): number {
    return this.ticks.storeScore();
  }

  /** Ticks charged as timeouts per disk since the start: the metrics' counter. */
  chargedTimeouts(): ReadonlyMap<string, number> {
    return this.ticks.chargedTimeouts();
  }

  /** A check ends at `atMs`: a disk hung then, or with no inspection completed, leaves it nothing to call OK. */
  checkEnd(atMs: number): Severity {
    for (const answers of this.answerList) answers.state = this.inFlight.hung(answers.name, atMs) ? 'hung' : 'answering';
    const severity = checkEndSeverity(this.answerList);
    this.verdict.note(severity);
    return severity;
  }

  /** The run's exit code from its verdict so far. */
  exitCode(): number {
    return exitCodeOf(this.verdict.severity);
  }

  private closeRound(tick: number): RoundVerdict {
    const storeScore = this.ticks.storeScore();
    const scores = this.ticks.scores();
    const statistical = new Map<string, DetectorState>();
    const predictions = new Map<string, Prediction>();
    for (const disk of scores.keys()) {
      statistical.set(disk, this.detector.state(disk));
      const prediction = this.predictions.predictionOf(disk);
      if (prediction) predictions.set(disk, prediction);
    }
    const detected = detectorSeverity(statistical.values(), { confirmedIsCritical: this.params.criticalOn === 'any' });
    const severity = this.verdict.observe(storeScore, worseSeverity(detected, predictionSeverity(predictions.values())));
    return { tick, timeMs: tick * this.params.score.intervalMs, scores, storeScore, statistical, predictions, severity };
  }

  /** Applies the hang rule to the disk at `atMs`; returns it when its hang is new. */
  private judgeHang(answers: Answers, atMs: number): HungDisk | null {
    const hung = this.inFlight.hung(answers.name, atMs);
    answers.state = hung ? 'hung' : 'answering';
    if (!hung || this.hungTold.has(answers.name)) return null;
    this.hungTold.add(answers.name);
    return { disk: answers.name, waitingMs: this.inFlight.waitingMs(answers.name, atMs)! };
  }

  private answer(disk: string): void {
    this.answers.set(disk, { name: disk, inspected: true, state: 'answering', inspections: this.countsOf(disk).inspections });
    this.answerList = [...this.answers.values()];
  }

  private forget(disk: string): void {
    this.answers.delete(disk);
    this.answerList = [...this.answers.values()];
    this.inFlight.forget(disk);
    this.hungTold.delete(disk);
    this.detector.forget(disk);
    this.predictions.forget(disk);
  }

  private scheduledMs(): number {
    return this.ticks.currentTick * this.params.score.intervalMs;
  }
}
