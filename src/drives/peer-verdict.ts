// From days to a verdict: a drive is fail-slow when it ran slower than its peers of the same
// device class on most of the host's recent days, not on one; one that was and has recovered
// is told apart, with its past episodes.

import { naturalCompare } from '../common/natural-compare.js';
import type { DriveDay, HostDay } from './peer-day.js';
import type { PeerParams } from './peer-params.js';
import { median, medianAbsoluteDeviation } from './order-statistics.js';

export type Verdict = 'slow' | 'ok';

/**
 * A stretch of days a drive was judged slow: the slow days of the windows that met the rule
 * (`minSlowDays` of `windowDays`), windows that share a slow day being one stretch.
 */
export interface SlowEpisode {
  /** Its first and last slow day. */
  from: string;
  to: string;
  /** The drive's judged days from `from` to `to` (host-wide days and days it was not observed left out), and the slow ones of them. */
  days: number;
  slowDays: number;
  /** Its latency over its peers' at comparable load: the median of its ratios on those slow days. */
  ratio: number;
  /** The day as of which the rule first held (the end of its first slow window), and how many days of the data that was. */
  detected: string;
  daysToDetect: number;
  /** Still going: the last window of the data is slow. */
  ongoing: boolean;
}

/** One drive's verdict now, the evidence for it, and its past. */
export interface DriveVerdict {
  disk: string;
  /** The device class it was judged in, against the drives of that class alone ('' : the whole host). */
  peerClass: string;
  /**
   * Now: `slow` when the drive was slow on at least `minSlowDays` of the last `windowDays` days
   * of its class's data (host-wide days not counted: the window reaches back over them), `ok`
   * otherwise. A drive that was slow and has recovered is `ok`, with its episodes below.
   */
  verdict: Verdict;
  /**
   * The evidence below is from those last days. Its latency over its peers' at comparable
   * load: the median of its daily ratios over the judged days (NaN: none).
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
  /** How far its ratio stands out among the drives of its class, in robust standard deviations (median and MAD). */
  z: number;
  /**
   * How sure the verdict is, 0 to 1: the share of judged days that agree with it, times the
   * share of the window that was judged (4 slow days out of 4 is less sure than 7 out of 7).
   */
  confidence: number;
  /** The first and last day of the window judged. */
  from: string;
  to: string;
  /** Every stretch it was judged slow, oldest first; the last one is `ongoing` when the drive is slow now. */
  episodes: SlowEpisode[];
}

/** The drives of one device class, judged against each other. */
export interface PeerGroup {
  peerClass: string;
  /** The most drives of the class seen on one day. */
  drives: number;
  /** At least `minPeers + 1` drives: the class can be judged. Its drives' verdicts mean nothing otherwise. */
  judged: boolean;
  /** The class's days on which too many of its drives were slow together. */
  hostWideDays: number;
}

export interface HostVerdict {
  /** The host's days, ascending (any class). */
  days: string[];
  /** Of those, the days on which too many drives of some class were slow together. */
  hostWideDays: number;
  /** The device classes, in natural order. */
  groups: PeerGroup[];
  drives: DriveVerdict[];
}

/** One drive's evidence over one window of days. */
type WindowEvidence = Omit<DriveVerdict, 'peerClass' | 'episodes'>;

/** The MAD never counts as less than this on the log scale (1 %), so that identical drives do not give infinite z. */
const MIN_LOG_SPREAD = 0.01;

/** The drives a group needs to be judged: one and its `minPeers` peers. */
export const groupMinimum = (params: PeerParams): number => params.minPeers + 1;

/** What stands in place of a verdict for the drives of a class with fewer than `groupMinimum` drives. */
export function tooFewToJudge(peerClass: string, drives: number, params: PeerParams): string {
  return `too few drives to judge (${drives} ${peerClass === '' ? 'drives' : `of class ${peerClass}`}, ${groupMinimum(params)} needed)`;
}

/** A drive's judgement of the day, when it counts for or against it (observed, not host-wide). */
function judgedDay(day: HostDay, disk: string): DriveDay | null {
  const drive = day.drives.find((one) => one.disk === disk);
  return drive && drive.observed && !drive.hostWide ? drive : null;
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
 * Where the window ending before `days[end]` starts: `windowDays` days back, host-wide days
 * not counted (they say nothing about any drive of the class, so the window reaches back over
 * them rather than let them push a drive's evidence out).
 */
function windowStart(days: readonly HostDay[], end: number, params: PeerParams): number {
  let start = end;
  for (let counted = 0; start > 0 && counted < params.windowDays; start -= 1) if (!days[start - 1].hostWide) counted += 1;
  return start;
}

/**
 * A drive's episodes from the windows judged slow (by their end, an index into `days`, 1-based):
 * each slow window gives the span from its first to its last slow day; spans that share a
 * day are one episode.
 */
function episodesOf(disk: string, days: readonly HostDay[], slowEnds: readonly number[], params: PeerParams): SlowEpisode[] {
  const spans: { first: number; last: number; end: number }[] = [];
  for (const end of slowEnds) {
    let first = -1;
    let last = -1;
    for (let i = windowStart(days, end, params); i < end; i += 1) {
      if (!judgedDay(days[i], disk)?.slow) continue;
      if (first < 0) first = i;
      last = i;
    }
    const previous = spans[spans.length - 1];
    if (previous && first <= previous.last) previous.last = Math.max(previous.last, last);
    else spans.push({ first, last, end });
  }
  return spans.map(({ first, last, end }): SlowEpisode => {
    const judged = days.slice(first, last + 1).map((day) => judgedDay(day, disk)).filter((drive) => drive !== null);
    const slow = judged.filter((drive) => drive.slow);
    return {
      from: days[first].day,
      to: days[last].day,
      days: judged.length,
      slowDays: slow.length,
      ratio: median(slow.map((drive) => drive.ratio)),
      detected: days[end - 1].day,
      daysToDetect: end,
      ongoing: false,
    };
  });
}

/**
 * The verdicts of the drives of one class from its judged days (ascending): the window of
 * `windowDays` days ending on each day in turn is judged, as the data would have been on
 * that day; the last one is the verdict now, the slow ones make the episodes.
 */
function judgeClass(sorted: readonly HostDay[], peerClass: string, params: PeerParams): DriveVerdict[] {
  const names = new Set<string>();
  for (const day of sorted) for (const drive of day.drives) names.add(drive.disk);
  const disks = [...names].sort(naturalCompare);
  const slowEnds = new Map<string, number[]>(disks.map((disk) => [disk, []]));
  let current: WindowEvidence[] = judgeWindow([], disks, params);
  for (let end = 1; end <= sorted.length; end += 1) {
    current = judgeWindow(sorted.slice(windowStart(sorted, end, params), end), disks, params);
    for (const evidence of current) if (evidence.verdict === 'slow') slowEnds.get(evidence.disk)!.push(end);
  }
  return current.map((now): DriveVerdict => {
    const ends = slowEnds.get(now.disk)!;
    const episodes = episodesOf(now.disk, sorted, ends, params);
    if (now.verdict === 'slow') episodes[episodes.length - 1].ongoing = true;
    return { ...now, peerClass, episodes };
  });
}

/**
 * The verdicts of one host's drives from its judged days (any order), each device class
 * judged on its own days against itself.
 */
export function judgeHost(hostDays: readonly HostDay[], params: PeerParams): HostVerdict {
  const byClass = new Map<string, HostDay[]>();
  for (const day of hostDays) {
    const list = byClass.get(day.peerClass) ?? [];
    list.push(day);
    byClass.set(day.peerClass, list);
  }
  const groups: PeerGroup[] = [];
  const drives: DriveVerdict[] = [];
  const hostWide = new Set<string>();
  for (const peerClass of [...byClass.keys()].sort(naturalCompare)) {
    const sorted = byClass.get(peerClass)!.sort((a, b) => naturalCompare(a.day, b.day));
    const size = Math.max(0, ...sorted.map((day) => day.drives.length));
    for (const day of sorted) if (day.hostWide) hostWide.add(day.day);
    groups.push({ peerClass, drives: size, judged: size >= groupMinimum(params), hostWideDays: sorted.filter((day) => day.hostWide).length });
    drives.push(...judgeClass(sorted, peerClass, params));
  }
  const days = [...new Set(hostDays.map((day) => day.day))].sort(naturalCompare);
  return { days, hostWideDays: hostWide.size, groups, drives };
}
