// Every parameter of the tail detector (docs/tail-detector.md), and the specs of those a flag sets.
import { DAY_MS } from '../common/durations.js';
import type { ParamSpec } from '../common/param-spec.js';
import { DEFAULT_SCORE_PARAMS } from '../score/score-params.js';

export interface TailParams {
  /** Each disk is judged once per this much of the caller's clock; a second is the unit the test counts. */
  stepMs: number;
  /** The judged window: the disk's inspections of the last this much (30 s). */
  windowMs: number;
  /** The healthy baseline: the disk's inspections of this much before the judged window (10 minutes). */
  baselineMs: number;
  /** A disk is judged once its baseline holds this much (2 minutes, or the whole baseline when that is shorter). */
  minBaselineMs: number;
  /** The baseline's slow line and its rates are recomputed this often, while the disk is ok. */
  refreshMs: number;
  /** The slow line: this quantile of the baseline's inspections (0.99: its P99). */
  quantile: number;
  /**
   * The slow line is this many times the quantile. Not the P99 itself: a shift of a disk's
   * whole latency by 10 % (its share of the host's work moving) can double or triple the
   * share above its P99 (on an HDD, whose latency is bounded by a seek and a rotation, most
   * of all), and that is no tail. Twice the P99 is where a healthy disk has a few
   * inspections in a thousand, and a tail grown x5 has more than one in a hundred.
   */
  lineFactor: number;
  /**
   * The severe line: this many times the slow line (2: four times the baseline's P99), with its
   * own test beside the slow line's. A tail whose slow inspections come once per flush of the
   * filesystem's journal (every 5 s on ext4) has at most 6 slow events in a 30 s window, which
   * the test cannot tell from a baseline with a slow second in every 30; above the severe line
   * a healthy disk has few or none, and the same 6 are beyond doubt.
   */
  severeLineFactor: number;
  /**
   * The lone line: this many times the baseline's median (moved with the window's, as the
   * slow line is). An inspection above it whose neighbours are calm (`loneCalmShare`) is lone,
   * and the share of those has a test of its own. A tail of a few times the median stays under
   * the slow line wherever the disk's P99 is high (a journal's commit every 30 s or so sets
   * it), but its slow inspections come one at a time, where a commit, a burst or a garbage
   * collection holds two or more in a row.
   */
  loneLineFactor: number;
  /** A lone inspection's neighbours are at most this share of the lone line (two thirds: twice the median). */
  loneCalmShare: number;
  /**
   * The lone inspections' test raises a window when its chance is under this (5e-5), and
   * its chance is weighed by as much against the detector's other thresholds: over a few
   * hundred disk-hours a healthy disk's spikes come together by chance often enough that the
   * slow line's 2e-4 confirmed some. 0: the test is not made (as before it existed: a trace
   * without its key replays so).
   */
  loneSignificance: number;
  /**
   * The slow line never counts as less than this: a tail under a millisecond is the host's
   * scheduling, not the disk, and a loop disk on memory has its P99 in microseconds.
   */
  minLineMs: number;
  /**
   * A run of slow steps in a row counts as one slow event per this much of it (5 s): a burst
   * of congestion (a flush, a queue behind other work) holds several inspections in a row,
   * and is one event, not several independent ones; a tail's slow inspections come apart.
   */
  runMs: number;
  /**
   * A window is raised when the binomial test puts the chance of as many slow steps at the
   * baseline's own rate (times the peers' common rise) under this (2e-4). It finds the
   * suspects; the new evidence (`newEventsSignificance`), not this test, keeps a one-off
   * cluster from being confirmed, so it may raise a window one slow event sooner than 1e-4.
   */
  significance: number;
  /** Raised this long in a row: suspect. */
  suspectAfterMs: number;
  /** A suspect disk is observed at least this much longer (10 s) ... */
  observeMs: number;
  /**
   * ... and confirmed as soon as more than this share of the observed steps were raised, and the
   * slow events since its window was first raised are new evidence (`newEventsSignificance`).
   */
  confirmShare: number;
  /**
   * New evidence: the chance of as many slow events as came after the step that first raised
   * the window, over the steps since, at the same rate, is under this (1e-2; 1 turns it off).
   * One cluster of slow events raises a window for as long as it is in it (30 s): without new
   * events the observation would only see it again. A tail keeps adding slow events.
   */
  newEventsSignificance: number;
  /** A suspect disk whose new evidence is still wanting after `observeMs` is observed up to this much longer (20 s). */
  observeExtendMs: number;
  /** A suspect disk whose steps stop being raised this long in a row is cancelled. */
  fallbackMs: number;
  /**
   * The hysteresis: a confirmed disk is ok again once its window has shown no rise at all
   * (the test's chance above `releaseSignificance`) for `releaseMs` in a row.
   */
  releaseSignificance: number;
  releaseMs: number;
  /** A tick with no result counts as an inspection of this many ms (TiKV's timeout). */
  failureLatencyMs: number;
  /**
   * Compare with the peers: when more than `hostWideShare` of the other disks show a rise
   * against their own baselines (see `peerRiseSignificance`), a disk is judged against the
   * rate of slow events they show.
   */
  peerCondition: boolean;
  hostWideShare: number;
  /**
   * A peer shows a rise when the test's chance of its slow events, against its own baseline,
   * is under this (0.25): loose, so that a rise the host shares is seen on every disk before
   * any of them is confirmed for it; a healthy peer taken for rising only makes a disk be
   * judged against that peer's few slow events.
   */
  peerRiseSignificance: number;
}

export const DEFAULT_TAIL_PARAMS: Readonly<TailParams> = Object.freeze({
  stepMs: 1000,
  windowMs: 30_000,
  baselineMs: 600_000,
  minBaselineMs: 120_000,
  refreshMs: 60_000,
  quantile: 0.99,
  lineFactor: 2,
  severeLineFactor: 2,
  loneLineFactor: 3,
  loneCalmShare: 0.667,
  loneSignificance: 5e-5,
  minLineMs: 1,
  runMs: 5000,
  significance: 2e-4,
  suspectAfterMs: 3000,
  observeMs: 10_000,
  confirmShare: 0.7,
  newEventsSignificance: 0.01,
  observeExtendMs: 20_000,
  fallbackMs: 10_000,
  releaseSignificance: 0.05,
  releaseMs: 30_000,
  failureLatencyMs: DEFAULT_SCORE_PARAMS.timeoutMs,
  peerCondition: true,
  hostWideShare: 0.5,
  peerRiseSignificance: 0.25,
});

/** The detector's flags, all recorded in a trace. */
export const TAIL_SPECS: readonly ParamSpec<keyof TailParams>[] = Object.freeze([
  { key: 'windowMs', flag: '--tail-window <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.windowMs, range: { minMs: 5000, maxMs: DAY_MS }, meaning: "the share of slow inspections is judged over each disk's last this-much", group: 'tail', trace: 'tail_window_ms' },
  { key: 'baselineMs', flag: '--tail-baseline <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.baselineMs, range: { minMs: 60_000, maxMs: DAY_MS }, meaning: "each disk's healthy baseline is this much of its inspections before the window", group: 'tail', trace: 'tail_baseline_ms' },
  { key: 'quantile', flag: '--tail-quantile <x>', kind: 'number', default: DEFAULT_TAIL_PARAMS.quantile, min: 0.5, max: 0.9999, meaning: "an inspection is slow above a multiple of this quantile of the disk's baseline", group: 'tail', trace: 'tail_quantile' },
  { key: 'lineFactor', flag: '--tail-line-factor <x>', kind: 'number', default: DEFAULT_TAIL_PARAMS.lineFactor, min: 1, max: 100, meaning: 'this many times that quantile', group: 'tail', trace: 'tail_line_factor' },
  { key: 'minLineMs', flag: '--tail-min-line <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.minLineMs, range: { minMs: 0.001, maxMs: 3_600_000 }, meaning: 'and never under this', group: 'tail', trace: 'tail_min_line_ms' },
  { key: 'significance', flag: '--tail-significance <x>', kind: 'probability', default: DEFAULT_TAIL_PARAMS.significance, meaning: "a window's rise counts when the binomial test's chance of it is under this", group: 'tail', trace: 'tail_significance' },
  { key: 'observeMs', flag: '--tail-observe <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.observeMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'a suspect disk is observed at least this much longer before it is confirmed', group: 'tail', trace: 'tail_observe_ms' },
  { key: 'releaseMs', flag: '--tail-release <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.releaseMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'a confirmed disk is ok again after this long without any rise', group: 'tail', trace: 'tail_release_ms' },
  { key: 'stepMs', flag: '--tail-step <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.stepMs, range: { minMs: 100, maxMs: 60_000 }, meaning: 'each disk is judged once per this much, and every duration of the detector is at least one step', group: 'tail', trace: 'tail_step_ms' },
  { key: 'minBaselineMs', flag: '--tail-min-baseline <duration>', kind: 'duration', default: undefined, defaultText: '2m, or the whole baseline when shorter', range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'a disk is judged once its baseline holds this much', group: 'tail', trace: 'tail_min_baseline_ms' },
  { key: 'refreshMs', flag: '--tail-refresh <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.refreshMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: "the baseline's slow line and rates are recomputed this often while the disk is ok", group: 'tail', trace: 'tail_refresh_ms' },
  { key: 'severeLineFactor', flag: '--tail-severe-line-factor <x>', kind: 'number', default: DEFAULT_TAIL_PARAMS.severeLineFactor, min: 1.01, max: 100, meaning: 'the severe line, this many times the slow line, has a test of its own', group: 'tail', trace: 'tail_severe_line_factor' },
  { key: 'loneLineFactor', flag: '--tail-lone-factor <x>', kind: 'number', default: DEFAULT_TAIL_PARAMS.loneLineFactor, min: 1.01, max: 100, meaning: "an inspection above this many times the disk's median, its neighbours calm, is lone: their share has a test of its own", group: 'tail', trace: 'tail_lone_line_factor' },
  { key: 'loneCalmShare', flag: '--tail-lone-calm <x>', kind: 'probability', default: DEFAULT_TAIL_PARAMS.loneCalmShare, meaning: "a lone inspection's neighbours are at most this share of that line", group: 'tail', trace: 'tail_lone_calm_share' },
  { key: 'loneSignificance', flag: '--tail-lone-significance <x>', kind: 'number', default: DEFAULT_TAIL_PARAMS.loneSignificance, min: 0, max: 0.5, meaning: "the lone inspections' test raises a window under this chance (0: off)", group: 'tail', trace: 'tail_lone_significance', untraced: 0 },
  { key: 'runMs', flag: '--tail-run <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.runMs, range: { minMs: 1000, maxMs: 3_600_000 }, meaning: 'slow steps in a row count as one slow event per this much of their run', group: 'tail', trace: 'tail_run_ms' },
  { key: 'suspectAfterMs', flag: '--tail-suspect-after <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.suspectAfterMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'a window raised this long in a row makes a disk suspect', group: 'tail', trace: 'tail_suspect_after_ms' },
  { key: 'confirmShare', flag: '--tail-confirm-share <x>', kind: 'probability', default: DEFAULT_TAIL_PARAMS.confirmShare, meaning: 'confirmed when more than this share of the observed steps were raised', group: 'tail', trace: 'tail_confirm_share' },
  { key: 'newEventsSignificance', flag: '--tail-new-evidence <x>', kind: 'number', default: DEFAULT_TAIL_PARAMS.newEventsSignificance, min: 1e-12, max: 1, meaning: 'and the slow events since the first raised step are new evidence at this chance (1: not asked)', group: 'tail', trace: 'tail_new_events_significance' },
  { key: 'observeExtendMs', flag: '--tail-extend <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.observeExtendMs, range: { minMs: 1, maxMs: DAY_MS }, meaning: 'a suspect disk still wanting new evidence is observed up to this much longer', group: 'tail', trace: 'tail_observe_extend_ms' },
  { key: 'fallbackMs', flag: '--tail-fallback <duration>', kind: 'duration', default: DEFAULT_TAIL_PARAMS.fallbackMs, range: { minMs: 1000, maxMs: DAY_MS }, meaning: 'a suspect disk not raised this long in a row is cancelled', group: 'tail', trace: 'tail_fallback_ms' },
  { key: 'releaseSignificance', flag: '--tail-release-significance <x>', kind: 'probability', default: DEFAULT_TAIL_PARAMS.releaseSignificance, meaning: "a window shows no rise when the test's chance of it is above this (at least --tail-significance)", group: 'tail', trace: 'tail_release_significance' },
  { key: 'hostWideShare', flag: '--tail-host-wide-share <x>', kind: 'number', default: DEFAULT_TAIL_PARAMS.hostWideShare, min: 0, max: 0.99, meaning: 'when more than this share of the other disks rise, a disk is judged against their rate', group: 'tail', trace: 'tail_host_wide_share' },
  { key: 'peerRiseSignificance', flag: '--tail-peer-rise <x>', kind: 'probability', default: DEFAULT_TAIL_PARAMS.peerRiseSignificance, meaning: "a peer rises when the test's chance of its slow events is under this", group: 'tail', trace: 'tail_peer_rise_significance' },
]);

/** Fills in the defaults and rejects values the rules cannot work with. */
export function tailParams(overrides: Partial<TailParams> = {}): TailParams {
  const params: TailParams = { ...DEFAULT_TAIL_PARAMS, ...overrides };
  // A baseline shorter than the default warm-up is judged once it is full.
  if (overrides.minBaselineMs === undefined) params.minBaselineMs = Math.min(DEFAULT_TAIL_PARAMS.minBaselineMs, params.baselineMs);
  const positive: (keyof TailParams)[] = ['stepMs', 'windowMs', 'baselineMs', 'minBaselineMs', 'refreshMs', 'runMs', 'suspectAfterMs', 'observeMs', 'fallbackMs', 'releaseMs', 'failureLatencyMs'];
  for (const key of positive) {
    const value = params[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw new RangeError(`tail detector: ${key} must be a number above 0, got ${String(value)}`);
  }
  for (const key of ['quantile', 'significance', 'confirmShare', 'releaseSignificance', 'peerRiseSignificance', 'loneCalmShare'] as const) {
    if (!(params[key] > 0 && params[key] < 1)) throw new RangeError(`tail detector: ${key} must be above 0 and below 1, got ${String(params[key])}`);
  }
  if (!(params.newEventsSignificance > 0 && params.newEventsSignificance <= 1)) throw new RangeError(`tail detector: newEventsSignificance must be above 0 and at most 1, got ${String(params.newEventsSignificance)}`);
  if (!(params.observeExtendMs >= 0 && Number.isFinite(params.observeExtendMs))) throw new RangeError(`tail detector: observeExtendMs must be 0 or more, got ${String(params.observeExtendMs)}`);
  if (!(params.hostWideShare >= 0 && params.hostWideShare < 1)) throw new RangeError('tail detector: hostWideShare must be in [0, 1)');
  if (!(params.lineFactor >= 1 && Number.isFinite(params.lineFactor))) throw new RangeError('tail detector: lineFactor must be 1 or more');
  if (!(params.severeLineFactor > 1 && Number.isFinite(params.severeLineFactor))) throw new RangeError('tail detector: severeLineFactor must be above 1');
  if (!(params.loneSignificance >= 0 && params.loneSignificance < 1)) throw new RangeError(`tail detector: loneSignificance must be 0 (off) or above, and below 1, got ${String(params.loneSignificance)}`);
  if (!(params.loneLineFactor > 1 && Number.isFinite(params.loneLineFactor))) throw new RangeError('tail detector: loneLineFactor must be above 1');
  if (!(params.minLineMs >= 0 && Number.isFinite(params.minLineMs))) throw new RangeError('tail detector: minLineMs must be 0 or more');
  if (params.releaseSignificance < params.significance) throw new RangeError('tail detector: releaseSignificance must be at least significance (the hysteresis)');
  for (const key of ['windowMs', 'runMs', 'suspectAfterMs', 'observeMs', 'fallbackMs', 'releaseMs', 'refreshMs', 'minBaselineMs'] as const) {
    if (params[key] < params.stepMs) throw new RangeError(`tail detector: ${key} must be at least the step (${params.stepMs} ms)`);
  }
  if (params.minBaselineMs > params.baselineMs) throw new RangeError('tail detector: minBaselineMs must be at most baselineMs');
  return params;
}
