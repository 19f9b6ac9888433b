// The tail detector (docs/tail-detector.md): a disk whose slowest inspections have grown while
// its median held. Pure: no timers, no I/O; the caller passes its clock's reading with every call.
//
// - Slow line. Each disk's healthy baseline is its inspections of the `baselineMs` (10 min)
//   before its judged window; its `quantile` (P99) times `lineFactor` (2), never under
//   `minLineMs` (1 ms), is the slow line: a few in a thousand of a healthy disk's inspections
//   are above it. The severe line is `severeLineFactor` (2) times the slow line.
// - Steps. Once per `stepMs` (1 s) the disk is judged on its last `windowMs` (30 s) of steps.
//   The test counts slow events, not slow inspections: a step with a slow inspection is one,
//   and a run of such steps in a row one per `runMs` (5 s) of it. A healthy disk's slow
//   inspections come in clusters (a flush, a garbage collection, a burst of congestion hold
//   several inspections in a row), which a count of inspections would take for independent
//   evidence. The baseline gives the rate of such events, measured the same way.
// - Test. k slow events in n steps are raised when P(X >= k), X ~ Binomial(n, rate), is under
//   `significance` (2e-4), at the rate of slow events of its baseline; the same test is made
//   of the events above the severe line, at the baseline's rate of those, and either raises
//   the window. A tail in the rhythm of the journal's commits (one slow second in 5) has at
//   most 6 events in 30 s, however slow: too few against a baseline with a slow second in
//   every 30, beyond doubt against its few above the severe line.
// - Lone inspections. A third test counts the inspections above `loneLineFactor` (3)
//   times the median whose neighbours are calm (at most `loneCalmShare` of that line, not
//   failures), against the baseline's share of those, at `loneSignificance`. A tail slows
//   inspections one at a time, however modestly; a journal's commit, a burst or a garbage
//   collection holds two and more in a row. It sees a tail of a few times the median under a
//   P99 that a journal's commits set. Not made while the host's latency has risen as a whole.
// - Peers. A rise every disk shares (the host's load, its CPU, a controller) is not one
//   disk's fault: when more than `hostWideShare` (half) of the other judged disks show a rise
//   against their own baselines (the test's chance under `peerRiseSignificance`, 0.25, of slow
//   events against their baseline's line as it is, not moved with their median: a rise of the
//   whole latency is one too), the disk is judged against the rate of such events its peers
//   show (the median of theirs).
// - A tail, not a slowdown. The line moves with the disk's median: when the median of its
//   window's steps (each step's median) is above the baseline's median, the line is raised
//   by the same factor. A disk (or a host) whose whole latency shifts is the statistical
//   detector's; this one sees the slowest inspections grow away from the rest.
// - Rule. Raised `suspectAfterMs` (3 s) in a row: suspect; observed at least `observeMs`
//   (10 s) more, confirmed as soon as more than `confirmShare` (70 %) of those steps were
//   raised and the slow events after the step that first raised the window are new evidence:
//   their chance over the steps since, at the same rate (in any of the tests), under
//   `newEventsSignificance` (1e-2).
//   One cluster of slow events keeps a window raised for as long as it is in it; only the
//   events after it tell a tail from a one-off. That evidence, not the window's test, guards
//   the confirmation. While it is wanting and the share holds, observed up to
//   `observeExtendMs` (20 s) longer. Cancelled when `fallbackMs` (10 s) in a row were
//   not raised, the share can no longer be reached, or the observation ends. A confirmed
//   disk lets go once its window shows no rise at all (the test's chance above
//   `releaseSignificance`, 5 %) for `releaseMs` (30 s) in a row: the hysteresis.
// - The baseline does not follow the disk into its slow state: it is not recomputed while a
//   window shows any rise (the test's chance under `releaseSignificance`) or the disk is
//   suspect or confirmed; the steps that leave the window meanwhile wait, and go in once it is
//   calm; the steps of the window that made a disk suspect, those waiting then, and every step
//   while it is suspect or confirmed, never enter it. While more than `hostWideShare` of the
//   judged disks show a rise, every disk's steps wait likewise, for at most `baselineMs`.
// - Failures. A tick with no result counts as an inspection of `failureLatencyMs`.
import { medianInPlace } from '../common/robust-stats.js';
import { mediansOfOthers } from './statistical-detector.js';
import { binomialUpperTail } from './binomial.js';
import { SteppedDetector } from './stepped-detector.js';
import { DEFAULT_TAIL_PARAMS, tailParams, type TailParams } from './tail-params.js';

export type TailState = 'ok' | 'suspect' | 'confirmed';

export const TAIL_STATES: readonly TailState[] = ['ok', 'suspect', 'confirmed'];

/** A disk's healthy baseline, as its history before the window gives it. */
export interface TailBaseline {
  /** The slow line: the baseline's quantile times the line factor, or the floor. */
  lineMs: number;
  /** The median of its inspections: the line moves with the window's median above it. */
  medianMs: number;
  /** The share of the baseline's steps with an inspection above the line. */
  eventRate: number;
  /** The severe line (`severeLineFactor` times the line), and the baseline's rate of slow events above it. */
  severeLineMs: number;
  severeEventRate: number;
  /** The lone line (`loneLineFactor` times the median), and the share of the baseline's inspections alone above it. */
  loneLineMs: number;
  loneRate: number;
}

/** Why a disk is in its state. */
export interface TailChange {
  disk: string;
  from: TailState;
  to: TailState;
  atMs: number;
}

export interface TailOptions {
  onChange?: (change: TailChange) => void;
}

interface Judged {
  slowEvents: number;
  /** Its slow events against its baseline's line as it is (not moved with its median), per step. */
  latencyShare: number;
  /** Its latency rose, in its tail or as a whole: those events' chance under `peerRiseSignificance` at its own rate. */
  latencyRising: boolean;
  /** Its slow events above the severe line. */
  severeEvents: number;
  /** A suspect disk's slow events since its window was first raised (above either line), and over how many steps. */
  newEvents: number;
  newSevereEvents: number;
  newSteps: number;
  /** Its inspections alone above the lone line, of those judged; and of the suspect's new steps. */
  lone: number;
  loneJudged: number;
  newLone: number;
  newLoneJudged: number;
}

/**
 * Counts slow events over steps in time order: a run of slow steps in a row is one event per
 * `runSteps` of it (rounded up). A burst of congestion holds several inspections in a row;
 * counted step by step it would look like that many independent slow inspections.
 */
class SlowEvents {
  count = 0;
  private run = 0;

  constructor(private readonly runSteps: number) {}

  /** Whether this step counted an event. */
  step(slow: boolean): boolean {
    if (!slow) {
      this.run = 0;
      return false;
    }
    const counted = this.run % this.runSteps === 0;
    if (counted) this.count += 1;
    this.run += 1;
    return counted;
  }
}

/**
 * Counts lone slow inspections in time order: one above the line whose neighbours on
 * either side are calm. A tail slows inspections one at a time, however modestly; a burst, a
 * commit of the filesystem's journal or a garbage collection holds the inspections that come
 * meanwhile, and those come in twos and more. An inspection is judged once the one after it
 * is known.
 */
class LoneSlow {
  count = 0;
  judged = 0;
  private before = NaN;
  private candidate = NaN;

  /**
   * A neighbour is calm at `calmShare` of the line or under, and under the failure latency:
   * inside a burst of a few times the median the inspections straddle the line, and the ticks
   * an inspection longer than the interval holds up come as failures.
   */
  private readonly calmMs: number;

  constructor(
    private readonly lineMs: number,
    calmShare: number,
    failureLatencyMs: number,
  ) {
    this.calmMs = Math.min(lineMs * calmShare, failureLatencyMs - 1e-9);
  }

  /** Takes the next inspection; judges the one before it: -1 not judged (no neighbour before it), 0 not counted, 1 counted. */
  next(ms: number): -1 | 0 | 1 {
    let verdict: -1 | 0 | 1 = -1;
    if (!Number.isNaN(this.before)) {
      this.judged += 1;
      verdict = this.candidate > this.lineMs && !(this.before > this.calmMs) && !(ms > this.calmMs) ? 1 : 0;
      this.count += verdict;
    }
    this.before = this.candidate;
    this.candidate = ms;
    return verdict;
  }
}

/** The median of a step's latencies, sorted in a scratch copy. */
function medianOf(samples: readonly number[], scratch: { values: Float64Array }): number {
  if (samples.length === 0) return 0;
  if (scratch.values.length < samples.length) scratch.values = new Float64Array(samples.length * 2);
  for (let i = 0; i < samples.length; i += 1) scratch.values[i] = samples[i];
  return medianInPlace(scratch.values, samples.length);
}

class TailTrack {
  /** The open step's latencies. */
  samples: number[] = [];
  // The judged window: a ring of its steps' latencies, with each step's slowest and whether
  // it may ever enter the baseline.
  private readonly window: number[][];
  private readonly windowMax: Float64Array;
  /** Each step's median latency. */
  private readonly windowMedian: Float64Array;
  private readonly stepScratch = { values: new Float64Array(64) };
  private readonly tainted: Uint8Array;
  private at = 0;
  length = 0;
  // The baseline: steps older than the window, oldest first from `head`.
  private base: number[][] = [];
  private head = 0;
  baseSamples = 0;
  baseline: TailBaseline | null = null;
  /** Steps out of the window while it showed a rise, waiting to know whether they were a burst. */
  private pending: number[][] = [];
  /** The last judged window showed a rise (the test's chance under `releaseSignificance`). */
  rising = false;

  state: TailState = 'ok';
  /** Steps closed so far. */
  closed = 0;
  /** The step whose window was raised first in the current run: the slow events after it are new evidence. */
  raisedAtStep = 0;
  raisedRun = 0;
  observed = 0;
  observedRaised = 0;
  fallbackRun = 0;
  calmRun = 0;

  constructor(
    readonly name: string,
    readonly windowSteps: number,
    private readonly baselineSteps: number,
  ) {
    this.window = Array.from({ length: windowSteps }, () => []);
    this.windowMax = new Float64Array(windowSteps);
    this.windowMedian = new Float64Array(windowSteps);
    this.tainted = new Uint8Array(windowSteps);
  }

  get baseSteps(): number {
    return this.base.length - this.head;
  }

  /**
   * Closes the open step into the window. The step it pushes out goes into the baseline, unless
   * it is tainted; while the window shows a rise, or the host's latency has risen as a whole,
   * it waits, and goes in once both are calm again (a burst is part of a disk's life), or
   * never if the disk turns suspect.
   */
  closeStep(hostWide: boolean): void {
    const slot = this.at;
    if (this.length === this.windowSteps) {
      const leaving = this.window[slot];
      if (this.tainted[slot] === 0) {
        if (this.rising || hostWide) {
          this.pending.push(leaving);
          if (this.pending.length > this.baselineSteps) this.pending.shift();
        } else {
          this.releasePending();
          this.addToBase(leaving);
        }
      }
    } else this.length += 1;
    let max = 0;
    for (let i = 0; i < this.samples.length; i += 1) if (this.samples[i] > max) max = this.samples[i];
    this.window[slot] = this.samples;
    this.windowMax[slot] = max;
    this.windowMedian[slot] = medianOf(this.samples, this.stepScratch);
    this.tainted[slot] = this.state === 'ok' ? 0 : 1;
    this.samples = [];
    this.at = (slot + 1) % this.windowSteps;
    this.closed += 1;
  }

  /** The window's steps, and those waiting, will never enter the baseline: they made the disk suspect. */
  taintWindow(): void {
    this.tainted.fill(1);
    this.pending.length = 0;
  }

  releasePending(): void {
    for (const step of this.pending) this.addToBase(step);
    this.pending.length = 0;
  }

  private addToBase(step: number[]): void {
    this.base.push(step);
    this.baseSamples += step.length;
    while (this.baseSteps > this.baselineSteps) {
      this.baseSamples -= this.base[this.head].length;
      this.head += 1;
    }
    if (this.head >= 1024 && this.head * 2 >= this.base.length) {
      this.base = this.base.slice(this.head);
      this.head = 0;
    }
  }

  /** The median of the window's steps' medians: where the bulk of its inspections is now. */
  windowMedianMs(): number {
    const values = this.stepScratch.values.length >= this.length ? this.stepScratch.values : (this.stepScratch.values = new Float64Array(this.length * 2));
    for (let i = 0; i < this.length; i += 1) values[i] = this.windowMedian[i];
    return medianInPlace(values, this.length);
  }

  /**
   * The window's slow events above the line and above the severe line, both moved with its
   * median, oldest step first; and its slow events against the baseline's line as it is,
   * which a rise of the whole latency counts too: what its peers are told. `recentSteps`: how
   * many of the newest steps' events are also counted apart (`recentEvents`,
   * `recentSevereEvents`).
   */
  judge(
    base: TailBaseline,
    runSteps: number,
    recentSteps: number,
    params: Pick<TailParams, 'loneCalmShare' | 'loneSignificance' | 'failureLatencyMs'>,
  ): { slowEvents: number; severeEvents: number; latencyEvents: number; recentEvents: number; recentSevereEvents: number; lone: LoneSlow; recentLone: number; recentLoneJudged: number } {
    const events = new SlowEvents(runSteps);
    const severeEvents = new SlowEvents(runSteps);
    const latencyEvents = new SlowEvents(runSteps);
    let recentEvents = 0;
    let recentSevereEvents = 0;
    const recentFrom = this.length - recentSteps;
    const first = this.length === this.windowSteps ? this.at : 0;
    // The line moves with the window's median above the baseline's.
    const moved = Math.max(1, base.medianMs > 0 ? this.windowMedianMs() / base.medianMs : 1);
    const lineMs = base.lineMs * moved;
    const severeLineMs = base.severeLineMs * moved;
    const lone = new LoneSlow(base.loneLineMs * moved, params.loneCalmShare, params.failureLatencyMs);
    let recentLone = 0;
    let recentLoneJudged = 0;
    // The step of the inspection the lone count judges next: the one before the newest.
    let judgedStep = -1;
    for (let i = 0; i < this.length; i += 1) {
      const slot = (first + i) % this.windowSteps;
      const max = this.windowMax[slot];
      if (events.step(max > lineMs) && i >= recentFrom) recentEvents += 1;
      if (severeEvents.step(max > severeLineMs) && i >= recentFrom) recentSevereEvents += 1;
      latencyEvents.step(max > base.lineMs);
      if (params.loneSignificance === 0) continue;
      const step = this.window[slot];
      for (let j = 0; j < step.length; j += 1) {
        const verdict = lone.next(step[j]);
        if (verdict >= 0 && judgedStep >= recentFrom) {
          recentLoneJudged += 1;
          recentLone += verdict;
        }
        judgedStep = i;
      }
    }
    return { slowEvents: events.count, severeEvents: severeEvents.count, latencyEvents: latencyEvents.count, recentEvents, recentSevereEvents, lone, recentLone, recentLoneJudged };
  }

  /** The baseline from its steps; `scratch` holds at least their samples. */
  computeBaseline(params: TailParams, runSteps: number, scratch: Float64Array): TailBaseline {
    let n = 0;
    for (let i = this.head; i < this.base.length; i += 1) {
      const step = this.base[i];
      for (let j = 0; j < step.length; j += 1) scratch[n++] = step[j];
    }
    const values = scratch.subarray(0, n);
    values.sort();
    const rank = Math.min(n - 1, Math.max(0, Math.ceil(params.quantile * n) - 1));
    const medianMs = values[Math.min(n - 1, Math.max(0, Math.ceil(0.5 * n) - 1))];
    const lineMs = Math.max(values[rank] * params.lineFactor, params.minLineMs);
    const severeLineMs = lineMs * params.severeLineFactor;
    const loneLineMs = Math.max(medianMs * params.loneLineFactor, params.minLineMs);
    const events = new SlowEvents(runSteps);
    const severeEvents = new SlowEvents(runSteps);
    const lone = new LoneSlow(loneLineMs, params.loneCalmShare, params.failureLatencyMs);
    const countLone = params.loneSignificance > 0;
    for (let i = this.head; i < this.base.length; i += 1) {
      let max = 0;
      const step = this.base[i];
      for (let j = 0; j < step.length; j += 1) {
        if (step[j] > max) max = step[j];
        if (countLone) lone.next(step[j]);
      }
      events.step(max > lineMs);
      severeEvents.step(max > severeLineMs);
    }
    const steps = this.baseSteps;
    // One event more and one calm step more than seen: a baseline without a slow step (a
    // line at the floor) still gives a rate above 0.
    return {
      lineMs,
      medianMs,
      eventRate: (events.count + 1) / (steps + 2),
      severeLineMs,
      severeEventRate: (severeEvents.count + 1) / (steps + 2),
      loneLineMs,
      loneRate: (lone.count + 1) / (lone.judged + 2),
    };
  }
}

/**
 * The lone count's chance, on the scale of the other tests' (`significance`): 1 where the test
 * is off or not made (`rate` null).
 */
function loneChance(count: number, of: number, rate: number | null, p: Pick<TailParams, 'significance' | 'loneSignificance'>): number {
  if (rate === null || p.loneSignificance === 0) return 1;
  return Math.min(1, (binomialUpperTail(count, of, rate) * p.significance) / p.loneSignificance);
}

/** Feed it every disk's inspections in time order; query it per disk. The clock must not go backwards. */
export class TailDetector extends SteppedDetector<TailTrack> {
  readonly params: Readonly<TailParams>;
  /** Since when more than `hostWideShare` of the judged disks' latency has risen (null: it has not). */
  private hostWideSinceMs: number | null = null;
  private readonly windowSteps: number;
  private readonly baselineSteps: number;
  private readonly minBaselineSteps: number;
  private readonly runSteps: number;
  private scratch = new Float64Array(8192);

  constructor(
    params: Partial<TailParams> = DEFAULT_TAIL_PARAMS,
    private readonly options: TailOptions = {},
  ) {
    const checked = Object.freeze(tailParams(params));
    super(checked.stepMs, checked.failureLatencyMs);
    this.params = checked;
    const steps = (ms: number) => Math.max(1, Math.round(ms / this.params.stepMs));
    this.windowSteps = steps(this.params.windowMs);
    this.baselineSteps = steps(this.params.baselineMs);
    this.minBaselineSteps = steps(this.params.minBaselineMs);
    this.runSteps = steps(this.params.runMs);
  }

  forget(disk: string): void {
    this.tracks.delete(disk);
  }

  /** Whether the disk has a baseline to be judged against: until then its `ok` is no verdict (warming up). */
  judged(disk: string): boolean {
    return (this.tracks.get(disk)?.baseline ?? null) !== null;
  }

  /** `ok` for a disk never seen. */
  state(disk: string): TailState {
    return this.tracks.get(disk)?.state ?? 'ok';
  }

  protected newTrack(disk: string): TailTrack {
    return new TailTrack(disk, this.windowSteps, this.baselineSteps);
  }

  protected closeStep(index: number): void {
    const p = this.params;
    const startMs = index * p.stepMs;
    const endMs = startMs + p.stepMs;
    const holdBaselines = this.holdsBaselines(startMs);
    const judged: { track: TailTrack; result: Judged }[] = [];
    for (const track of this.tracks.values()) {
      if (track.samples.length === 0) continue;
      track.closeStep(holdBaselines);
      const base = track.baseline;
      if (base === null || track.length < track.windowSteps) continue;
      // A suspect disk's new evidence: the steps after the one that first raised its window.
      const newSteps = track.state === 'suspect' ? Math.min(track.length, track.closed - track.raisedAtStep) : 0;
      const { slowEvents, severeEvents, latencyEvents, recentEvents, recentSevereEvents, lone, recentLone, recentLoneJudged } = track.judge(base, this.runSteps, newSteps, p);
      const latencyPValue = binomialUpperTail(latencyEvents, track.length, base.eventRate);
      judged.push({
        track,
        result: {
          slowEvents,
          severeEvents,
          latencyShare: latencyEvents / track.length,
          latencyRising: latencyPValue < p.peerRiseSignificance,
          newEvents: recentEvents,
          newSevereEvents: recentSevereEvents,
          newSteps,
          lone: lone.count,
          loneJudged: lone.judged,
          newLone: recentLone,
          newLoneJudged: recentLoneJudged,
        },
      });
    }
    const peers = p.peerCondition && judged.length >= 2;
    const risingCount = judged.reduce((n, j) => n + (j.result.latencyRising ? 1 : 0), 0);
    if (peers && risingCount > p.hostWideShare * judged.length) this.hostWideSinceMs ??= endMs;
    else this.hostWideSinceMs = null;
    if (judged.length > 0) {
      const peerShares = peers ? mediansOfOthers(judged.map((j) => j.result.latencyShare)) : null;
      for (let i = 0; i < judged.length; i += 1) {
        const { track, result } = judged[i];
        const base = track.baseline!;
        // Host-wide: more than `hostWideShare` of the other disks' latency rose against their
        // own baselines, in the tail or as a whole. The disk is then judged against the rate of
        // such events its peers show: a rise every disk shares is not one disk's fault.
        const others = judged.length - 1;
        const risingOthers = risingCount - (result.latencyRising ? 1 : 0);
        const hostWide = peerShares !== null && risingOthers > p.hostWideShare * others;
        const rate = Math.min(0.999, hostWide ? Math.max(base.eventRate, peerShares[i]) : base.eventRate);
        // Above the severe line, against its own rate (the peers', counted at the slow line, are
        // no lower): the test that finds the rarer, slower inspections.
        const severeRate = Math.min(0.999, hostWide ? Math.max(base.severeEventRate, peerShares[i]) : base.severeEventRate);
        // Inspections alone above the lone line, against the baseline's share of those: the
        // test that finds a tail too modest to cross the slow line. Its chance is weighed against
        // `loneSignificance` where the others' is against `significance` (its new evidence and
        // its calm alike). Not while the host's latency has risen as a whole: a shared rise changes
        // which inspections stand alone on every disk, and a peer's count says nothing of this one's.
        const loneRate = hostWide ? null : base.loneRate;
        const pValue = Math.min(
          binomialUpperTail(result.slowEvents, track.length, rate),
          binomialUpperTail(result.severeEvents, track.length, severeRate),
          loneChance(result.lone, result.loneJudged, loneRate, p),
        );
        const newPValue = Math.min(
          binomialUpperTail(result.newEvents, result.newSteps, rate),
          binomialUpperTail(result.newSevereEvents, result.newSteps, severeRate),
          loneChance(result.newLone, result.newLoneJudged, loneRate, p),
        );
        this.step(track, pValue, newPValue, endMs);
      }
    }
    if (this.refreshDue(endMs, p.refreshMs)) {
      for (const track of this.tracks.values()) {
        if (track.state !== 'ok' || track.rising || holdBaselines || track.baseSteps < this.minBaselineSteps) continue;
        if (this.scratch.length < track.baseSamples) this.scratch = new Float64Array(track.baseSamples * 2);
        track.baseline = track.computeBaseline(p, this.runSteps, this.scratch);
      }
    }
  }

  /**
   * While the host's latency has risen as a whole, no disk's baseline takes in its steps: the
   * disks whose rise hides behind their moved line would take the host's state for their
   * healthy one, and the others would then stand out. A host-wide rise that lasts a whole
   * baseline is the host's new normal, and the baselines follow it.
   */
  private holdsBaselines(atMs: number): boolean {
    return this.hostWideSinceMs !== null && atMs - this.hostWideSinceMs < this.params.baselineMs;
  }

  /**
   * Steps one disk's rule on its judged window (`pValue`) and, while it is suspect, on the
   * slow events its window took in after it was first raised (`newPValue`).
   */
  private step(track: TailTrack, pValue: number, newPValue: number, endMs: number): void {
    const p = this.params;
    const before = track.state;
    const raised = pValue < p.significance;
    track.rising = pValue < p.releaseSignificance;
    switch (track.state) {
      case 'ok':
        if (!raised) {
          track.raisedRun = 0;
          break;
        }
        track.raisedRun += 1;
        if (track.raisedRun === 1) track.raisedAtStep = track.closed;
        if (track.raisedRun * p.stepMs >= p.suspectAfterMs) {
          track.state = 'suspect';
          track.taintWindow();
          track.observed = 0;
          track.observedRaised = 0;
          track.fallbackRun = 0;
        }
        break;
      case 'suspect': {
        track.observed += 1;
        if (raised) {
          track.observedRaised += 1;
          track.fallbackRun = 0;
        } else track.fallbackRun += 1;
        // Observed at least `observeMs`, confirmed as soon as the new evidence is in, up to
        // `observeExtendMs` more while the share holds and it is wanting: a window raised by one
        // cluster of slow events stays raised as long as the cluster is in it; only the events
        // after it tell a tail from a one-off.
        const observeSteps = Math.max(1, Math.round(p.observeMs / p.stepMs));
        if (track.fallbackRun * p.stepMs >= p.fallbackMs) this.clear(track);
        else if (track.observed < observeSteps) {
          if (track.observedRaised + (observeSteps - track.observed) <= p.confirmShare * observeSteps) this.clear(track);
        } else if (!(track.observedRaised > p.confirmShare * track.observed)) this.clear(track);
        else if (p.newEventsSignificance >= 1 || newPValue < p.newEventsSignificance) {
          track.state = 'confirmed';
          track.calmRun = 0;
        } else if (track.observed >= observeSteps + Math.round(p.observeExtendMs / p.stepMs)) this.clear(track);
        break;
      }
      case 'confirmed':
        track.calmRun = pValue >= p.releaseSignificance ? track.calmRun + 1 : 0;
        if (track.calmRun * p.stepMs >= p.releaseMs) this.clear(track);
        break;
    }
    if (track.state !== before) {
      this.options.onChange?.({ disk: track.name, from: before, to: track.state, atMs: endMs });
    }
  }

  private clear(track: TailTrack): void {
    track.state = 'ok';
    track.raisedRun = 0;
    track.calmRun = 0;
  }
}

