// The seeded scenario generator: what a host's probe would have written, as trace lines
// (docs/record-and-replay.md, "The trace format"), for a healthy host and for the faults the detectors
// are meant to tell apart. Pure and deterministic: the same options give the same lines.
//
// The model, per tick k (at k x interval on a virtual clock starting at 0), per disk:
//
//   latency = healthy draw (media.ts) x host load x disk drift x fault factors
//
// - host load: exp of a mean-reverting (AR(1)) process in log space, shared by every disk
//   of the host (the host's own workload rising and falling): log-space deviation
//   HOST_LOAD.sigma, time constant HOST_LOAD.tauMs. A business peak multiplies it.
// - disk drift: the same kind of process per disk (its share of the work moving), smaller.
// - faults: a slowdown (the slow disk's latency times `factor` from `onsetMs`, to `healMs`
//   for a slowdown that heals), a ramp (a slowdown that grows from x1 at `onsetMs` to
//   `factor` over `rampMs`, geometrically or linearly, then stays), a congestion burst (one disk times a burst factor for a few
//   seconds), pauses (the disk serves nothing: periodic stalls, or a hang that never ends).
//   A pause delays the inspections in flight by its length; a hang holds them forever.
// - the probe: one inspection in flight per disk. An inspection that takes `ms` >= the
//   interval is written at its own tick with its full duration, and the ticks it spans have
//   no line (the probe starts no second inspection); a hung inspection writes nothing.
//   Durations are written in microseconds, as the recorder does.
//
// What it does not model: see NOT_MODELLED below (also in docs/design/benchmark-scenarios.md).
import { drawDiskModel, drawLatency, type DiskModel, type Media } from './media.js';
import { mixSeed, Rng } from './prng.js';

export const SCENARIO_KINDS = ['healthy', 'peak', 'burst', 'slow', 'stall', 'hang', 'heal', 'ramp', 'tail', 'gc', 'heavy', 'host-ramp'] as const;
export type ScenarioKind = (typeof SCENARIO_KINDS)[number];

/** The kinds with one faulty disk and a known onset. */
export const FAULT_KINDS: readonly ScenarioKind[] = ['slow', 'stall', 'hang', 'heal', 'ramp', 'tail'];

/** How a ramp's factor grows: by the same ratio each second (a fault feeding on itself), or by the same amount. */
export type RampShape = 'geometric' | 'linear';

/** The host's shared load and each disk's own drift: mean-reverting in log space. */
export const HOST_LOAD = Object.freeze({ sigma: 0.1, tauMs: 120_000 });
export const DISK_DRIFT = Object.freeze({ sigma: 0.05, tauMs: 60_000 });

export interface PeakOptions {
  /** When the peak starts; by default drawn uniformly in [15 min, 35 min] (clamped into the run). */
  startMs?: number;
  /** How long it lasts (10 min). */
  durationMs: number;
  /** Every disk's latency is multiplied by this (4). */
  factor: number;
  /** The spike probability of every disk is multiplied by this (5): a heavier tail. */
  spikeBoost: number;
  /** And each inspection by a lognormal jitter of median 1 and this log-space deviation (0.3): more queueing variance. */
  jitterSigma: number;
}

export interface BurstOptions {
  /** Mean time between bursts on one disk (Poisson arrivals, each disk on its own): 5 min. */
  meanGapMs: number;
  /**
   * Bursts every this long instead (a periodic job: a flush, a compaction), each disk at its
   * own phase drawn uniformly in the period; null (the default) for Poisson arrivals.
   */
  periodMs: number | null;
  /** A burst lasts uniformly between these (1 to 5 s). */
  minMs: number;
  maxMs: number;
  /** It multiplies the disk's latency by a lognormal factor (median 5, log-space deviation 0.5; at least 1). */
  factorMedian: number;
  factorSigma: number;
}

export interface StallOptions {
  /** From the onset the slow disk pauses this long (1 s) ... */
  stallMs: number;
  /** ... every this long (20 s). */
  periodMs: number;
}

export interface TailOptions {
  /** From the onset, this share of the slow disk's inspections (3 %) ... */
  share: number;
  /** ... take `factor` times as long (with a lognormal jitter of log-space deviation 0.3): the median holds, the P99 climbs. */
  jitterSigma: number;
}

export interface GcOptions {
  /** Each disk pauses for a garbage collection every period drawn in this range (20 to 60 s), at its own phase ... */
  periodMs: readonly [number, number];
  /** ... for a length drawn in this range (100 to 400 ms): the inspections that come meanwhile wait for its end. */
  lengthMs: readonly [number, number];
}

export interface JournalOptions {
  /**
   * Each disk's filesystem commits its journal every period drawn in this range (25 to 35 s),
   * at its own phase: a slow second every 30 s or so, on any kind of scenario ...
   */
  periodMs: readonly [number, number];
  /** ... a commit drawn in this range (100 to 400 ms): the one to four inspections that start meanwhile ... */
  lengthMs: readonly [number, number];
  /** ... wait for it: a lognormal of this median by medium (an SSD 10 ms, an HDD 60 ms) and log-space deviation (0.5). */
  waitMedianMs: Readonly<Record<Media, number>>;
  waitSigma: number;
}

export interface HostRampOptions {
  /** Every disk's latency, and its spike probability, climb geometrically by this factor (5) ... */
  factor: number;
  /** ... over this long (10 min), from a start drawn like a peak's, and stay there. */
  rampMs: number;
}

export interface ScenarioOptions {
  kind: ScenarioKind;
  seed: number;
  /** How many disks the host has: named raft and kv for 2, disk1..diskN otherwise (or `names`). */
  disks: number;
  names?: readonly string[];
  /** All disks of the host are of this kind (or one kind per disk). */
  media: Media | readonly Media[];
  intervalMs?: number;
  /** The run's length (default: 1 h for healthy, peak and burst; 21 min for the faults). */
  durationMs?: number;
  /** Faults: when the fault starts (default: drawn uniformly in [5 min, 6 min]). */
  onsetMs?: number;
  /** Faults: which disk (index; default drawn from the seed). */
  slowDisk?: number;
  /** slow, heal, ramp: the latency multiplier (default 2 for slow, 3 for heal, 100 for ramp). */
  factor?: number;
  /** ramp: how long the factor takes to grow from 1 to `factor` (5 min). */
  rampMs?: number;
  /** ramp: how it grows (geometric). */
  rampShape?: RampShape;
  /** heal: how long the slowdown lasts (5 min). */
  healAfterMs?: number;
  peak?: Partial<PeakOptions>;
  burst?: Partial<BurstOptions>;
  stall?: Partial<StallOptions>;
  /** tail: the share of inspections slowed by `factor` (default 10). */
  tail?: Partial<TailOptions>;
  gc?: Partial<GcOptions>;
  hostRamp?: Partial<HostRampOptions>;
  /** Every disk's journal commits: a slow second every 30 s or so (off unless given). */
  journal?: Partial<JournalOptions>;
}

export const DEFAULT_PEAK: Readonly<PeakOptions> = Object.freeze({ durationMs: 600_000, factor: 4, spikeBoost: 5, jitterSigma: 0.3 });
export const DEFAULT_BURST: Readonly<BurstOptions> = Object.freeze({
  meanGapMs: 300_000,
  periodMs: null,
  minMs: 1000,
  maxMs: 5000,
  factorMedian: 5,
  factorSigma: 0.5,
});
export const DEFAULT_STALL: Readonly<StallOptions> = Object.freeze({ stallMs: 1000, periodMs: 20_000 });
export const DEFAULT_HEAL_AFTER_MS = 300_000;
export const DEFAULT_TAIL: Readonly<TailOptions> = Object.freeze({ share: 0.03, jitterSigma: 0.3 });
export const DEFAULT_GC: Readonly<GcOptions> = Object.freeze({ periodMs: [20_000, 60_000] as const, lengthMs: [100, 400] as const });
export const DEFAULT_JOURNAL: Readonly<JournalOptions> = Object.freeze({
  periodMs: [25_000, 35_000] as const,
  lengthMs: [100, 400] as const,
  waitMedianMs: Object.freeze({ ssd: 10, hdd: 60 }),
  waitSigma: 0.5,
});
export const DEFAULT_HOST_RAMP: Readonly<HostRampOptions> = Object.freeze({ factor: 5, rampMs: 600_000 });
/** heavy: every disk's spikes (an SSD's internal pauses, an HDD's queueing) are this many times as frequent, from the start. */
export const HEAVY_SPIKE_BOOST = 5;
export const DEFAULT_RAMP = Object.freeze({ factor: 100, rampMs: 300_000, shape: 'geometric' as RampShape });
export const DEFAULT_ONSET_RANGE_MS = Object.freeze([300_000, 360_000] as const);

/** What the generator leaves out; docs/design/benchmark-scenarios.md lists these too. */
export const NOT_MODELLED: readonly string[] = [
  'Read/write mixes, request sizes and queue depths of the real workload: only the probe\'s 4 KiB inspection is drawn, as one latency.',
  'Correlations inside one inspection (a slow flush followed by a slow read) beyond what the drawn sum gives.',
  'Gradual faults other than a ramp of one shape (geometric or linear) to one final factor: no wavering, no acceleration, no plateaus on the way.',
  'Different disks behind one controller or cable failing together: only the business peak moves all disks at once.',
  'Diurnal cycles and ramps: the host load wanders (AR(1)) and the peak is a step up and a step down.',
  'Errors (EIO, ENOSPC, corruption): a fault here makes a disk slow or unresponsive, never failing fast.',
  'Clock jitter and IPC delay of the live probe (late results): every result lands on its tick exactly.',
  'Disks of different batches or firmware on one host beyond the drawn per-disk parameters.',
  'Drive-managed SMR, write-cache-off, thermal throttling, and NVMe power states.',
];

export interface InspectionLine {
  tick: number;
  disk: string;
  ms: number;
}

export interface ClockLine {
  tick: number;
}

export interface TickLines {
  tick: number;
  /** The inspections started at this tick that finished (at any later time). */
  lines: InspectionLine[];
}

/**
 * Each disk's inspection started at this tick, in the order of `disks` (the generator's): its
 * latency (ms), or null for a disk still busy with an earlier one (a tick without a result).
 */
export function tickLatencies(tick: TickLines, disks: readonly string[]): (number | null)[] {
  let at = 0;
  return disks.map((disk) => (tick.lines[at]?.disk === disk ? tick.lines[at++]!.ms : null));
}

export interface Burst {
  disk: string;
  startMs: number;
  endMs: number;
  factor: number;
}

export interface ScenarioInfo {
  kind: ScenarioKind;
  seed: number;
  intervalMs: number;
  durationMs: number;
  /** Ticks 1..ticks are generated. */
  ticks: number;
  disks: string[];
  media: Media[];
  models: DiskModel[];
  /** The faulty disk and when its fault starts (null without one). */
  slowDisk: string | null;
  onsetMs: number | null;
  /** heal: when the disk is healthy again. */
  healMs: number | null;
  factor: number | null;
  /** ramp: how long the factor takes to grow, and how. */
  ramp: { rampMs: number; shape: RampShape } | null;
  peak: { startMs: number; endMs: number } | null;
  bursts: Burst[];
  /** host-ramp: when every disk starts to slow together, and how long it takes to reach its factor. */
  hostRamp: { startMs: number; rampMs: number; factor: number } | null;
}

function defaultNames(n: number): string[] {
  if (n === 2) return ['raft', 'kv'];
  return Array.from({ length: n }, (_, i) => `disk${i + 1}`);
}

/** Microseconds, unless rounding would carry the duration across the interval (as the recorder). */
function recorded(ms: number, intervalMs: number): number {
  const rounded = Math.round(ms * 1000) / 1000;
  return rounded < intervalMs === ms < intervalMs ? rounded : ms;
}

/** An AR(1) process in log space, stepped once per tick. */
class LogWalk {
  private x: number;
  private readonly a: number;
  private readonly b: number;

  constructor(
    sigma: number,
    tauMs: number,
    intervalMs: number,
    private readonly rng: Rng,
  ) {
    this.a = Math.exp(-intervalMs / tauMs);
    this.b = sigma * Math.sqrt(1 - this.a * this.a);
    this.x = sigma * rng.normal();
  }

  step(): number {
    this.x = this.a * this.x + this.b * this.rng.normal();
    return Math.exp(this.x);
  }
}

interface DiskGen {
  name: string;
  model: DiskModel;
  rng: Rng;
  drift: LogWalk;
  /** The first tick at which the probe is free to start an inspection; Infinity once hung. */
  nextFreeTick: number;
  bursts: Burst[];
  burstAt: number;
  faulty: boolean;
  /** tail: its own stream, so that the other kinds' draws stay as they are. */
  tailRng: Rng | null;
  /** gc: its pauses. */
  gc: PeriodicWindow | null;
  /** journal: its commits, and the stream of its waits. */
  journal: (PeriodicWindow & { rng: Rng; waitMedianMs: number }) | null;
}

/** A disk's recurring busy spell (a garbage collection, a journal commit): its period, phase and length. */
interface PeriodicWindow {
  periodMs: number;
  phaseMs: number;
  lengthMs: number;
}

/**
 * Generates a scenario tick by tick. Random streams are separate per disk and for the host,
 * and every tick makes the same draws whatever happens, so the same seed gives the same
 * disks, the same load and the same healthy draws in every kind of scenario: only the fault
 * differs.
 */
export class ScenarioGenerator {
  readonly info: ScenarioInfo;
  private readonly disks: DiskGen[];
  private readonly hostLoad: LogWalk;
  private readonly peakOptions: PeakOptions;
  private readonly stall: StallOptions;
  private readonly jitterRng: Rng;
  private readonly tail: TailOptions;
  private readonly journalSigma: number;
  private tick = 0;

  constructor(options: ScenarioOptions) {
    const kind = options.kind;
    if (!SCENARIO_KINDS.includes(kind)) throw new RangeError(`unknown scenario kind '${String(kind)}'`);
    const n = options.disks;
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`disks must be a whole number above 0, got ${n}`);
    const names = options.names ? [...options.names] : defaultNames(n);
    if (names.length !== n) throw new RangeError(`${n} disks but ${names.length} names`);
    const media: Media[] = typeof options.media === 'string' ? names.map(() => options.media as Media) : [...options.media];
    if (media.length !== n) throw new RangeError(`${n} disks but ${media.length} media`);
    const intervalMs = options.intervalMs ?? 100;
    const faulty = FAULT_KINDS.includes(kind);
    const durationMs = options.durationMs ?? (faulty ? 1_260_000 : 3_600_000);
    const seed = options.seed >>> 0;

    const host = new Rng(mixSeed(seed, 'host'));
    const setup = new Rng(mixSeed(seed, 'setup'));
    const models = names.map((_, i) => drawDiskModel(media[i], new Rng(mixSeed(seed, 'model', i))));

    // Every setup draw is made whatever the kind, so that the kinds share a seed's disks and times.
    const slowDraw = setup.int(n);
    const slowIndex = faulty ? (options.slowDisk ?? slowDraw) : null;
    if (slowIndex !== null && (slowIndex < 0 || slowIndex >= n)) throw new RangeError(`slowDisk must be 0..${n - 1}`);
    const onsetDraw = setup.uniform(...DEFAULT_ONSET_RANGE_MS);
    const onsetMs = faulty ? (options.onsetMs ?? Math.round(onsetDraw / intervalMs) * intervalMs) : null;
    const factor =
      kind === 'slow'
        ? (options.factor ?? 2)
        : kind === 'heal'
          ? (options.factor ?? 3)
          : kind === 'ramp'
            ? (options.factor ?? DEFAULT_RAMP.factor)
            : kind === 'tail'
              ? (options.factor ?? 10)
              : null;
    if (factor !== null && !(factor >= 1)) throw new RangeError(`factor must be at least 1, got ${factor}`);
    const ramp = kind === 'ramp' ? { rampMs: options.rampMs ?? DEFAULT_RAMP.rampMs, shape: options.rampShape ?? DEFAULT_RAMP.shape } : null;
    if (ramp !== null && !(ramp.rampMs > 0)) throw new RangeError(`rampMs must be above 0, got ${ramp.rampMs}`);
    const healMs = kind === 'heal' && onsetMs !== null ? onsetMs + (options.healAfterMs ?? DEFAULT_HEAL_AFTER_MS) : null;

    this.peakOptions = { ...DEFAULT_PEAK, ...options.peak };
    const peakDraw = setup.uniform(900_000, 2_100_000);
    let peak: ScenarioInfo['peak'] = null;
    if (kind === 'peak') {
      const latestStart = Math.max(0, durationMs - this.peakOptions.durationMs);
      const startMs = options.peak?.startMs ?? Math.min(latestStart, Math.round(peakDraw / intervalMs) * intervalMs);
      peak = { startMs, endMs: startMs + this.peakOptions.durationMs };
    }

    const burstOptions = { ...DEFAULT_BURST, ...options.burst };
    const bursts: Burst[] = [];
    if (kind === 'burst') {
      names.forEach((name, i) => {
        const rng = new Rng(mixSeed(seed, 'bursts', i));
        const { periodMs, meanGapMs } = burstOptions;
        for (let t = periodMs === null ? rng.exponential(meanGapMs) : rng.uniform(0, periodMs); t < durationMs; ) {
          const length = rng.uniform(burstOptions.minMs, burstOptions.maxMs);
          const burstFactor = Math.max(1, rng.lognormal(burstOptions.factorMedian, burstOptions.factorSigma));
          bursts.push({ disk: name, startMs: t, endMs: t + length, factor: burstFactor });
          t = periodMs === null ? t + length + rng.exponential(meanGapMs) : t + periodMs;
        }
      });
    }
    this.stall = { ...DEFAULT_STALL, ...options.stall };
    this.tail = { ...DEFAULT_TAIL, ...options.tail };
    const rampOptions = { ...DEFAULT_HOST_RAMP, ...options.hostRamp };
    const hostRamp =
      kind === 'host-ramp'
        ? { startMs: options.peak?.startMs ?? Math.round(peakDraw / intervalMs) * intervalMs, rampMs: rampOptions.rampMs, factor: rampOptions.factor }
        : null;
    const gcOptions = { ...DEFAULT_GC, ...options.gc };
    const journalOptions = options.journal === undefined ? null : { ...DEFAULT_JOURNAL, ...options.journal };
    this.journalSigma = journalOptions?.waitSigma ?? 0;

    this.info = {
      kind,
      seed,
      intervalMs,
      durationMs,
      ticks: Math.floor(durationMs / intervalMs),
      disks: names,
      media,
      models,
      slowDisk: slowIndex === null ? null : names[slowIndex],
      onsetMs,
      healMs,
      factor,
      ramp,
      peak,
      bursts,
      hostRamp,
    };
    this.hostLoad = new LogWalk(HOST_LOAD.sigma, HOST_LOAD.tauMs, intervalMs, host);
    this.jitterRng = new Rng(mixSeed(seed, 'jitter'));
    this.disks = names.map((name, i) => {
      const rng = new Rng(mixSeed(seed, 'disk', i));
      return {
        name,
        model: models[i],
        rng,
        drift: new LogWalk(DISK_DRIFT.sigma, DISK_DRIFT.tauMs, intervalMs, new Rng(mixSeed(seed, 'drift', i))),
        nextFreeTick: 1,
        bursts: bursts.filter((b) => b.disk === name),
        burstAt: 0,
        faulty: i === slowIndex,
        tailRng: kind === 'tail' ? new Rng(mixSeed(seed, 'tail', i)) : null,
        gc: kind === 'gc' ? drawWindow(gcOptions, new Rng(mixSeed(seed, 'gc', i))) : null,
        journal: journalOptions === null ? null : drawJournal(journalOptions, media[i], new Rng(mixSeed(seed, 'journal', i))),
      };
    });
  }

  /** The inspections started at the next tick, or null after the last tick. */
  next(): TickLines | null {
    if (this.tick >= this.info.ticks) return null;
    const k = ++this.tick;
    const { intervalMs, peak } = this.info;
    const t = k * intervalMs;
    const inPeak = peak !== null && t >= peak.startMs && t < peak.endMs;
    const ramped = this.hostRampFactor(t);
    const load = this.hostLoad.step() * (inPeak ? this.peakOptions.factor : 1) * ramped;
    const spikeBoost = inPeak ? this.peakOptions.spikeBoost : this.info.kind === 'heavy' ? HEAVY_SPIKE_BOOST : ramped;
    const lines: InspectionLine[] = [];
    for (const disk of this.disks) {
      // Every draw is made every tick, in flight or not, so that the streams stay in step.
      const drift = disk.drift.step();
      const healthy = drawLatency(disk.model, disk.rng, spikeBoost);
      const jitter = Math.exp(this.peakOptions.jitterSigma * this.jitterRng.normal());
      const tailed = disk.tailRng === null ? 0 : this.tailDraw(disk.tailRng);
      const journalWait = disk.journal === null ? 0 : this.journalWait(disk.journal, t);
      if (k < disk.nextFreeTick) continue;
      let service = healthy * load * drift * (inPeak ? jitter : 1) * this.burstFactor(disk, t);
      if (disk.faulty) service *= disk.tailRng !== null ? this.tailFactor(t, tailed) : this.slowFactor(t);
      if (disk.gc !== null) service += windowWait(disk.gc, t);
      service += journalWait;
      const finish = disk.faulty ? this.finishTime(t, service) : t + service;
      if (!Number.isFinite(finish)) {
        disk.nextFreeTick = Infinity;
        continue;
      }
      const ms = recorded(finish - t, intervalMs);
      lines.push({ tick: k, disk: disk.name, ms });
      disk.nextFreeTick = k + Math.max(1, Math.ceil(ms / intervalMs));
    }
    return { tick: k, lines };
  }

  *ticks(): Generator<TickLines> {
    for (let tick = this.next(); tick !== null; tick = this.next()) yield tick;
  }

  private burstFactor(disk: DiskGen, t: number): number {
    while (disk.burstAt < disk.bursts.length && disk.bursts[disk.burstAt].endMs <= t) disk.burstAt += 1;
    const burst = disk.bursts[disk.burstAt];
    return burst !== undefined && burst.startMs <= t ? burst.factor : 1;
  }

  /** The tail's two draws, made every tick: whether this inspection is slowed, and by how much (0 for not). */
  private tailDraw(rng: Rng): number {
    const slowed = rng.next() < this.tail.share;
    const jitter = Math.exp(this.tail.jitterSigma * rng.normal());
    return slowed ? jitter : 0;
  }

  /** tail: the factor of an inspection whose draw is `tailed` (0: not slowed). */
  private tailFactor(t: number, tailed: number): number {
    const { factor, onsetMs } = this.info;
    if (factor === null || onsetMs === null || t < onsetMs || tailed === 0) return 1;
    return Math.max(1, factor * tailed);
  }

  /** journal: how long an inspection started at `t` waits for a commit under way (0 when none is); one draw every tick. */
  private journalWait(journal: NonNullable<DiskGen['journal']>, t: number): number {
    const wait = journal.rng.lognormal(journal.waitMedianMs, this.journalSigma);
    return windowWait(journal, t) > 0 ? wait : 0;
  }

  /** host-ramp: every disk's factor at `t`. */
  private hostRampFactor(t: number): number {
    const ramp = this.info.hostRamp;
    if (ramp === null || t < ramp.startMs) return 1;
    return ramp.factor ** Math.min(1, (t - ramp.startMs) / ramp.rampMs);
  }

  private slowFactor(t: number): number {
    const { factor, onsetMs, healMs, ramp } = this.info;
    if (factor === null || onsetMs === null || t < onsetMs) return 1;
    if (healMs !== null && t >= healMs) return 1;
    if (ramp === null) return factor;
    const progress = Math.min(1, (t - onsetMs) / ramp.rampMs);
    return ramp.shape === 'geometric' ? factor ** progress : 1 + (factor - 1) * progress;
  }

  /** When an inspection started at `start` that needs `service` ms of the disk finishes, through its pauses. */
  private finishTime(start: number, service: number): number {
    const { kind, onsetMs } = this.info;
    if (onsetMs === null) return start + service;
    if (kind === 'hang') return start + service <= onsetMs ? start + service : Infinity;
    if (kind !== 'stall') return start + service;
    const { stallMs, periodMs } = this.stall;
    let t = start;
    let left = service;
    for (;;) {
      // The pause that contains t or comes next: [onset + j x period, + stallMs).
      const j = t < onsetMs ? 0 : Math.floor((t - onsetMs) / periodMs);
      const pauseStart = onsetMs + j * periodMs;
      const pauseEnd = pauseStart + stallMs;
      if (t >= pauseStart && t < pauseEnd) {
        t = pauseEnd;
        continue;
      }
      const nextPause = t < pauseStart ? pauseStart : pauseStart + periodMs;
      if (t + left <= nextPause) return t + left;
      left -= nextPause - t;
      t = nextPause + stallMs;
    }
  }
}

/** A disk's spell: its period, then its phase within it, then its length, drawn in that order. */
function drawWindow(options: GcOptions, rng: Rng): PeriodicWindow {
  const periodMs = rng.uniform(...options.periodMs);
  return { periodMs, phaseMs: rng.uniform(0, periodMs), lengthMs: rng.uniform(...options.lengthMs) };
}

function drawJournal(options: JournalOptions, media: Media, rng: Rng): NonNullable<DiskGen['journal']> {
  return { ...drawWindow(options, rng), rng, waitMedianMs: options.waitMedianMs[media] };
}

/** How long an inspection started at `t` waits for the spell under way to end (0 when none is). */
function windowWait(window: PeriodicWindow, t: number): number {
  const into = (((t - window.phaseMs) % window.periodMs) + window.periodMs) % window.periodMs;
  return into < window.lengthMs ? window.lengthMs - into : 0;
}

/** Every line of a scenario in trace order: the inspections tick by tick, then a clock line at the last tick. */
export function* scenarioLines(options: ScenarioOptions): Generator<InspectionLine | ClockLine> {
  const generator = new ScenarioGenerator(options);
  for (const tick of generator.ticks()) yield* tick.lines;
  yield { tick: generator.info.ticks };
}

/** The scenario as a trace file's lines (JSON, without the newlines): a header, then scenarioLines. */
export function* scenarioTrace(options: ScenarioOptions): Generator<string> {
  const generator = new ScenarioGenerator(options);
  const { info } = generator;
  yield JSON.stringify({
    slowdisk_trace: 1,
    interval_ms: info.intervalMs,
    disks: info.disks,
    scenario: {
      kind: info.kind,
      seed: info.seed,
      media: info.media,
      slow_disk: info.slowDisk,
      onset_ms: info.onsetMs,
      heal_ms: info.healMs,
      factor: info.factor,
      ramp: info.ramp === null ? null : { ramp_ms: info.ramp.rampMs, shape: info.ramp.shape },
      peak: info.peak,
    },
  });
  for (const tick of generator.ticks()) for (const line of tick.lines) yield JSON.stringify(line);
  yield JSON.stringify({ tick: info.ticks });
}
