// The statistical slow-disk detector after CTyun's slow-disk detection article (docs/statistical-detector.md).
// Pure: no timers, no I/O; the caller passes its clock's reading (virtual in replay,
// monotonic live) with every call.
//
// How it reads the article, and where it has to go further (a per-IO rule and a moving baseline
// do not work as the article states them; docs/design/statistical-detector.md says why):
//
// - Steps and statistic. Each disk is judged once per `shortWindowMs` (1 s) of the caller's
//   clock, on the median `m` of its inspections of the last `statisticMs` (5 s: 50 inspections
//   at 100 ms), not on single inspections: a x1.5 or x2 slowdown moves a single lognormal
//   sample by less than 3 MADs, but moves a median of 50 by many of that median's own MADs.
// - Baseline. Each disk keeps the statistics of its steps covering its last `windowSamples`
//   (1000) inspections. Every `refreshMs` (10 s) the baseline is recomputed: the median of
//   those statistics, and their mean absolute deviation (MAD) around it. So the deviation
//   `d = (m - median) / MAD` is measured in units of the spread of `m` itself. The MAD counts
//   as at least max(madFloorMs, madFloorRatio x median) (0.01 ms, 8 %): a MAD of 0 (quantised
//   latencies) never divides by zero, and a disk whose median barely varies is not flagged for
//   less than threshold x 8 % = 24 % of its median, the least a disk's share of the host's
//   work can plausibly move it over a minute or two.
// - The baseline does not follow a disk into its slow state. A run of deviating steps is held
//   out of the window until it ends (then it goes in: a short burst is part of normal life)
//   or turns suspect (then it is dropped). From the first deviating step until the disk is ok
//   again, nothing enters and the baseline is not refreshed: it is held at the disk's history
//   from before the deviation began. After that, the steps whose statistic still reaches back
//   into the suspect time are left out too.
// - Peers. A disk's ratio to its baseline median, r = m / median, is compared with the other
//   judged disks': the host's common factor L = median of the peers' r is divided out,
//   `d' = (m / L - median) / MAD'`. A step deviates when d' > threshold: the disk is slow
//   against its own history once the host's load is accounted for, hence slow against its
//   peers too. A business peak that makes every disk x4 gives L = 4 and no d' moves; a host
//   whose load has dropped (L < 1) does not hide a disk that stayed as slow as before. MAD' is
//   the disk's MAD widened by how noisy L is (the peers' own relative MAD, over sqrt(peers)):
//   with one peer, that peer's noise counts as much as the disk's own.
//   A held baseline is carried forward by the host's drift since it was held: the median, over
//   the peers whose baselines still follow their disks, of how far their baselines have moved
//   since. So a disk slow for ten minutes is still compared with its peers over the same span
//   of the host's load, and its ratio stays fair when it serves as someone else's peer. When it
//   is ok again, its window is carried by that drift too, and the baseline recomputed at once.
//   With a single disk (or with `peerCondition` off) L = 1 and no drift: own history only, and
//   a load change on a lone disk cannot be told from a slowdown.
// - Layered rule, per disk, on each judged step:
//   ok -> suspect     after `suspectAfterMs` (10 s) of deviating steps in a row;
//   suspect -> confirmed once `observeMs` (60 s) more have been observed and more than
//                     `confirmShare` (70 %) of them deviated;
//   suspect -> ok     (cancelled) when `fallbackMs` (10 s) in a row do not deviate, or once the
//                     70 % can no longer be reached within the observation;
//   confirmed -> ok   once more than 70 % of the last 60 s of steps no longer deviate.
// - Host-wide. When more than `hostWideShare` (half) of the judged disks, and at least two,
//   deviate from their own history in the same step (d > threshold), the host is slow as a
//   whole: the load, a controller, a cable. A disk that is part of that for `suspectAfterMs`
//   in a row, and is not itself suspect or confirmed, is `host-wide` (until `fallbackMs` in a
//   row without it). Its baseline keeps following it, so a lasting load change is learnt and
//   host-wide ends by itself once the baselines have caught up (a minute or so).
// - Fast path. Beside the 60 s observation, a suspect disk is confirmed as soon as a
//   sequential probability ratio test says so, from the first step of its deviating run.
//   Steps `statisticMs` apart judge statistics that share no inspection, so each is fresh
//   evidence; the run's steps fall into that many interleaved sequences (the 1st, 6th, 11th
//   step; the 2nd, 7th, ...), each a test of its own that sums the log-likelihood ratio of a
//   deviation of `fastAlternative` (1.5) times `threshold` MADs against one of `threshold`, the deviation read as
//   Gaussian with the baseline's spread. The disk is confirmed once one sum reaches
//   ln(sequences / fastBudget): by Wald's bound and a union over the sequences, a disk whose
//   deviation sits at the threshold or below (the doubt the article's minute of observation
//   is for) gets there with at most `fastBudget`. The sequences let the test start where the
//   slowdown had filled the statistic, not only at the run's first step, which barely crosses
//   the line. No one step counts for more than `fastStepShare` (a quarter) of the threshold: the slowdown must
//   hold through four statistics that share no inspection, some 15 s of it, so a congestion
//   of a few seconds, or two or three of them back to back, is not confirmed. A step in which
//   the host is slow as a whole adds nothing for, nor one whose own second (the median of its
//   inspections alone) does not deviate: the 5 s statistic holds a burst for seconds after it
//   ended, and between bursts the disk is not slow. A x2 slowdown is confirmed some 5 s after
//   the disk turns suspect; a marginal one still takes the article's minute, or is not
//   confirmed.
// - Failures. A tick with no result (an I/O error, or an inspection still in flight at the
//   tick, which the slow score charges as a timeout) counts as one inspection of
//   `failureLatencyMs` (100 ms, TiKV's timeout). A hung disk deviates like a very slow one;
//   a disk whose healthy latency is near that value cannot be shown slower by failures.
// - Warm-up. A disk is judged once its baseline holds `minBaselineWindows` (30) steps and
//   has been computed by a refresh: 30 to 40 s after it first appears. Until then it is `ok`,
//   and it is not counted among anyone's peers.
import { DEFAULT_STATISTICAL_PARAMS, statisticalParams, type StatisticalParams } from './statistical-params.js';
import { meanAbsoluteDeviation, medianInPlace, sortedMedian, sortedMedianWithout } from '../common/robust-stats.js';
import { SteppedDetector } from './stepped-detector.js';

export type DetectorState = 'ok' | 'suspect' | 'confirmed' | 'host-wide';

export const DETECTOR_STATES: readonly DetectorState[] = ['ok', 'suspect', 'confirmed', 'host-wide'];

/** A disk's baseline: its normal latency, as its own history gives it. */
export interface DetectorBaseline {
  /** The median of the window's step statistics (each a median of `statisticMs` of inspections). */
  medianMs: number;
  /** Their mean absolute deviation around that median, as computed. */
  madMs: number;
  /** The MAD the deviation divides by: madMs, or the floor when that is larger. */
  scaleMs: number;
  /** Steps and inspections it was computed from. */
  windows: number;
  samples: number;
  /** When it was computed, on the caller's clock. */
  atMs: number;
}

/** How a disk's confirmation was reached. */
export interface Confirmation {
  /** 'fast': the sequential test's evidence reached its threshold; 'rules': the article's observation. */
  path: 'fast' | 'rules';
  /** From the start of the first deviating step to the confirmation, on the caller's clock. */
  afterMs: number;
  /** The fast path's evidence (a log-likelihood ratio) at the confirmation, and its threshold. */
  evidence: number;
  threshold: number;
}

export interface StateChange {
  disk: string;
  from: DetectorState;
  to: DetectorState;
  /** The end of the step that decided it, on the caller's clock. */
  atMs: number;
}

export interface DetectorOptions {
  /** Called for every change of a disk's state, when the step that decides it closes. */
  onChange?: (change: StateChange) => void;
}

type OwnState = 'ok' | 'suspect' | 'confirmed';

/** The peers' common factor never counts as less than this (peers whose latency is recorded as 0). */
const MIN_PEER_FACTOR = 1e-3;

/** The spread of the median of n samples is about this many times the spread of one, over sqrt(n). */
const MEDIAN_EFFICIENCY = Math.sqrt(Math.PI / 2);

/** A Gaussian's standard deviation over its mean absolute deviation: the deviation, in MADs, to standard units. */
const SIGMA_PER_MAD = Math.sqrt(Math.PI / 2);

/** What a disk's statistic is divided by for its ratio to its baseline: the median, never 0. */
function baselineDivisor(base: DetectorBaseline): number {
  return Math.max(base.medianMs, base.scaleMs);
}

/** A baseline's spread relative to its median, as measured (no floor): how noisy its statistic is. */
function relativeSpread(base: DetectorBaseline): number {
  return base.medianMs > 0 ? base.madMs / base.medianMs : 0;
}

/** For each value, the median of all the others: from one sort. */
export function mediansOfOthers(values: readonly number[]): number[] {
  const order = values.map((_, i) => i).sort((a, b) => values[a] - values[b]);
  const sorted = Float64Array.from(order, (i) => values[i]);
  const out = new Array<number>(values.length);
  order.forEach((original, rank) => {
    out[original] = sortedMedianWithout(sorted, rank);
  });
  return out;
}

interface Judged {
  median: number;
  count: number;
  ratio: number;
  deviation: number;
  ownDeviation: number;
  /** The deviation of the step's own second (its median alone), read as `deviation` is. */
  stepDeviation: number;
  peerFactor: number;
  drift: number;
}

/** One disk's samples, baseline window and rule state. */
class DiskTrack {
  /** The open step's latencies. */
  samples: number[] = [];
  /** The last steps' latencies, for the trailing statistic: slot = step index modulo their number. */
  private readonly steps: number[][];
  private readonly stepIndex: Float64Array;
  /** Steps still to be kept out of the baseline window after a suspicion ended. */
  quarantine = 0;
  /** The median of the step closed last, on its own: whether the disk is slow in that second. */
  stepMedian = 0;

  // The baseline window: one statistic per step, oldest first from `head`.
  private medians: number[] = [];
  private counts: number[] = [];
  private head = 0;
  windowSamples = 0;
  baseline: DetectorBaseline | null = null;

  // A deviating run not yet known to be a burst or the start of a slowdown.
  private pendingMedians: number[] = [];
  private pendingCounts: number[] = [];

  own: OwnState = 'ok';
  /** Deviating steps in a row, and when the run began. */
  run = 0;
  runStartMs = 0;
  /** The fast path: steps since the deviating run began, and each interleaved sequence's evidence. */
  runSteps = 0;
  evidence: Float64Array;
  confirmation: Confirmation | null = null;
  /** While suspect. */
  observed = 0;
  observedDeviating = 0;
  fallbackRun = 0;
  /** While confirmed: the last observation's worth of steps, 1 = deviated. */
  recent: Uint8Array;
  recentLength = 0;
  recentAt = 0;
  recentDeviating = 0;

  /**
   * While its baseline is held still (a deviating run, suspect, confirmed): the peers'
   * baseline medians as they were when it stopped. How far the live ones have moved since is
   * the host's drift, which carries the held baseline forward (see drift()).
   */
  peerBaselines: Map<DiskTrack, number> | null = null;

  /** Its baseline follows the disk (not held still). */
  get live(): boolean {
    return this.own === 'ok' && this.run === 0 && this.baseline !== null;
  }

  /**
   * The host's drift since this disk's baseline was held: the median, over the peers whose
   * baselines have kept following their disks, of their baseline now over their baseline
   * then. 1 when not held, or without such a peer.
   */
  drift(): number {
    if (this.peerBaselines === null) return 1;
    const moves: number[] = [];
    for (const [peer, then] of this.peerBaselines) {
      if (peer.live && !peer.forgotten) moves.push(baselineDivisor(peer.baseline!) / then);
    }
    if (moves.length === 0) return 1;
    moves.sort((a, b) => a - b);
    return sortedMedian(moves);
  }

  forgotten = false;

  hostWide = false;
  hostRun = 0;
  hostRunStartMs = 0;
  hostOffRun = 0;
  hostOnsetMs = 0;

  sinceMs: number;
  last: (Judged & { endMs: number }) | null = null;

  constructor(
    readonly name: string,
    firstSeenMs: number,
    recentSize: number,
    statisticSteps: number,
  ) {
    this.sinceMs = firstSeenMs;
    this.recent = new Uint8Array(recentSize);
    this.steps = Array.from({ length: statisticSteps }, () => []);
    this.evidence = new Float64Array(statisticSteps);
    this.stepIndex = new Float64Array(statisticSteps).fill(-Infinity);
  }

  /**
   * Closes step `index`: its samples join the trailing steps, and the median of every sample
   * of the last `steps.length` steps is returned (the statistic judged).
   */
  closeStep(index: number, scratch: { values: Float64Array }): number {
    const k = this.steps.length;
    const slot = ((index % k) + k) % k;
    const spare = this.steps[slot];
    this.steps[slot] = this.samples;
    this.stepIndex[slot] = index;
    spare.length = 0;
    this.samples = spare;
    let n = 0;
    for (let i = 0; i < k; i += 1) if (this.stepIndex[i] > index - k) n += this.steps[i].length;
    if (scratch.values.length < n) scratch.values = new Float64Array(n * 2);
    const values = scratch.values;
    const own = this.steps[slot];
    for (let i = 0; i < own.length; i += 1) values[i] = own[i];
    this.stepMedian = medianInPlace(values, own.length);
    let at = 0;
    for (let i = 0; i < k; i += 1) {
      if (this.stepIndex[i] <= index - k) continue;
      const step = this.steps[i];
      for (let j = 0; j < step.length; j += 1) values[at++] = step[j];
    }
    return medianInPlace(values, n);
  }

  /** The fast path's strongest sequence of evidence. */
  strongest(): number {
    let most = -Infinity;
    for (let i = 0; i < this.evidence.length; i += 1) if (this.evidence[i] > most) most = this.evidence[i];
    return most;
  }

  get state(): DetectorState {
    if (this.own !== 'ok') return this.own;
    return this.hostWide ? 'host-wide' : 'ok';
  }

  get windows(): number {
    return this.medians.length - this.head;
  }

  /** Adds a step's statistic to the baseline window, dropping the oldest steps beyond `max` inspections. */
  addWindow(median: number, count: number, max: number): void {
    this.medians.push(median);
    this.counts.push(count);
    this.windowSamples += count;
    while (this.windowSamples > max && this.medians.length - this.head > 1) {
      this.windowSamples -= this.counts[this.head];
      this.head += 1;
    }
    if (this.head >= 1024 && this.head * 2 >= this.medians.length) {
      this.medians = this.medians.slice(this.head);
      this.counts = this.counts.slice(this.head);
      this.head = 0;
    }
  }

  holdWindow(median: number, count: number): void {
    this.pendingMedians.push(median);
    this.pendingCounts.push(count);
  }

  /** Multiplies the window's statistics by `factor`: a held window carried forward by the host's drift. */
  carryWindow(factor: number): void {
    if (factor === 1) return;
    for (let i = this.head; i < this.medians.length; i += 1) this.medians[i] *= factor;
  }

  /** The held run was a burst: it belongs to the disk's normal life. */
  releaseHeld(max: number): void {
    for (let i = 0; i < this.pendingMedians.length; i += 1) this.addWindow(this.pendingMedians[i], this.pendingCounts[i], max);
    this.dropHeld();
  }

  dropHeld(): void {
    this.pendingMedians.length = 0;
    this.pendingCounts.length = 0;
  }

  computeBaseline(params: StatisticalParams, atMs: number, scratch: Float64Array): DetectorBaseline {
    const n = this.windows;
    const values = scratch.length >= n ? scratch.subarray(0, n) : new Float64Array(n);
    for (let i = 0; i < n; i += 1) values[i] = this.medians[this.head + i];
    values.sort();
    const medianMs = sortedMedian(values);
    const madMs = meanAbsoluteDeviation(values, medianMs);
    const scaleMs = Math.max(madMs, params.madFloorMs, params.madFloorRatio * medianMs);
    return { medianMs, madMs, scaleMs, windows: n, samples: this.windowSamples, atMs };
  }

  resetRecent(): void {
    this.recentLength = 0;
    this.recentAt = 0;
    this.recentDeviating = 0;
  }

  pushRecent(deviating: boolean): void {
    const size = this.recent.length;
    if (this.recentLength === size) this.recentDeviating -= this.recent[this.recentAt];
    else this.recentLength += 1;
    this.recent[this.recentAt] = deviating ? 1 : 0;
    this.recentDeviating += deviating ? 1 : 0;
    this.recentAt = (this.recentAt + 1) % size;
  }
}

/**
 * Feed it every disk's inspections in time order (observe, failure), query it per disk
 * (state, judged), and hear of each change of state (onChange). The clock must not go backwards across calls; a sample whose time falls
 * in a step already closed is counted in the open one.
 */
export class StatisticalDetector extends SteppedDetector<DiskTrack> {
  readonly params: Readonly<StatisticalParams>;
  private scratch = new Float64Array(1024);
  private readonly stepScratch = { values: new Float64Array(256) };
  private readonly observeWindows: number;
  private readonly statisticSteps: number;
  /**
   * The fast path: the evidence that confirms, and a step's log-likelihood ratio as a line in
   * its deviation z (standard units), slope * z - offset, for a deviation of `fastAlternative`
   * times the threshold against one of the threshold.
   */
  private readonly fastThreshold: number;
  private readonly fastSlope: number;
  private readonly fastOffset: number;

  constructor(
    params: Partial<StatisticalParams> = DEFAULT_STATISTICAL_PARAMS,
    private readonly options: DetectorOptions = {},
  ) {
    const checked = Object.freeze(statisticalParams(params));
    super(checked.shortWindowMs, checked.failureLatencyMs);
    this.params = checked;
    this.observeWindows = Math.max(1, Math.round(this.params.observeMs / this.params.shortWindowMs));
    this.statisticSteps = Math.max(1, Math.round(this.params.statisticMs / this.params.shortWindowMs));
    this.fastThreshold = this.params.fastBudget > 0 ? Math.log(this.statisticSteps / this.params.fastBudget) : Infinity;
    const doubt = this.params.threshold / SIGMA_PER_MAD;
    const slow = this.params.fastAlternative * doubt;
    this.fastSlope = slow - doubt;
    this.fastOffset = (slow ** 2 - doubt ** 2) / 2;
  }

  /** A disk no longer inspected (the layout changed): forgets it, and it stops being anyone's peer. */
  forget(disk: string): void {
    const track = this.tracks.get(disk);
    if (track) track.forgotten = true;
    this.tracks.delete(disk);
  }

  /** `ok` for a disk never seen. */
  state(disk: string): DetectorState {
    return this.tracks.get(disk)?.state ?? 'ok';
  }

  /** How the disk's standing confirmation was reached; null when it is not confirmed. */
  confirmation(disk: string): Confirmation | null {
    return this.tracks.get(disk)?.confirmation ?? null;
  }

  /** Whether a step of the disk has been judged against its baseline yet: until then its `ok` is no verdict. */
  judged(disk: string): boolean {
    return this.tracks.get(disk)?.last != null;
  }

  protected newTrack(disk: string, tMs: number): DiskTrack {
    return new DiskTrack(disk, tMs, this.observeWindows, this.statisticSteps);
  }

  protected closeStep(index: number): void {
    const p = this.params;
    const startMs = index * p.shortWindowMs;
    const endMs = startMs + p.shortWindowMs;

    // Each judged disk's statistic and its ratio to its baseline median.
    const judged: { track: DiskTrack; median: number; count: number; ratio: number; drift: number }[] = [];
    const ratios: number[] = [];
    for (const track of this.tracks.values()) {
      const count = track.samples.length;
      if (count === 0) continue;
      const median = track.closeStep(index, this.stepScratch);
      const base = track.baseline;
      if (base === null) {
        track.addWindow(median, count, p.windowSamples);
        continue;
      }
      // A held baseline is carried forward by the host's drift since it was held, so that
      // every disk's ratio compares it with the same (recent) span of the host's load.
      const drift = track.drift();
      const ratio = median / (baselineDivisor(base) * drift);
      judged.push({ track, median, count, ratio, drift });
      ratios.push(ratio);
    }

    if (judged.length > 0) {
      const peers = p.peerCondition && judged.length >= 2;
      // For each disk, the median of the other disks' ratios (the host's common factor L) and
      // of their statistics' relative spread (how precisely L is known).
      const peerRatios = peers ? mediansOfOthers(ratios) : null;
      const peerSpreads = peers ? mediansOfOthers(judged.map((j) => relativeSpread(j.track.baseline!))) : null;
      const peerCount = judged.length - 1;
      const spreadOfMedian = (peerCount >= 3 ? MEDIAN_EFFICIENCY : 1) / Math.sqrt(peerCount);

      let ownDeviating = 0;
      const results: Judged[] = [];
      for (let i = 0; i < judged.length; i += 1) {
        const j = judged[i];
        const base = j.track.baseline!;
        // Its own history only: the baseline as it is (held or not).
        const ownDeviation = (j.median - base.medianMs) / base.scaleMs;
        // Against its history carried by the host's drift, and its peers' common factor.
        const expected = base.medianMs * j.drift;
        let scale = base.scaleMs * j.drift;
        let peerFactor = 1;
        if (peerRatios !== null && peerSpreads !== null) {
          peerFactor = Math.max(MIN_PEER_FACTOR, peerRatios[i]);
          // L is itself a noisy estimate: its spread, in this disk's milliseconds, widens the scale.
          const peerScale = expected * peerSpreads[i] * spreadOfMedian;
          scale = Math.sqrt(scale * scale + peerScale * peerScale);
        }
        const deviation = (j.median / peerFactor - expected) / scale;
        const stepDeviation = (j.track.stepMedian / peerFactor - expected) / scale;
        if (ownDeviation > p.threshold) ownDeviating += 1;
        results.push({ median: j.median, count: j.count, ratio: j.ratio, deviation, ownDeviation, stepDeviation, peerFactor, drift: j.drift });
      }
      const hostSlow = judged.length >= 2 && ownDeviating / judged.length > p.hostWideShare;

      for (let i = 0; i < judged.length; i += 1) this.judge(judged[i].track, results[i], hostSlow, startMs, endMs);
    }

    if (this.refreshDue(endMs, p.refreshMs)) {
      for (const track of this.tracks.values()) {
        if (track.own !== 'ok' || track.run > 0 || track.windows < p.minBaselineWindows) continue;
        if (track.windows > this.scratch.length) this.scratch = new Float64Array(track.windows * 2);
        track.baseline = track.computeBaseline(p, endMs, this.scratch);
      }
    }
  }

  /** Steps one disk's rules on one judged step. */
  private judge(track: DiskTrack, result: Judged, hostSlow: boolean, startMs: number, endMs: number): void {
    const before = track.state;
    const deviating = result.deviation > this.params.threshold;
    (result as Judged & { endMs: number }).endMs = endMs;
    track.last = result as Judged & { endMs: number };
    switch (track.own) {
      case 'ok':
        this.stepOk(track, result, deviating, hostSlow, startMs, endMs);
        break;
      case 'suspect':
        this.stepSuspect(track, result, deviating, hostSlow, endMs);
        break;
      case 'confirmed':
        track.pushRecent(deviating);
        if (track.recentLength - track.recentDeviating > this.params.confirmShare * this.observeWindows) this.clear(track, endMs);
        break;
    }
    this.stepHostWide(track, result.ownDeviation > this.params.threshold && hostSlow, startMs);
    const after = track.state;
    if (after !== before) {
      track.sinceMs = endMs;
      this.options.onChange?.({ disk: track.name, from: before, to: after, atMs: endMs });
    }
  }

  /** An ok disk: a deviating run makes it suspect after `suspectAfterMs`; a calm step feeds its baseline. */
  private stepOk(track: DiskTrack, result: Judged, deviating: boolean, hostSlow: boolean, startMs: number, endMs: number): void {
    const p = this.params;
    if (!deviating) {
      if (track.run > 0) {
        // A burst: the window thaws, carried by the drift of its few held seconds.
        track.carryWindow(result.drift);
        track.releaseHeld(p.windowSamples);
      }
      track.run = 0;
      track.peerBaselines = null;
      if (track.quarantine > 0) track.quarantine -= 1;
      else track.addWindow(result.median, result.count, p.windowSamples);
      return;
    }
    if (track.run === 0) {
      track.runStartMs = startMs;
      track.peerBaselines = this.peerBaselinesOf(track);
      track.runSteps = 0;
      track.evidence.fill(0);
    }
    track.run += 1;
    this.gather(track, result, hostSlow);
    track.holdWindow(result.median, result.count);
    if (track.run * p.shortWindowMs < p.suspectAfterMs) return;
    // The baseline freezes at what it was before the run began; the run is dropped.
    track.dropHeld();
    track.own = 'suspect';
    track.observed = 0;
    track.observedDeviating = 0;
    track.fallbackRun = 0;
    if (track.strongest() >= this.fastThreshold) this.confirm(track, 'fast', endMs);
  }

  /** A suspect disk: confirmed by the fast path's evidence, or by the article's share of its observation. */
  private stepSuspect(track: DiskTrack, result: Judged, deviating: boolean, hostSlow: boolean, endMs: number): void {
    const p = this.params;
    this.gather(track, result, hostSlow);
    if (deviating && track.strongest() >= this.fastThreshold) {
      this.confirm(track, 'fast', endMs);
      return;
    }
    track.observed += 1;
    if (deviating) {
      track.observedDeviating += 1;
      track.fallbackRun = 0;
    } else track.fallbackRun += 1;
    const needed = p.confirmShare * this.observeWindows;
    const reachable = track.observedDeviating + (this.observeWindows - track.observed);
    if (track.fallbackRun * p.shortWindowMs >= p.fallbackMs || reachable <= needed) this.clear(track, endMs);
    else if (track.observed >= this.observeWindows) {
      if (track.observedDeviating > p.confirmShare * track.observed) this.confirm(track, 'rules', endMs);
      else this.clear(track, endMs);
    }
  }

  /** Host-wide: deviating from its own history together with most of the host. */
  private stepHostWide(track: DiskTrack, deviatingWithHost: boolean, startMs: number): void {
    const short = this.params.shortWindowMs;
    if (deviatingWithHost) {
      if (track.hostRun === 0) track.hostRunStartMs = startMs;
      track.hostRun += 1;
      track.hostOffRun = 0;
      if (!track.hostWide && track.hostRun * short >= this.params.suspectAfterMs) {
        track.hostWide = true;
        track.hostOnsetMs = track.hostRunStartMs;
      }
    } else {
      track.hostRun = 0;
      track.hostOffRun += 1;
      if (track.hostWide && track.hostOffRun * short >= this.params.fallbackMs) track.hostWide = false;
    }
  }

  /**
   * The fast path's evidence from one step of a deviating run, to its sequence (the steps
   * `statisticMs` apart, whose statistics share no inspection): the log-likelihood ratio of a
   * deviation of `fastAlternative` times `threshold` MADs against one of `threshold`, at most
   * `fastStepShare` of the threshold; nothing for a step in which the host is slow as a whole,
   * nor for one whose own second does not deviate: a statistic of 5 s still holds a burst
   * for seconds after it ended, and bursts back to back would otherwise add up to a slowdown.
   */
  private gather(track: DiskTrack, result: Judged, hostSlow: boolean): void {
    const sequence = track.runSteps % this.statisticSteps;
    track.runSteps += 1;
    const z = result.deviation / SIGMA_PER_MAD;
    const ratio = Math.min(this.fastSlope * z - this.fastOffset, this.fastThreshold * this.params.fastStepShare);
    const slowNow = result.stepDeviation > this.params.threshold;
    track.evidence[sequence] += hostSlow || !slowNow ? Math.min(ratio, 0) : ratio;
  }

  private confirm(track: DiskTrack, path: Confirmation['path'], endMs: number): void {
    track.own = 'confirmed';
    track.resetRecent();
    track.confirmation = { path, afterMs: endMs - track.runStartMs, evidence: track.strongest(), threshold: this.fastThreshold };
  }

  /** The other disks' baseline medians now (those whose baselines follow their disks). */
  private peerBaselinesOf(track: DiskTrack): Map<DiskTrack, number> {
    const held = new Map<DiskTrack, number>();
    for (const other of this.tracks.values()) {
      if (other !== track && other.live) held.set(other, baselineDivisor(other.baseline!));
    }
    return held;
  }

  /** Back to ok: a cancelled suspicion or a recovered disk. The baseline thaws. */
  private clear(track: DiskTrack, atMs: number): void {
    // The held window is carried forward by the host's drift since it was held, and the
    // baseline recomputed from it at once: a stale baseline would mislead the peers too.
    track.carryWindow(track.drift());
    if (track.windows > this.scratch.length) this.scratch = new Float64Array(track.windows * 2);
    track.baseline = track.computeBaseline(this.params, atMs, this.scratch);
    track.own = 'ok';
    track.run = 0;
    track.peerBaselines = null;
    track.dropHeld();
    track.resetRecent();
    track.confirmation = null;
    // The next steps' statistics still reach back into the suspect time.
    track.quarantine = this.statisticSteps - 1;
  }
}
