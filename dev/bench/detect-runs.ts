// One run of the detection benchmark (dev/bench/detect.ts): one scenario, one host, one seed,
// the detectors side by side.
//
// Every detector sees exactly what replay would feed it, tick by tick on a virtual clock: the
// slow score through the project's StoreTicks (tick(k x interval), then per disk finished()
// for a line under the interval, failed() otherwise), the two others through observe() for a
// line and failure() for a tick without one.
import { StatisticalDetector } from '../../src/detectors/statistical-detector.js';
import { DEFAULT_STATISTICAL_PARAMS, type StatisticalParams } from '../../src/detectors/statistical-params.js';
import { TailDetector } from '../../src/detectors/tail-detector.js';
import { DEFAULT_TAIL_PARAMS, type TailParams } from '../../src/detectors/tail-params.js';
import { DEFAULT_SCORE_PARAMS, SCORE_FLOOR, type ScoreParams } from '../../src/score/score-params.js';
import { msToReach } from '../../src/score/slow-score.js';
import { reportedScore } from '../../src/score/store-score.js';
import { StoreTicks } from '../../src/score/store-ticks.js';
import { FixedThresholdDetector } from '../baselines/fixed-threshold.js';
import { ScenarioGenerator, tickLatencies, type Media, type ScenarioKind, type ScenarioOptions } from '../scenarios/index.js';

export interface Host {
  name: string;
  disks: number;
  media: Media;
}

export interface Scenario {
  name: string;
  kind: ScenarioKind;
  factor?: number;
  journal?: boolean;
}

export const HOSTS: readonly Host[] = [
  { name: '2xSSD', disks: 2, media: 'ssd' },
  { name: '12xHDD', disks: 12, media: 'hdd' },
];

export const SCENARIOS: readonly Scenario[] = [
  { name: 'healthy', kind: 'healthy' },
  { name: 'peak x4 10min', kind: 'peak' },
  { name: 'bursts', kind: 'burst' },
  { name: 'journal commits', kind: 'healthy', journal: true },
  { name: 'slow x1.5', kind: 'slow', factor: 1.5 },
  { name: 'slow x2', kind: 'slow', factor: 2 },
  { name: 'slow x3', kind: 'slow', factor: 3 },
  { name: 'slow x10', kind: 'slow', factor: 10 },
  { name: 'stalls 1s/20s', kind: 'stall' },
  { name: 'hang', kind: 'hang' },
  { name: 'heal x3 5min', kind: 'heal' },
  { name: 'tail 3% x5', kind: 'tail', factor: 5 },
  { name: 'tail 3% x5, journal', kind: 'tail', factor: 5, journal: true },
  { name: 'tail 3% x10', kind: 'tail', factor: 10 },
  { name: 'tail 3% x30', kind: 'tail', factor: 30 },
  { name: 'gc pauses', kind: 'gc' },
  { name: 'heavy tails', kind: 'heavy' },
  { name: 'host ramp x5', kind: 'host-ramp' },
];

/** The kinds without a faulty disk: every alarm in them is false. */
export const QUIET_KINDS: readonly ScenarioKind[] = ['healthy', 'peak', 'burst', 'gc', 'heavy', 'host-ramp'];

export const DETECTORS = ['statistical', 'rules', 'tail', 'slowScore', 'fixed'] as const;
export type DetectorName = (typeof DETECTORS)[number];

/** One detector's alarms in one run. */
interface DetectorRun {
  /** Onset to the faulty disk's first alarm (0 when it was already on); null without a fault or an alarm. */
  detectMs: number | null;
  falseAlarms: number;
  healthyMs: number;
  /** heal: the heal to the alarm's end. */
  clearedMs: number | null;
  alarms: number;
}

/** How the faulty disk's latency moved at its onset, in one run. */
interface RunShift {
  medianRatio: number;
  p99Ratio: number;
}

export interface RunResult {
  scenario: string;
  host: string;
  seed: number;
  durationMs: number;
  disks: number;
  slowDisk: string | null;
  onsetMs: number | null;
  /** The faulty disk's slow score at its onset: a score above 1 needs fewer rounds to reach 100. */
  scoreAtOnset: number | null;
  /**
   * hang: the earliest and latest onset-to-eviction the slow score's rules allow from that score,
   * the round the hang starts in counted as one of the doublings or not at all, plus one tick.
   */
  hangWindowMs: readonly [number, number] | null;
  healMs: number | null;
  hostWideEpisodes: number;
  suspectEpisodes: number;
  fastConfirmations: number;
  shift: RunShift | null;
  detectors: Record<DetectorName, DetectorRun>;
}

/** One value per detector, in the detectors' order. */
export function byDetector<T>(make: (name: DetectorName) => T): Record<DetectorName, T> {
  return Object.fromEntries(DETECTORS.map((name) => [name, make(name)])) as Record<DetectorName, T>;
}

/** Alarm episodes of one detector on one disk. */
class Episodes {
  readonly active: Map<string, boolean>;
  readonly starts: Map<string, number[]>;
  readonly ends: Map<string, number[]>;

  constructor(disks: readonly string[]) {
    this.active = new Map(disks.map((d) => [d, false]));
    this.starts = new Map(disks.map((d) => [d, []]));
    this.ends = new Map(disks.map((d) => [d, []]));
  }

  set(disk: string, on: boolean, atMs: number): void {
    if (this.active.get(disk) === on) return;
    this.active.set(disk, on);
    (on ? this.starts : this.ends).get(disk)!.push(atMs);
  }
}

/** The median and the P99 of a list of latencies. */
function medianAndP99(values: readonly number[]): { median: number; p99: number } {
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  return { median: at(0.5), p99: at(0.99) };
}

/** RunResult.hangWindowMs: the slow score's rounds from `scoreAtOnset` to the eviction threshold. */
function hangWindow(params: ScoreParams, scoreAtOnset: number, intervalMs: number): readonly [number, number] {
  const ms = msToReach(params, params.evictThreshold, scoreAtOnset);
  return [ms - params.roundTicks * intervalMs, ms + intervalMs];
}

export function runOne(
  scenario: Scenario,
  host: Host,
  seed: number,
  statParams: Partial<StatisticalParams> = DEFAULT_STATISTICAL_PARAMS,
  overrides: Partial<ScenarioOptions> = {},
  tailParams: Partial<TailParams> = DEFAULT_TAIL_PARAMS,
): RunResult {
  const gen = new ScenarioGenerator({ kind: scenario.kind, factor: scenario.factor, seed, disks: host.disks, media: host.media, journal: scenario.journal ? {} : undefined, ...overrides });
  const info = gen.info;
  const interval = info.intervalMs;
  const disks = info.disks;
  const params = { ...DEFAULT_SCORE_PARAMS, intervalMs: interval, timeoutMs: interval };

  // Null only without a faulty disk, where it is never read.
  const onsetMs = info.onsetMs ?? Infinity;
  const healMs = info.healMs;

  const episodes = byDetector(() => new Episodes(disks));
  const store = new StoreTicks(params);
  store.setInspected(disks, 0);
  let hostWideEpisodes = 0;
  let suspectEpisodes = 0;
  let fastConfirmations = 0;
  const stat = new StatisticalDetector(statParams, {
    onChange: ({ disk, from, to, atMs }) => {
      if (to === 'confirmed') {
        episodes.statistical.set(disk, true, atMs);
        if (stat.confirmation(disk)?.path === 'fast') fastConfirmations += 1;
      } else if (from === 'confirmed') episodes.statistical.set(disk, false, atMs);
      if (to === 'host-wide') hostWideEpisodes += 1;
      if (to === 'suspect') suspectEpisodes += 1;
    },
  });
  // The same detector without its fast path: the article's rules alone, beside it.
  const rules = new StatisticalDetector({ ...statParams, fastBudget: 0 }, {
    onChange: ({ disk, from, to, atMs }) => {
      if (to === 'confirmed') episodes.rules.set(disk, true, atMs);
      else if (from === 'confirmed') episodes.rules.set(disk, false, atMs);
    },
  });
  const tail = new TailDetector(tailParams, {
    onChange: ({ disk, from, to, atMs }) => {
      if (to === 'confirmed') episodes.tail.set(disk, true, atMs);
      else if (from === 'confirmed') episodes.tail.set(disk, false, atMs);
    },
  });
  // The faulty disk's latencies before and after its onset (a tick without a result as the interval).
  const before: number[] = [];
  const after: number[] = [];
  const fixed = new FixedThresholdDetector();
  const slowAlarmed = disks.map(() => false);
  let scoreAtOnset: number | null = null;
  const fixedAlarmed = disks.map(() => false);

  for (let tl = gen.next(); tl !== null; tl = gen.next()) {
    const k = tl.tick;
    const t = k * interval;
    const tick = store.tick(t);
    if (scoreAtOnset === null && info.slowDisk !== null && t >= onsetMs) scoreAtOnset = store.scoreOf(info.slowDisk)!;
    if (tick.updated) {
      for (let i = 0; i < disks.length; i += 1) {
        // Every disk of the host is inspected, so each has a score.
        const score = store.scoreOf(disks[i])!;
        if (!slowAlarmed[i] && reportedScore(score) >= params.evictThreshold) {
          slowAlarmed[i] = true;
          episodes.slowScore.set(disks[i], true, t);
        } else if (slowAlarmed[i] && score <= SCORE_FLOOR) {
          slowAlarmed[i] = false;
          episodes.slowScore.set(disks[i], false, t);
        }
      }
    }
    const latencies = tickLatencies(tl, disks);
    for (let i = 0; i < disks.length; i += 1) {
      const disk = disks[i];
      const ms = latencies[i];
      let alarmed: boolean;
      if (ms !== null) {
        // One at or over the interval, or none, is charged at the next tick.
        if (ms < interval) store.finished(disk, k, ms);
        stat.observe(disk, t, ms);
        rules.observe(disk, t, ms);
        tail.observe(disk, t, ms);
        alarmed = fixed.observe(disk, t, ms);
      } else {
        stat.failure(disk, t);
        rules.failure(disk, t);
        tail.failure(disk, t);
        alarmed = fixed.failure(disk, t);
      }
      if (disk === info.slowDisk) (t < onsetMs ? before : after).push(ms ?? interval);
      if (alarmed !== fixedAlarmed[i]) {
        fixedAlarmed[i] = alarmed;
        episodes.fixed.set(disk, alarmed, t);
      }
    }
  }
  const shift =
    info.slowDisk === null
      ? null
      : (() => {
          const b = medianAndP99(before);
          const a = medianAndP99(after);
          return { medianRatio: a.median / b.median, p99Ratio: a.p99 / b.p99 };
        })();

  const detectorRun = (ep: Episodes): DetectorRun => {
    let falseAlarms = 0;
    let healthyMs = 0;
    let detectMs: number | null = null;
    let clearedMs: number | null = null;
    for (const disk of disks) {
      const starts = ep.starts.get(disk)!;
      if (disk === info.slowDisk) {
        healthyMs += onsetMs;
        falseAlarms += starts.filter((s) => s < onsetMs).length;
        const activeAtOnset = starts.some((s, i) => s < onsetMs && (ep.ends.get(disk)![i] ?? Infinity) >= onsetMs);
        const first = starts.find((s) => s >= onsetMs);
        detectMs = activeAtOnset ? 0 : first !== undefined ? first - onsetMs : null;
        if (healMs !== null) {
          const end = ep.ends.get(disk)!.find((e) => e >= healMs);
          const stillOn = ep.active.get(disk);
          clearedMs = end !== undefined ? end - healMs : stillOn ? null : detectMs === null ? null : 0;
        }
      } else {
        healthyMs += info.durationMs;
        falseAlarms += starts.length;
      }
    }
    return { detectMs, falseAlarms, healthyMs, clearedMs, alarms: [...ep.starts.values()].reduce((a, s) => a + s.length, 0) };
  };
  return {
    scenario: scenario.name,
    host: host.name,
    seed,
    durationMs: info.durationMs,
    disks: disks.length,
    slowDisk: info.slowDisk,
    onsetMs: info.onsetMs,
    scoreAtOnset,
    hangWindowMs: scenario.kind === 'hang' && scoreAtOnset !== null ? hangWindow(params, scoreAtOnset, interval) : null,
    healMs: info.healMs,
    hostWideEpisodes,
    suspectEpisodes,
    fastConfirmations,
    shift,
    detectors: byDetector((name) => detectorRun(episodes[name])),
  };
}

export interface Job {
  scenario: string;
  host: string;
  seed: number;
}

/** A job of the main thread or a worker: its scenario and host by name, and its seed. */
export function runJob(job: Job, statParams: StatisticalParams, tailParams: TailParams): RunResult {
  return runOne(SCENARIOS.find((s) => s.name === job.scenario)!, HOSTS.find((h) => h.name === job.host)!, job.seed, statParams, {}, tailParams);
}
