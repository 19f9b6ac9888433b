// From days to a verdict: a drive is fail-slow when it ran slower than its peers on most of
// the host's recent days, not on one.

import type { DriveDay, HostDay } from './day.js';
import type { PeerParams } from './params.js';
import { median, medianAbsoluteDeviation } from './robust.js';

export type Verdict = 'slow' | 'ok';

/** One drive's verdict and the evidence for it. */
export interface DriveVerdict {
  disk: string;
  /**
   * `slow` when the drive was slow on at least `minSlowDays` of some `windowDays` days in a
   * row of the host's data, `ok` otherwise. A fail-slow drive rarely recovers by itself, so
   * the verdict latches: a drive slow for a week and fine since is still reported, with
   * `current` ok.
   */
  verdict: Verdict;
  /** The verdict on the last `windowDays` days of the data alone. */
  current: Verdict;
  /** The day as of which it was first judged slow (null: never). */
  firstSlow: string | null;
  /** The last day as of which it was judged slow (null: never). */
  lastSlow: string | null;
  /** How many days of data the first slow verdict needed (the host's days up to firstSlow); null: never. */
  daysToDetect: number | null;
  /**
   * The evidence below is from the window judged: the one ending on lastSlow for a slow drive,
   * the last one otherwise. Its latency over its peers' at comparable load: the median of its
   * daily ratios over the judged days (NaN: none).
   */
  ratio: number;
  /** Its throughput over its peers' (the median of its daily figures): near 1 means a comparison at like load. */
  loadRatio: number;
  /** Days it was slow on, in the window. */
  slowDays: number;
  /** Days it was observed on in the window, host-wide days left out. */
  days: number;
  /** Days it looked slow on but so did too many of its peers (not counted either way). */
  hostWideDays: number;
  /** The share of its windows, over the judged days, in which it ran at least `slowRatio` times its peers. */
  windowShare: number;
  /** How far its ratio stands out among the host's drives, in robust standard deviations (median and MAD). */
  z: number;
  /**
   * How sure the verdict is, 0 to 1: the share of judged days that agree with it, times the
   * share of the window that was judged (4 slow days out of 4 is less sure than 7 out of 7).
   */
  confidence: number;
  /** The first and last day of the window judged. */
  from: string;
  to: string;
}

export interface HostVerdict {
  /** The host's days, ascending. */
  days: string[];
  /** Of those, the days on which too many drives were slow together. */
  hostWideDays: number;
  drives: DriveVerdict[];
}

/** One drive's evidence over one window of days. */
type WindowEvidence = Omit<DriveVerdict, 'current' | 'firstSlow' | 'lastSlow' | 'daysToDetect'>;

/** The MAD never counts as less than this on the log scale (1 %), so that identical drives do not give infinite z. */
const MIN_LOG_SPREAD = 0.01;

const COLLATOR = new Intl.Collator('en', { numeric: true });

/** Compares names with their numbers as numbers: disk2 before disk10. */
export function naturalCompare(a: string, b: string): number {
  return COLLATOR.compare(a, b);
}

/** Every drive's evidence over the days of one window (ascending). */
function judgeWindow(window: readonly HostDay[], disks: readonly string[], params: PeerParams): WindowEvidence[] {
  const evidence = disks.map((disk): WindowEvidence => {
    const judged: DriveDay[] = [];
    let hostWideDays = 0;
    for (const day of window) {
      const drive = day.drives.find((one) => one.disk === disk);
      if (!drive || !drive.observed) continue;
      if (drive.hostWide) hostWideDays += 1;
      else judged.push(drive);
    }
    const slowDays = judged.filter((drive) => drive.slow).length;
    const days = judged.length;
    const windows = judged.reduce((sum, drive) => sum + drive.windows, 0);
    const slowWindows = judged.reduce((sum, drive) => sum + drive.slowWindows, 0);
    const slow = slowDays >= params.minSlowDays;
    const agreeing = slow ? slowDays : days - slowDays;
    return {
      disk,
      verdict: slow ? 'slow' : 'ok',
      ratio: days > 0 ? median(judged.map((drive) => drive.ratio)) : NaN,
      loadRatio: days > 0 ? median(judged.map((drive) => drive.loadRatio)) : NaN,
      slowDays,
      days,
      hostWideDays,
      windowShare: windows > 0 ? slowWindows / windows : NaN,
      z: NaN,
      confidence: days > 0 ? (agreeing / days) * Math.min(1, days / params.windowDays) : 0,
      from: window.length > 0 ? window[0].day : '',
      to: window.length > 0 ? window[window.length - 1].day : '',
    };
  });
  const logs = evidence.filter((drive) => drive.days > 0).map((drive) => Math.log(drive.ratio));
  if (logs.length > 0) {
    const center = median(logs);
    const spread = Math.max(MIN_LOG_SPREAD, 1.4826 * medianAbsoluteDeviation(logs, center));
    for (const drive of evidence) if (drive.days > 0) drive.z = (Math.log(drive.ratio) - center) / spread;
  }
  return evidence;
}

/**
 * The verdicts of one host's drives from its judged days (any order; sorted by day name
 * here): the window of `windowDays` days ending on each day in turn is judged, as the data
 * would have been on that day.
 */
export function judgeHost(hostDays: readonly HostDay[], params: PeerParams): HostVerdict {
  const sorted = [...hostDays].sort((a, b) => naturalCompare(a.day, b.day));
  const names = new Set<string>();
  for (const day of sorted) for (const drive of day.drives) names.add(drive.disk);
  const disks = [...names].sort(naturalCompare);
  const firstSlow = new Map<string, number>();
  const lastSlow = new Map<string, { at: number; evidence: WindowEvidence }>();
  let current: WindowEvidence[] = judgeWindow([], disks, params);
  for (let end = 1; end <= sorted.length; end += 1) {
    current = judgeWindow(sorted.slice(Math.max(0, end - params.windowDays), end), disks, params);
    for (const evidence of current) {
      if (evidence.verdict !== 'slow') continue;
      if (!firstSlow.has(evidence.disk)) firstSlow.set(evidence.disk, end);
      lastSlow.set(evidence.disk, { at: end, evidence });
    }
  }
  const drives = current.map((now): DriveVerdict => {
    const last = lastSlow.get(now.disk);
    const first = firstSlow.get(now.disk);
    return {
      ...(last ? last.evidence : now),
      current: now.verdict,
      firstSlow: first === undefined ? null : sorted[first - 1].day,
      lastSlow: last === undefined ? null : sorted[last.at - 1].day,
      daysToDetect: first ?? null,
    };
  });
  return { days: sorted.map((day) => day.day), hostWideDays: sorted.filter((day) => day.hostWide).length, drives };
}

/**
 * How many days of data each drive needed to be judged slow: the verdict is taken on the
 * host's first 1, 2, ... days, as if the data had ended there. A drive never judged slow is
 * absent. The days are judged independently, so this costs no more than the verdicts.
 */
export function daysToDetection(hostDays: readonly HostDay[], params: PeerParams): Map<string, { days: number; day: string }> {
  const sorted = [...hostDays].sort((a, b) => naturalCompare(a.day, b.day));
  const found = new Map<string, { days: number; day: string }>();
  for (let k = 1; k <= sorted.length; k += 1) {
    for (const drive of judgeHost(sorted.slice(0, k), params).drives) {
      if (drive.verdict === 'slow' && !found.has(drive.disk)) found.set(drive.disk, { days: k, day: sorted[k - 1].day });
    }
  }
  return found;
}
