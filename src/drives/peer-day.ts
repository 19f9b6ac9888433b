// One host, one day: how much slower each drive ran than its peers at comparable load.
//
// At every bucket (minute), each drive's latency is set against the median latency of the
// host's other drives at that same minute, on a log scale, so the host's own swings (a busy
// hour, a slow controller) cancel out. The comparison is load-aware: a drive that served more
// than its peers that minute is expected to be slower by (its throughput / theirs)^beta, with
// beta the host's own elasticity of that day. Minutes where the drive (or the whole host) was
// idle are skipped. The minutes are then summarised in windows (a median each), and the day
// by the share of windows in which the drive ran at least `slowRatio` times its peers.

import type { PeerParams } from './peer-params.js';
import { medianInPlace } from '../common/robust-stats.js';
import { medianWithoutRank, sortIndicesByValue } from './order-statistics.js';
import { splitByClass, type AlignedDay } from './aligned-series.js';

/** One drive on one day. */
export interface DriveDay {
  disk: string;
  /** Buckets (minutes) in which the drive was compared with its peers. */
  buckets: number;
  /** Windows with enough comparable buckets. */
  windows: number;
  /** Of those, the windows in which the drive ran at least `slowRatio` times its peers. */
  slowWindows: number;
  /** The drive's latency over its peers', load adjusted: the median over its windows. NaN when not observed. */
  ratio: number;
  /** The drive's throughput over its peers' (the median over its comparable buckets); NaN when not observed. */
  loadRatio: number;
  /** Enough comparable windows (`minDayWindows`) to judge the day. */
  observed: boolean;
  /** Slow that day: most of its windows slow, and the day not host-wide. */
  slow: boolean;
  /** Slow by the windows, but the day was host-wide, so not charged to the drive. */
  hostWide: boolean;
}

/** One host on one day: the drives of one device class, judged against each other. */
export interface HostDay {
  day: string;
  /** The device class of its drives ('' when the drives carry none: the whole host). */
  peerClass: string;
  /** The elasticity of latency to load used that day (beta, see `maxLoadElasticity`). */
  loadElasticity: number;
  /** Too many drives slow together that day: a host-wide slowdown, not a drive fault. */
  hostWide: boolean;
  drives: DriveDay[];
}

/** Drives of one slope fit need this many comparable buckets. */
const MIN_SLOPE_BUCKETS = 30;
/** Relative log throughput must vary at least this much (variance) for a slope to mean anything. */
const MIN_LOAD_VARIANCE = 1e-4;

/** Judges one host-day, each device class against itself: a HostDay per class. */
export function judgeDayByClass(day: AlignedDay, params: PeerParams): HostDay[] {
  return splitByClass(day).map((one) => judgeDay(one, params));
}

/** Judges one host-day whose drives are of one class (see judgeDayByClass). Pure: reads `day`, allocates its own scratch. */
export function judgeDay(day: AlignedDay, params: PeerParams): HostDay {
  const { rel, load } = relativeToPeers(day, params);
  const beta = loadElasticity(rel, load, params);
  const summarise = windowSummary(day, params, beta);
  const drives = day.disks.map((disk, d) => summarise(disk, rel[d], load[d]));
  const observedDrives = drives.filter((drive) => drive.observed).length;
  const slowDrives = drives.filter((drive) => drive.slow).length;
  const hostWide = observedDrives > 0 && slowDrives > params.hostWideShare * observedDrives;
  if (hostWide) {
    for (const drive of drives) {
      if (drive.slow) {
        drive.slow = false;
        drive.hostWide = true;
      }
    }
  }
  return { day: day.day, peerClass: day.classes[0] ?? '', loadElasticity: beta, hostWide, drives };
}

/** The log of the least throughput share a bucket is compared at (-Infinity: any). */
function minLoadLog(params: PeerParams): number {
  return params.minLoadShare > 0 ? Math.log(params.minLoadShare) : -Infinity;
}

/**
 * Each drive's log latency over the median of its peers' at each bucket (`rel`), and its log
 * throughput over theirs (`load`); NaN where it was not compared: the host idle, the drive
 * without a sample, too few peers, or its share of the load under `minLoadShare`.
 */
function relativeToPeers(day: AlignedDay, params: PeerParams): { rel: Float64Array[]; load: Float64Array[] } {
  const n = day.disks.length;
  const buckets = day.bucketStart.length;
  const rel = Array.from({ length: n }, () => new Float64Array(buckets).fill(NaN));
  const load = Array.from({ length: n }, () => new Float64Array(buckets).fill(NaN));
  const idle = idleBuckets(day, params);
  const logL = new Float64Array(n);
  const logT = new Float64Array(n);
  const driveOf = new Int32Array(n);
  const orderL = new Int32Array(n);
  const orderT = new Int32Array(n);
  const rankT = new Int32Array(n);
  const minLoad = minLoadLog(params);
  for (let b = 0; b < buckets; b += 1) {
    if (idle[b] === 1) continue;
    let m = 0;
    for (let d = 0; d < n; d += 1) {
      const latency = day.latency[d][b];
      const throughput = day.throughput[d][b];
      if (!(latency > 0 && throughput > 0) || latency === Infinity || throughput === Infinity) continue;
      logL[m] = Math.log(latency);
      logT[m] = Math.log(throughput);
      driveOf[m] = d;
      orderL[m] = m;
      orderT[m] = m;
      m += 1;
    }
    if (m - 1 < params.minPeers) continue;
    sortIndicesByValue(orderL, logL, m);
    sortIndicesByValue(orderT, logT, m);
    for (let r = 0; r < m; r += 1) rankT[orderT[r]] = r;
    for (let r = 0; r < m; r += 1) {
      const k = orderL[r];
      const relLoad = logT[k] - medianWithoutRank(orderT, logT, m, rankT[k]);
      if (relLoad < minLoad) continue;
      const d = driveOf[k];
      rel[d][b] = logL[k] - medianWithoutRank(orderL, logL, m, r);
      load[d][b] = relLoad;
    }
  }
  return { rel, load };
}

/**
 * A drive's day from its compared buckets: each window's median of its load-adjusted ratio,
 * the windows at least `slowRatio`, and the medians over the day. The scratch is shared by
 * the drives of the day, one after the other.
 */
function windowSummary(day: AlignedDay, params: PeerParams, beta: number): (disk: string, rel: Float64Array, load: Float64Array) => DriveDay {
  const buckets = day.bucketStart.length;
  const minLoad = minLoadLog(params);
  const maxLoad = -minLoad;
  const windowOf = windowIndices(day, params);
  const perWindow = Math.max(1, Math.round(params.windowSeconds / day.bucketSeconds));
  const minInWindow = Math.max(1, Math.ceil(params.minWindowCoverage * perWindow));
  const slowLog = Math.log(params.slowRatio);
  const values = new Float64Array(buckets);
  const windowLogs = new Float64Array(buckets);
  const loads = new Float64Array(buckets);
  return (disk, rel, load) => {
    let compared = 0;
    let windows = 0;
    let slowWindows = 0;
    let inWindow = 0;
    let current = Number.NaN;
    const closeWindow = () => {
      if (inWindow >= minInWindow) {
        const value = medianInPlace(values, inWindow);
        windowLogs[windows] = value;
        windows += 1;
        if (value >= slowLog) slowWindows += 1;
      }
      inWindow = 0;
    };
    for (let b = 0; b < buckets; b += 1) {
      const r = rel[b];
      if (Number.isNaN(r)) continue;
      if (windowOf[b] !== current) {
        closeWindow();
        current = windowOf[b];
      }
      const l = load[b];
      values[inWindow] = r - beta * Math.min(maxLoad, Math.max(minLoad, l));
      inWindow += 1;
      loads[compared] = l;
      compared += 1;
    }
    closeWindow();
    const observed = windows >= params.minDayWindows;
    return {
      disk,
      buckets: compared,
      windows,
      slowWindows,
      ratio: observed ? Math.exp(medianInPlace(windowLogs, windows)) : NaN,
      loadRatio: observed ? Math.exp(medianInPlace(loads, compared)) : NaN,
      observed,
      slow: observed && slowWindows >= params.minSlowWindowShare * windows,
      hostWide: false,
    };
  };
}

/** 1 for the buckets in which the host as a whole ran below `minHostLoadShare` of its typical load of the day. */
function idleBuckets(day: AlignedDay, params: PeerParams): Uint8Array {
  const n = day.disks.length;
  const buckets = day.bucketStart.length;
  const idle = new Uint8Array(buckets);
  if (params.minHostLoadShare <= 0) return idle;
  const hostLoad = new Float64Array(buckets).fill(NaN);
  const scratch = new Float64Array(n);
  for (let b = 0; b < buckets; b += 1) {
    let m = 0;
    for (let d = 0; d < n; d += 1) {
      const throughput = day.throughput[d][b];
      if (throughput >= 0 && throughput !== Infinity) scratch[m++] = throughput;
    }
    if (m > 0) hostLoad[b] = medianInPlace(scratch, m);
  }
  const finite = hostLoad.filter((value) => !Number.isNaN(value));
  const typical = medianInPlace(finite);
  if (!(typical > 0)) return idle;
  const floor = typical * params.minHostLoadShare;
  for (let b = 0; b < buckets; b += 1) if (!(hostLoad[b] >= floor)) idle[b] = 1;
  return idle;
}

/**
 * The host's elasticity of relative latency to relative load that day: for each drive, the
 * least-squares slope of its log latency over its peers' on its log throughput over theirs,
 * across the day's minutes; the median over drives, clamped to [0, maxLoadElasticity]. The
 * median keeps a slow drive (whose throughput falls as its latency rises) from bending it.
 */
function loadElasticity(rel: Float64Array[], load: Float64Array[], params: PeerParams): number {
  if (params.maxLoadElasticity <= 0) return 0;
  const slopes: number[] = [];
  for (let d = 0; d < rel.length; d += 1) {
    let count = 0;
    let sx = 0;
    let sy = 0;
    let sxx = 0;
    let sxy = 0;
    for (let b = 0; b < rel[d].length; b += 1) {
      const y = rel[d][b];
      if (Number.isNaN(y)) continue;
      const x = load[d][b];
      count += 1;
      sx += x;
      sy += y;
      sxx += x * x;
      sxy += x * y;
    }
    if (count < MIN_SLOPE_BUCKETS) continue;
    const variance = sxx / count - (sx / count) ** 2;
    if (variance < MIN_LOAD_VARIANCE) continue;
    slopes.push((sxy / count - (sx / count) * (sy / count)) / variance);
  }
  if (slopes.length === 0) return 0;
  const beta = medianInPlace(Float64Array.from(slopes));
  return Math.min(params.maxLoadElasticity, Math.max(0, beta));
}

/** The window of each bucket, on the absolute clock (windows start at multiples of windowSeconds). */
function windowIndices(day: AlignedDay, params: PeerParams): Float64Array {
  const out = new Float64Array(day.bucketStart.length);
  for (let b = 0; b < out.length; b += 1) out[b] = Math.floor(day.bucketStart[b] / params.windowSeconds);
  return out;
}
