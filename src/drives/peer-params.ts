// Every parameter of the peer (fail-slow) detector, with its default and the reason for it.
// The defaults come from first principles and the Perseus paper (FAST '23), not from a fit to
// one cluster: `npm run bench:perseus` prints how the result moves when each main one moves
// by 25 %, and a hold-out check. `analyze` sets the verdict's three with flags (PEER_SPECS).
import type { ParamSpec } from '../common/param-spec.js';

export interface PeerParams {
  /**
   * Samples are averaged into buckets of this many seconds before drives are compared, so
   * that drives sampled at slightly different instants (or every 15 s) meet on one clock.
   * 60 s: the resolution of the published Perseus series.
   */
  bucketSeconds: number;
  /**
   * A drive is compared at a minute only with at least this many peers (other drives of the
   * host with a sample in that bucket): the median of fewer is not a reference.
   */
  minPeers: number;
  /**
   * A drive whose throughput in a bucket is below this share of its peers' median is idle
   * there: the latency of a handful of I/Os is not comparable, and the bucket is skipped for
   * that drive. 0.2 stays clear of real fail-slow drives: under a closed-loop load a drive k
   * times slower serves about 1/k of its peers' throughput, and fail-slow drives run 1.2x to
   * 2.3x (Perseus), far from 5x.
   */
  minLoadShare: number;
  /**
   * Buckets where the host as a whole runs below this share of its typical (median) load of
   * the day are skipped for every drive: an idle host says nothing about its drives.
   */
  minHostLoadShare: number;
  /**
   * The most latency may be charged to load, as an elasticity: a drive busier than its peers
   * by a factor f is expected to be f^beta slower, with beta the host's own elasticity of the
   * day (the median over its drives of the slope of relative log latency on relative log
   * throughput), clamped to [0, this]. 1 (latency proportional to load) is the physical
   * ceiling for a saturated queue; 0 turns the load-aware comparison off.
   */
  maxLoadElasticity: number;
  /** Buckets are grouped into windows of this many seconds; a window's ratio is its median. */
  windowSeconds: number;
  /** A window counts only when at least this share of its buckets were comparable. */
  minWindowCoverage: number;
  /** A drive is observed on a day only with at least this many comparable windows. */
  minDayWindows: number;
  /**
   * A window is slow when the drive's latency is at least this many times its peers' (load
   * adjusted). 1.2: the labelled fail-slow drives of Perseus run 1.2x to 2.3x their peers.
   */
  slowRatio: number;
  /** A drive is slow on a day when at least this share of its windows that day are slow (most of the day). */
  minSlowWindowShare: number;
  /**
   * A day on which more than this share of a host's observed drives are slow together is
   * host-wide slowness (the workload, a controller, the enclosure), not a drive fault: none
   * of those drives is charged a slow day for it.
   */
  hostWideShare: number;
  /**
   * The verdict looks at windows of this many days of the host's data (a week: the days of
   * the host that have a file, so a day without data anywhere costs nothing; host-wide days of
   * the drive's class do not count either, the window reaching back over them). The verdict
   * now is the last window's.
   */
  windowDays: number;
  /**
   * A drive is slow when it was slow on at least this many of the days of such a window: 4 of
   * 7 is most of a week, whatever the drive's other days were. A drive missing from some of
   * those days needs as many slow days among the rest; a host with fewer days of data than
   * this has no verdict yet. Healthy drives that stand out on single days (or on three days
   * of a week) are never flagged.
   */
  minSlowDays: number;
}

export const DEFAULT_PEER_PARAMS: Readonly<PeerParams> = Object.freeze({
  bucketSeconds: 60,
  minPeers: 3,
  minLoadShare: 0.2,
  minHostLoadShare: 0.1,
  maxLoadElasticity: 1,
  windowSeconds: 600,
  minWindowCoverage: 0.5,
  minDayWindows: 3,
  slowRatio: 1.2,
  minSlowWindowShare: 0.5,
  hostWideShare: 1 / 3,
  windowDays: 7,
  minSlowDays: 4,
});

/** The flags of `analyze`. */
export const PEER_SPECS: readonly ParamSpec<keyof PeerParams>[] = Object.freeze([
  { key: 'slowRatio', flag: '--slow-ratio <x>', kind: 'number', default: DEFAULT_PEER_PARAMS.slowRatio, min: 1.0001, max: 100, meaning: "a window is slow when the drive's latency is at least this many times its peers'", group: 'peer' },
  { key: 'windowDays', flag: '--window-days <n>', kind: 'integer', default: DEFAULT_PEER_PARAMS.windowDays, min: 1, max: 10_000, meaning: 'the verdict looks at windows of this many days', group: 'peer' },
  { key: 'minSlowDays', flag: '--min-slow-days <n>', kind: 'integer', default: DEFAULT_PEER_PARAMS.minSlowDays, min: 1, max: 10_000, meaning: 'a drive is slow with at least this many slow days in a window of --window-days', group: 'peer' },
]);

/** The defaults with some parameters replaced; throws a RangeError on a value out of range. */
export function peerParams(overrides: Partial<PeerParams> = {}): PeerParams {
  const params: PeerParams = { ...DEFAULT_PEER_PARAMS, ...overrides };
  const check = (name: keyof PeerParams, ok: boolean) => {
    if (!ok) throw new RangeError(`peer parameter ${name} out of range: ${String(params[name])}`);
  };
  const finite = (name: keyof PeerParams) => Number.isFinite(params[name]);
  check('bucketSeconds', finite('bucketSeconds') && params.bucketSeconds > 0);
  check('minPeers', Number.isInteger(params.minPeers) && params.minPeers >= 1);
  check('minLoadShare', finite('minLoadShare') && params.minLoadShare >= 0 && params.minLoadShare < 1);
  check('minHostLoadShare', finite('minHostLoadShare') && params.minHostLoadShare >= 0 && params.minHostLoadShare < 1);
  check('maxLoadElasticity', finite('maxLoadElasticity') && params.maxLoadElasticity >= 0);
  check('windowSeconds', finite('windowSeconds') && params.windowSeconds >= params.bucketSeconds);
  check('minWindowCoverage', finite('minWindowCoverage') && params.minWindowCoverage > 0 && params.minWindowCoverage <= 1);
  check('minDayWindows', Number.isInteger(params.minDayWindows) && params.minDayWindows >= 1);
  check('slowRatio', finite('slowRatio') && params.slowRatio > 1);
  check('minSlowWindowShare', finite('minSlowWindowShare') && params.minSlowWindowShare > 0 && params.minSlowWindowShare <= 1);
  check('hostWideShare', finite('hostWideShare') && params.hostWideShare > 0 && params.hostWideShare <= 1);
  check('windowDays', Number.isInteger(params.windowDays) && params.windowDays >= 1);
  check('minSlowDays', Number.isInteger(params.minSlowDays) && params.minSlowDays >= 1 && params.minSlowDays <= params.windowDays);
  return params;
}
