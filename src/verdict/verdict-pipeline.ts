// From inspection events to the run's verdict and exit code: the one path a live run and a
// replay both take. It is fed what a trace records (the disks inspected, each tick as it
// begins, then the block devices' figures read once its inspections are started, at the
// close of a round, and each inspection as its result came), each with the clock's reading,
// and owns what they make: the store's tick semantics (StoreTicks), the statistical
// detector and the tail detector, the early-warning predictor, the hang rule (in-flight.ts), the verdict and the
// exit code. Pure: no I/O, no timers, and the clock is the events'.
import { StatisticalDetector, type Confirmation, type DetectorState } from '../detectors/statistical-detector.js';
import type { StatisticalParams } from '../detectors/statistical-params.js';
import { detectorSeverity } from '../detectors/severity.js';
import { feedDetector } from '../detectors/tick-feed.js';
import { TailDetector, type TailState } from '../detectors/tail-detector.js';
import { tailParams, type TailParams } from '../detectors/tail-params.js';
import { recordedFigures, type DeviceFigures } from '../kernel/device-counters.js';
import type { ScoreParams } from '../score/score-params.js';
import { predictionSeverity } from '../early-warning/prediction-severity.js';
import { PredictorFeed } from '../early-warning/predictor-feed.js';
import type { PredictorParams } from '../early-warning/predictor-params.js';
import type { Prediction } from '../early-warning/predictor.js';
import { severityOf, worseSeverity, type Severity } from '../score/store-score.js';
import { StoreTicks } from '../score/store-ticks.js';
import { exitCodeOf } from './exit-codes.js';
import { checkEndSeverity, hangSeverity, type DiskAnswers } from './hang-verdict.js';
import { downSeverity, isUnwritable, NOT_JUDGED_CODE } from './down-verdict.js';
import { risingSeverity } from './rising-verdict.js';
import { InFlight } from './in-flight.js';
import { RunVerdict } from './run-verdict.js';
import { ThresholdCrossings, type ThresholdCrossing } from './threshold-crossings.js';
import { emptyRound, SlowCauses, type RoundInspections, type SlowCause } from './slow-cause.js';
import { microseconds } from '../common/microseconds.js';
import { actedScoreOf, isBusyCause, warningBasisOf, type BusyVerdict, type WarningBasis } from './busy-verdict.js';

export interface PipelineParams {
  score: ScoreParams;
  statistical: StatisticalParams;
  /** The tail detector's; by default its defaults, a tick with no result counting as the timeout. */
  tail?: TailParams;
  predictor: PredictorParams;
  /** 'any': a disk the statistical or the tail detector confirms makes the verdict CRITICAL, not WARNING. */
  criticalOn: 'evict' | 'any';
  /** --hang-after: an inspection in flight this long makes the disk hung, and the run WARNING. */
  hangAfterMs: number;
  /** --busy: 'warning' holds a busy disk at the eviction threshold (busy-verdict.ts); 'critical', the score alone decides. */
  busy: BusyVerdict;
}

/** What the verdict makes of a confirmed disk and of a busy one: --critical-on and --busy. */
export type VerdictParams = Pick<PipelineParams, 'criticalOn' | 'busy'>;

/** A tick as it begins, `atMs` the clock then. */
export interface TickEvent {
  tick: number;
  atMs: number;
}

/**
 * What the block devices did over the round a tick closes, read once the tick's inspections
 * are started (none on a tick that closes no round): every tick has one, after its start.
 */
export interface DevicesEvent {
  tick: number;
  devices?: readonly DeviceFigures[];
}

/** An inspection's result, as it came at `atMs`: its duration, or null when it failed. */
export interface InspectionEvent {
  tick: number;
  disk: string;
  ms: number | null;
  /** The time the probe thread waited for a CPU during it, and before it (PhaseTimings'); null or absent where unknown. */
  waitMs?: number | null;
  startWaitMs?: number | null;
  /** It came back under the interval, but after its tick had ended (a trace says so; live, the pipeline finds it). */
  late?: boolean;
  /** No inspection was made: its probe file's name was taken (a name race lost), no fault of the disk. */
  lost?: boolean;
  atMs: number;
  /** A failed inspection's errno name: one that says the disk cannot be written makes the run CRITICAL. */
  error?: string;
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
  /** Whether the detector has judged a step of each disk yet: until then its state is no verdict (warming up). */
  statisticalJudged: ReadonlyMap<string, boolean>;
  /** How each confirmed disk's statistical confirmation was reached: the fast path or the article's rules. */
  confirmations: ReadonlyMap<string, Confirmation>;
  /** Whether the tail detector has a baseline for each disk yet: until then its state is no verdict. */
  tailJudged: ReadonlyMap<string, boolean>;
  /** Each disk's tail detector state, in the order of the disks. */
  tail: ReadonlyMap<string, TailState>;
  /** Each disk's early-warning prediction, once it has one. */
  predictions: ReadonlyMap<string, Prediction>;
  /** What the round made the run: the score's severity and the detectors'. */
  severity: Severity;
  /** The thresholds the reported store score crossed at this round (threshold-crossings.ts). */
  crossings: readonly ThresholdCrossing[];
  /** Why each disk slow in the round was slow (slow-cause.ts); the others have none. */
  causes: ReadonlyMap<string, SlowCause>;
  /** What each disk in state warning is warned of, from its round judged as a slow one's. */
  warningOf: ReadonlyMap<string, WarningBasis>;
  /** The disks at the eviction threshold held from it because they are busy, with the cause that says so (busy-verdict.ts). */
  held: ReadonlyMap<string, SlowCause>;
  /** The store's score over the disks not held: what the verdict and the evict hook act on; the store score when none is held. */
  actedScore: number;
}

/** A disk whose inspection has just been in flight for --hang-after: told once per hang. */
export interface HungDisk {
  disk: string;
  waitingMs: number;
  /** When the inspection in flight started, on the events' clock. */
  sinceMs: number;
}

export interface TickOutput {
  tick: number;
  hung: readonly HungDisk[];
  /** The tick closes a round: its devices event brings the round's verdict. */
  closesRound: boolean;
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
  tail: TailState;
  prediction?: Prediction;
  /** How long its inspection in flight has been running, once it has missed its tick. */
  waitingMs?: number;
  /** When its inspection in flight started, on the events' clock, if one is. */
  inFlightSinceMs?: number;
  hung: boolean;
  /** The statistical detector has judged a step of it against a baseline: its state is a verdict, not a default. */
  statisticalJudged: boolean;
  /** Confirmed by the statistical detector: by which path, and how long after its deviation began. */
  confirmation?: Confirmation;
  /** The tail detector has a baseline for it: its state is a verdict, not a default. */
  tailJudged: boolean;
  /** How long a continuous run repeating its recent rounds would take to evict it: null if never. */
  evictionInMs: number | null;
  /** Another filesystem took its place during the run. */
  filesystemChanged: boolean;
  /** Why it was slow in the last round, if it was. */
  cause?: SlowCause;
  /** It was held from eviction at the last round because it is busy: the cause that says so. */
  held?: SlowCause;
  /** In state warning at the last round: what the warning is of. */
  warningOf?: WarningBasis;
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

/** Each outcome of an inspection, made once: a replay of a day has 1.7 million of them. */
const OUTCOMES: readonly InspectionOutput[] = Array.from({ length: 8 }, (_, bits) =>
  Object.freeze({ counted: (bits & 4) !== 0, late: (bits & 2) !== 0, hangEnded: (bits & 1) !== 0 }),
);
const outcome = (counted: boolean, late: boolean, hangEnded: boolean) => OUTCOMES[(counted ? 4 : 0) | (late ? 2 : 0) | (hangEnded ? 1 : 0)]!;

/** A round without the devices' figures. */
const NO_DEVICES: readonly DeviceFigures[] = Object.freeze([]);

/** No disk told hung at a tick: the usual answer, made once. */
const NONE_HUNG: readonly HungDisk[] = Object.freeze([]);

/** An inspected disk: its answers to the hang rule, kept from tick to tick. */
interface InspectedDisk extends DiskAnswers {
  state: 'hung' | 'answering';
  inFlight: InFlight;
  counts: InspectionCounts;
  /** Its last inspection failed with an error that says it cannot be written. */
  unwritable: boolean;
  /** Another filesystem took its place during the run. */
  filesystemChanged: boolean;
  /** The cause of its last slow round: what its score is charged to until another slow round says otherwise. */
  slowCause?: SlowCause;
  /** Its inspections that came back since the last round's close, to the microsecond a trace keeps. */
  round: RoundInspections;
}

export class VerdictPipeline {
  private readonly ticks: StoreTicks;
  private readonly detector: StatisticalDetector;
  private readonly tail: TailDetector;
  private readonly predictions: PredictorFeed;
  readonly verdict: RunVerdict;
  private readonly crossings: ThresholdCrossings;
  private readonly causes = new SlowCauses();
  /** Each disk's ticks charged as timeouts at the last round's close: one charged since was slow in the round. */
  private chargedAtRound: ReadonlyMap<string, number> = new Map();
  private lastCauses: ReadonlyMap<string, SlowCause> = new Map();
  private lastHeld: ReadonlyMap<string, SlowCause> = new Map();
  private lastWarningOf: ReadonlyMap<string, WarningBasis> = new Map();
  private readonly counts = new Map<string, InspectionCounts>();
  /** The inspected disks, also as a list for the rules on them. */
  private readonly inspected = new Map<string, InspectedDisk>();
  private inspectedList: InspectedDisk[] = [];
  /** The clock at the current tick's start, and whether that tick closes a round. */
  private tickAtMs = 0;
  private closesRound = false;

  constructor(private readonly params: PipelineParams) {
    const { intervalMs } = params.score;
    this.detector = new StatisticalDetector(params.statistical);
    this.predictions = new PredictorFeed(params.predictor, intervalMs);
    this.tail = new TailDetector(params.tail ?? tailParams({ failureLatencyMs: params.score.timeoutMs }));
    const detectorFeed = feedDetector(this.detector, intervalMs);
    const tailFeed = feedDetector(this.tail, intervalMs);
    this.ticks = new StoreTicks(params.score, (disk, tickId, durationMs) => {
      detectorFeed(disk, tickId, durationMs);
      // The whole time, the probe thread's waits for a CPU included: when it waits, so do the
      // kernel's threads behind the disk's I/O, whose waits no reading takes out. Less its own
      // waits alone, a healthy disk's tail still rises with the host's load, over a baseline
      // lowered in its quiet minutes (docs/design/tail-detector.md).
      tailFeed(disk, tickId, durationMs);
      this.predictions.outcome(disk, tickId, durationMs);
    });
    this.verdict = new RunVerdict(params.score);
    this.crossings = new ThresholdCrossings(params.score);
  }

  get currentTick(): number {
    return this.ticks.currentTick;
  }

  /** The inspected disks are these now: one that joins is scored from 1, one that leaves is forgotten. */
  disks(names: readonly string[]): void {
    const wanted = new Set(names);
    for (const name of [...this.inspected.keys()]) if (!wanted.has(name)) this.forget(name);
    for (const name of names) if (!this.inspected.has(name)) this.join(name);
    this.inspectedList = [...this.inspected.values()];
    this.ticks.setInspected(names, this.scheduledMs());
  }

  /**
   * Another filesystem took the disk's place: it is another disk, scored from 1, and the run
   * is WARNING from now on (its data may be on neither).
   */
  restart(disk: string): void {
    this.forget(disk);
    this.join(disk);
    this.filesystemChanged(disk);
    this.ticks.restart(disk, this.scheduledMs());
  }

  /** The disk is on another filesystem than it was (in this run, or at the last run that remembers it): WARNING from now on. */
  filesystemChanged(disk: string): void {
    const inspected = this.inspected.get(disk);
    if (inspected) inspected.filesystemChanged = true;
    this.verdict.note('slow');
  }

  /** A tick begins: the ticks charged, the inspections it starts (in-flight.ts), and the disks hung by then. */
  tick(event: TickEvent): TickOutput {
    const { tick, atMs } = event;
    this.tickAtMs = atMs;
    const { updated } = this.ticks.tick(tick * this.params.score.intervalMs);
    this.closesRound = updated;
    let hung: HungDisk[] | null = null;
    let anyHung = false;
    for (let i = 0; i < this.inspectedList.length; i += 1) {
      const disk = this.inspectedList[i]!;
      disk.inFlight.tick(tick, atMs);
      const told = this.judgeHang(disk, atMs);
      if (told) (hung ??= []).push(told);
      anyHung ||= disk.state === 'hung';
    }
    if (anyHung) this.verdict.note(hangSeverity(this.inspectedList));
    return { tick, hung: hung ?? NONE_HUNG, closesRound: updated };
  }

  /**
   * The rest of the tick's start, once its inspections are on their way (live, the predictor
   * and the round's verdict wait for them, not they for it): the round's verdict when the
   * tick closes one.
   */
  devices(event: DevicesEvent): RoundVerdict | null {
    const { tick } = event;
    this.predictions.tick(tick, event.devices);
    return this.closesRound ? this.closeRound(tick, event.devices) : null;
  }

  /** An inspection's result came: null for a disk not inspected (any more). */
  inspection(event: InspectionEvent): InspectionOutput | null {
    const { tick, disk, ms } = event;
    const inspected = this.inspected.get(disk);
    // A disk no longer inspected: its last inspection says nothing of it.
    if (!inspected) return null;
    const startedMs = tick === this.ticks.currentTick ? this.tickAtMs : event.atMs;
    const hangEnded = inspected.inFlight.ended(tick, startedMs, event.atMs);
    const { counts } = inspected;
    if (event.lost === true) {
      // The directory's finding, not the disk's: neither counted nor charged.
      this.ticks.voided(disk, tick);
      return outcome(false, false, hangEnded);
    }
    if (ms === null && event.error === NOT_JUDGED_CODE) {
      // Nothing seen of the disk from here: neither counted nor charged, and not OK either.
      this.ticks.voided(disk, tick);
      this.verdict.note('slow');
      return outcome(false, false, hangEnded);
    }
    inspected.unwritable = ms === null && isUnwritable(event.error);
    if (inspected.unwritable) this.verdict.note('evict');
    if (ms === null) {
      counts.errors += 1;
      this.predictions.failed(disk, tick);
      return outcome(false, false, hangEnded);
    }
    counts.inspections += 1;
    inspected.inspections = counts.inspections;
    this.addToRound(inspected.round, ms, event);
    const { intervalMs } = this.params.score;
    const late = event.late === true;
    // Only a result that came back within its own tick counts for it; any other is charged as a timeout.
    const counted = countsForItsTick(ms, late, intervalMs) && this.ticks.finished(disk, tick, ms);
    return outcome(counted, late || (!counted && ms < intervalMs), hangEnded);
  }

  /**
   * The disk's inspection is left to the prober of another run, stuck there since `sinceMs`;
   * none of this run's starts there until it is abandoned. Told at once if it is hung already.
   */
  elsewhere(disk: string, sinceMs: number, atMs: number): HungDisk | null {
    const inspected = this.inspected.get(disk);
    if (!inspected) return null;
    inspected.inFlight.elsewhere(sinceMs);
    const told = this.judgeHang(inspected, atMs);
    this.verdict.note(hangSeverity([inspected]));
    return told;
  }

  /** The disk's inspection in flight will never come back: the next tick starts a new one. A hang told stays so until that one does. */
  abandoned(disk: string): void {
    this.inspected.get(disk)?.inFlight.forget();
  }

  /** A disk as it is at `nowMs`; undefined for one not inspected. */
  disk(name: string, nowMs: number): DiskVerdict | undefined {
    const inspected = this.inspected.get(name);
    if (!inspected) return undefined;
    const waiting = inspected.inFlight.waitingMs(nowMs);
    const verdict: DiskVerdict = {
      score: this.ticks.scoreOf(name) ?? 1,
      statistical: this.detector.state(name),
      tail: this.tail.state(name),
      hung: inspected.inFlight.hung(nowMs, this.params.hangAfterMs),
      statisticalJudged: this.detector.judged(name),
      tailJudged: this.tail.judged(name),
      filesystemChanged: inspected.filesystemChanged,
      evictionInMs: this.ticks.projectedEvictionMs(name),
    };
    const confirmation = this.detector.confirmation(name);
    if (confirmation) verdict.confirmation = confirmation;
    const prediction = this.predictions.predictionOf(name);
    if (prediction) verdict.prediction = prediction;
    const cause = this.lastCauses.get(name);
    if (cause) verdict.cause = cause;
    const held = this.lastHeld.get(name);
    if (held) verdict.held = held;
    const warningOf = this.lastWarningOf.get(name);
    if (warningOf) verdict.warningOf = warningOf;
    if (waiting !== null) verdict.inFlightSinceMs = inspected.inFlight.sinceMs(nowMs)!;
    if (waiting !== null && waiting > this.params.score.intervalMs) verdict.waitingMs = waiting;
    return verdict;
  }

  /** When the first disk not told hung yet would be, if its inspection in flight at `nowMs` does not come back: a live run looks again then. */
  nextHangAtMs(nowMs: number): number | null {
    let first: number | null = null;
    for (const disk of this.inspectedList) {
      const since = disk.inFlight.untoldSinceMs(nowMs);
      if (since !== null && (first === null || since < first)) first = since;
    }
    return first === null ? null : first + this.params.hangAfterMs;
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

  /**
   * A check ends at `atMs`: a disk hung then, or with no inspection completed, or whose rounds
   * repeated would evict it, leaves it nothing to call OK.
   */
  checkEnd(atMs: number): Severity {
    for (const disk of this.inspectedList) disk.state = disk.inFlight.hung(atMs, this.params.hangAfterMs) ? 'hung' : 'answering';
    const projections = this.inspectedList.map((disk) => ({ name: disk.name, evictionInMs: this.ticks.projectedEvictionMs(disk.name) }));
    const severity = worseSeverity(checkEndSeverity(this.inspectedList), risingSeverity(projections));
    this.verdict.note(severity);
    return severity;
  }

  /** The run's exit code from its verdict so far. */
  exitCode(): number {
    return exitCodeOf(this.verdict.severity);
  }

  private closeRound(tick: number, devices: readonly DeviceFigures[] | undefined): RoundVerdict {
    const storeScore = this.ticks.storeScore();
    const scores = this.ticks.scores();
    const statistical = new Map<string, DetectorState>();
    const statisticalJudged = new Map<string, boolean>();
    const tail = new Map<string, TailState>();
    const tailJudged = new Map<string, boolean>();
    const predictions = new Map<string, Prediction>();
    const confirmations = new Map<string, Confirmation>();
    for (const disk of scores.keys()) {
      statistical.set(disk, this.detector.state(disk));
      const confirmation = this.detector.confirmation(disk);
      if (confirmation) confirmations.set(disk, confirmation);
      statisticalJudged.set(disk, this.detector.judged(disk));
      tail.set(disk, this.tail.state(disk));
      tailJudged.set(disk, this.tail.judged(disk));
      const prediction = this.predictions.predictionOf(disk);
      if (prediction) predictions.set(disk, prediction);
    }
    const confirmedIsCritical = this.params.criticalOn === 'any';
    const detected = worseSeverity(detectorSeverity(statistical.values(), { confirmedIsCritical }), detectorSeverity(tail.values(), { confirmedIsCritical }));
    const down = downSeverity(this.inspectedList.map((disk) => disk.unwritable));
    const moved: Severity = this.inspectedList.some((disk) => disk.filesystemChanged) ? 'slow' : 'ok';
    const causes = this.roundCauses(devices, statistical, tail, predictions);
    const held = this.heldDisks(scores);
    const actedScore = held.size === 0 ? storeScore : actedScoreOf([...scores].map(([name, score]) => ({ score, held: held.get(name) })));
    const heldSeverity: Severity = held.size === 0 ? 'ok' : 'slow';
    const also = [predictionSeverity(predictions.values()), down, moved, heldSeverity].reduce(worseSeverity, detected);
    const severity = this.verdict.observe(storeScore, also, actedScore);
    const crossings = this.crossings.round(storeScore, scores);
    const warningOf = this.lastWarningOf;
    return { tick, timeMs: tick * this.params.score.intervalMs, scores, storeScore, statistical, statisticalJudged, confirmations, tail, tailJudged, predictions, severity, crossings, causes, warningOf, held, actedScore };
  }

  /** The disks at the eviction threshold whose last slow round was busy, not hung: held from eviction unless --busy critical. */
  private heldDisks(scores: ReadonlyMap<string, number>): ReadonlyMap<string, SlowCause> {
    const held = new Map<string, SlowCause>();
    if (this.params.busy === 'warning') {
      for (const disk of this.inspectedList) {
        const score = scores.get(disk.name);
        if (score === undefined || severityOf(score, this.params.score) !== 'evict') continue;
        if (disk.state !== 'hung' && isBusyCause(disk.slowCause)) held.set(disk.name, disk.slowCause!);
      }
    }
    this.lastHeld = held;
    return held;
  }

  /**
   * The cause of each disk slow in the round: charged a timeout in it, hung, or doubted by a
   * detector; none for a disk that cannot be written: it is down, not slow. Without
   * the devices' figures (a trace recorded without them) only the inspections' wait for a CPU
   * can tell it. A disk in state warning is judged as a slow one (its devices learn nothing
   * while it is), for what its warning is of.
   */
  private roundCauses(
    devices: readonly DeviceFigures[] | undefined,
    statistical: ReadonlyMap<string, DetectorState>,
    tail: ReadonlyMap<string, TailState>,
    predictions: ReadonlyMap<string, Prediction>,
  ): ReadonlyMap<string, SlowCause> {
    const charged = this.ticks.chargedTimeouts();
    const slow = new Set<string>();
    for (const disk of this.inspectedList) {
      const { name } = disk;
      // A disk that cannot be written is down, not slow: its error is what its score is charged to.
      if (disk.unwritable) continue;
      const timedOut = (charged.get(name) ?? 0) > (this.chargedAtRound.get(name) ?? 0);
      if (timedOut || disk.state === 'hung' || (statistical.get(name) ?? 'ok') !== 'ok' || (tail.get(name) ?? 'ok') !== 'ok') slow.add(name);
    }
    this.chargedAtRound = charged;
    const inspections = new Map(this.inspectedList.map((disk) => [disk.name, disk.round]));
    const warned = new Set<string>();
    for (const [name, prediction] of predictions) if (prediction.warning) warned.add(name);
    // To the places a trace keeps, so that a replay finds the same causes.
    const causes = this.causes.round(devices ? devices.map(recordedFigures) : NO_DEVICES, slow, inspections, warned);
    const warningOf = new Map<string, WarningBasis>();
    for (const [name, cause] of causes) {
      if (predictions.get(name)?.warning) warningOf.set(name, warningBasisOf(cause));
      if (!slow.has(name)) causes.delete(name);
    }
    this.lastCauses = causes;
    this.lastWarningOf = warningOf;
    for (const [name, cause] of this.lastCauses) {
      const disk = this.inspected.get(name)!;
      // A round in which nothing of the disk came back and its devices told nothing is no
      // evidence: what its score is charged to stays what the last round with some said.
      if (cause !== 'unknown' || disk.round.count > 0 || disk.slowCause === undefined) disk.slowCause = cause;
    }
    for (const disk of this.inspectedList) disk.round = emptyRound();
    return this.lastCauses;
  }

  /**
   * An inspection into its disk's round, for the cause (slow-cause.ts): a tick it answered at
   * or past the timeout, or after its tick had ended, was slow of itself when the wait for a
   * CPU during it does not account for the excess, for want of a CPU when the waits do.
   */
  private addToRound(round: RoundInspections, ms: number, event: InspectionEvent): void {
    const { timeoutMs, intervalMs } = this.params.score;
    // The probe thread's waits for a CPU, during the inspection and before it; 0 where unknown.
    const waitMs = event.waitMs == null ? 0 : microseconds(event.waitMs);
    const startWaitMs = event.startWaitMs == null ? 0 : microseconds(event.startWaitMs);
    round.count += 1;
    round.ms += microseconds(ms);
    round.waitMs += waitMs + startWaitMs;
    if (ms - waitMs >= timeoutMs) round.slowOfItself += 1;
    else if (ms >= timeoutMs || startWaitMs + ms >= intervalMs) round.slowForCpu += 1;
  }

  /** Applies the hang rule to the disk at `atMs`; returns it when its hang is new. */
  private judgeHang(disk: InspectedDisk, atMs: number): HungDisk | null {
    const hung = disk.inFlight.hung(atMs, this.params.hangAfterMs);
    disk.state = hung ? 'hung' : 'answering';
    if (!hung) return null;
    const waitingMs = disk.inFlight.newlyHung(atMs, this.params.hangAfterMs);
    return waitingMs === null ? null : { disk: disk.name, waitingMs, sinceMs: disk.inFlight.sinceMs(atMs)! };
  }

  private join(name: string): void {
    const counts = this.countsOf(name);
    this.inspected.set(name, { name, inspected: true, state: 'answering', inspections: counts.inspections, inFlight: new InFlight(), counts, unwritable: false, filesystemChanged: false, round: emptyRound() });
    this.inspectedList = [...this.inspected.values()];
  }

  /** With join, leaves inspectedList to the caller: rebuilt once for all the disks that come and go. */
  private forget(disk: string): void {
    this.inspected.delete(disk);
    this.detector.forget(disk);
    this.tail.forget(disk);
    this.predictions.forget(disk);
  }

  private scheduledMs(): number {
    return this.ticks.currentTick * this.params.score.intervalMs;
  }
}

