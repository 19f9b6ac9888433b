// How numbers and disks read at a glance, in every human-facing output.
import { describeFilesystem } from '../layout/filesystem-memory.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { Prediction } from '../early-warning/predictor.js';
import type { SessionEvent, DiskStatus } from '../live/session-events.js';
import { describeError } from '../live/shown-error.js';
import type { ThresholdCrossing } from '../verdict/threshold-crossings.js';
import { isBusyCause, type WarningBasis } from '../verdict/busy-verdict.js';
import type { ScoreParams } from '../score/score-params.js';
import type { DiskSummary } from './disk-summary.js';
import { LATENCY_PHASES } from './phase-latencies.js';
import { SHOWN_SCORE_DECIMALS, shownScore } from '../score/store-score.js';

/** A score in text: shownScore's, with its two decimals (100 without them). */
export function formatScore(score: number): string {
  return score >= 100 ? '100' : shownScore(score).toFixed(SHOWN_SCORE_DECIMALS);
}

export function formatMs(ms: number): string {
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)}s`;
  if (ms >= 100) return `${ms.toFixed(0)}ms`;
  if (ms >= 10) return `${ms.toFixed(1)}ms`;
  return `${ms.toFixed(2)}ms`;
}

export function formatElapsed(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/** A wall-clock time to the second, in UTC: 2026-12-01T08:20:49Z. */
export function formatWallTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

/** How long a hung disk's inspection has been in flight, and since when; who holds it, when another run's prober does. */
function formatHung(disk: DiskStatus): string {
  const held = disk.stuckProber === undefined ? '' : `, by the stuck prober (pid ${disk.stuckProber}) of an earlier run`;
  return `hung: an inspection in flight for ${formatElapsed(disk.waitingMs ?? 0)} since ${formatWallTime(disk.hungSinceMs ?? 0)}${held}`;
}

/** Marks that must follow a disk into every output, since they change what its numbers mean. */
export function diskFlags(disk: DiskStatus, buffered: boolean): string[] {
  const flags: string[] = [];
  if (disk.memoryBacked) flags.push(`not a disk: ${disk.mount?.fsType ?? 'memory-backed'}`);
  if (buffered && disk.inspected) flags.push('buffered: no O_DIRECT');
  return flags;
}

export function formatPhases(disk: DiskStatus): string {
  const last = disk.last;
  if (!last) return 'no inspection yet';
  return `write ${formatMs(last.writeMs)} sync ${formatMs(last.syncMs)} read ${formatMs(last.readMs)}`;
}

/**
 * The state of a disk in a few words: what an operator reads first. An inspection that has
 * missed its tick shows as waiting once it has waited longer than `shownWaitMs`: at once in a
 * live line; in a run's last line only past the last ticks' inspection still under way when
 * the run ended, which it did not wait for (a wait of 0.1s there is no state of the disk).
 */
export function formatState(disk: DiskStatus, shownWaitMs = 0): string {
  if (disk.state === 'skipped') return `skipped: same filesystem as ${disk.sameAs}`;
  if (disk.state === 'hung') return formatHung(disk);
  if (disk.waitingMs !== undefined && disk.waitingMs > shownWaitMs) return `waiting ${formatElapsed(disk.waitingMs)} for an inspection`;
  if (disk.state === 'down' && disk.error) return `down ${describeError(disk.error, disk)}`;
  if (disk.state === 'contested') return "contested: each probe file's name taken by someone else, not charged";
  // Up, at the eviction threshold, held from it: src/verdict/busy-verdict.ts.
  if (disk.held !== undefined) return `busy (${disk.held})`;
  return disk.state;
}

/**
 * The block devices behind a disk's filesystem, and the ones that stalled in the last round:
 * a stall shows here before the inspections that wait on it have moved the score.
 */
export function formatBlockDevices(disk: Pick<DiskStatus, 'blockDevices' | 'stalledDevices'>): string {
  const devices = disk.blockDevices?.length ? ` on ${disk.blockDevices.join(',')}` : '';
  const stalled = disk.stalledDevices?.length ? ` STALLED ${disk.stalledDevices.join(',')}` : '';
  return `${devices}${stalled}`;
}

/**
 * The early warning, once the predictor has a probability: ` predict 0.12` (the chance the
 * disk's P99 exceeds the SLA within 5 minutes); ` warning (predict 0.13)` for a disk in state
 * warning, whose probability may have fallen since it was warned of (the state holds until it
 * clears); and at the sample whose warning ended, ` warning cleared: steady` (or `gap`) with no
 * figure, which would read as the warning's.
 */
export function formatPrediction(prediction: Pick<Prediction, 'probability' | 'warning' | 'cleared'> | undefined, warningOf?: WarningBasis): string {
  if (prediction?.probability == null) return '';
  if (prediction.cleared) return ` warning cleared: ${prediction.cleared}`;
  const figure = `predict ${prediction.probability.toFixed(2)}`;
  const of = warningOf === undefined ? '' : `, of ${warningOf}`;
  return prediction.warning ? ` warning (${figure}${of})` : ` ${figure}`;
}

/**
 * Why the disk was slow in the last round, if it was: ` busy: load` (or cpu, throttle: no
 * fault of the disk), ` slow: device` (or shared, unknown). Nothing for a disk held at the
 * eviction threshold, whose state already says `busy (load)`.
 */
export function formatCause(disk: Pick<DiskStatus, 'cause' | 'held'>): string {
  if (disk.cause === undefined || disk.held !== undefined) return '';
  return ` ${isBusyCause(disk.cause) ? 'busy' : 'slow'}: ${disk.cause}`;
}

/** The tail detector's state once it is not ok: ` tail suspect`, ` tail confirmed` (tail-slow). */
export function formatTail(tail: string | undefined): string {
  return tail === undefined || tail === 'ok' ? '' : ` tail ${tail}`;
}


/** What a detector without the data it needs says, in every human output: never `ok`. */
export const WARMING_UP = 'warming up';

/**
 * The statistical detector's state of a disk, or `warming up` while it has judged none of its
 * steps; a confirmation says how it was reached: `confirmed (fast, 15.0s)`, `confirmed
 * (rules, 72.0s)`, the time from the start of the deviation.
 */
export function shownStatistical(disk: Pick<DiskStatus, 'statistical' | 'statisticalJudged' | 'confirmation'>): string | undefined {
  if (disk.statistical === 'ok' && disk.statisticalJudged === false) return WARMING_UP;
  if (disk.statistical === 'confirmed' && disk.confirmation) return `confirmed (${disk.confirmation.path}, ${formatElapsed(disk.confirmation.afterMs)})`;
  return disk.statistical;
}

/** The early warning of an inspected disk, ` predict warming up` until the predictor has a probability. */
export function shownPrediction(disk: Pick<DiskStatus, 'prediction' | 'inspected' | 'state' | 'warningOf'>): string {
  if (disk.prediction?.probability == null) return disk.inspected && disk.state !== 'skipped' ? ` predict ${WARMING_UP}` : '';
  return formatPrediction(disk.prediction, disk.warningOf);
}

/** A disk's summary: "max 8.00 inspections 70 timeouts 30 errors 0 median/p99/max write 0.13ms/1.20ms/3.00ms sync ... read ...". */
export function formatSummary(summary: DiskSummary, disk: Pick<DiskStatus, 'inspections' | 'errors'>): string {
  const phases = LATENCY_PHASES.map((phase) => {
    const figures = summary.phases[phase];
    return `${phase} ${figures ? `${formatMs(figures.medianMs)}/${formatMs(figures.p99Ms)}/${formatMs(figures.maxMs)}` : '-'}`;
  });
  return `max ${formatScore(summary.maxScore)} inspections ${disk.inspections} timeouts ${summary.timeouts} errors ${disk.errors} median/p99/max ${phases.join(' ')}`;
}

/**
 * One line per disk: name, score, state, latest phases (or, given its summary, its highest
 * score, counts and latency figures), early warning, block devices, flags; a wait shown past
 * `shownWaitMs` (formatState).
 */
export function formatDiskLine(disk: DiskStatus, buffered: boolean, summary?: DiskSummary, shownWaitMs = 0): string {
  const flags = diskFlags(disk, buffered);
  const flagText = flags.length > 0 ? ` [${flags.join('; ')}]` : '';
  // A path that led somewhere else through symlinks at start shows where.
  const where = disk.resolvedDir === undefined ? disk.dir : `${disk.dir} (-> ${disk.resolvedDir})`;
  if (disk.state === 'skipped') return `${disk.name} ${where} ${formatState(disk)}${flagText}`;
  const phases = summary ? ` ${formatSummary(summary, disk)}` : disk.state === 'up' ? ` ${formatPhases(disk)}` : '';
  const statistical = disk.statistical ? ` stat ${shownStatistical(disk)}` : '';
  return `${disk.name} ${where} score ${formatScore(disk.score)} ${formatState(disk, shownWaitMs)}${phases}${statistical}${formatTail(disk.tail)}${formatCause(disk)}${shownPrediction(disk)}${formatBlockDevices(disk)}${flagText}`;
}

function rateAndLatency(kind: string, iops: number | null, latencyMs: number | null): string {
  if (iops === null) return `${kind} not counted`;
  // Tenths below 10/s, where they tell 0.3/s (one request in a 3 s round) from none.
  const rate = iops === 0 || iops >= 9.95 ? iops.toFixed(0) : iops.toFixed(1);
  return `${kind} ${rate}/s${latencyMs === null ? '' : ` ${formatMs(latencyMs)}`}`;
}

/** --verbose: what a block device did over the round, from the kernel's counters. */
export function formatDeviceLine(device: DeviceFigures): string {
  return [
    `${device.name} (${device.disks.join(',')}):`,
    `${rateAndLatency('read', device.readIops, device.readLatencyMs)},`,
    `${rateAndLatency('write', device.writeIops, device.writeLatencyMs)},`,
    `${rateAndLatency('flush', device.flushIops, device.flushLatencyMs)},`,
    `in flight ${device.inFlight}, util ${(device.utilisation * 100).toFixed(0)}%${device.stalled ? ' STALLED' : ''}`,
  ].join(' ');
}

export function formatEvent(event: SessionEvent): string {
  switch (event.kind) {
    case 'down':
      return `${event.disk} is down: ${event.error.message}`;
    case 'back':
      return `${event.disk} is back`;
    case 'hung': {
      const held = event.stuckProber === undefined ? '' : ` (by the stuck prober, pid ${event.stuckProber}, of an earlier run)`;
      return `${event.disk} is hung: an inspection in flight for ${formatElapsed(event.waitingMs)} since ${formatWallTime(event.sinceMs)}${held}`;
    }
    case 'stale-removed':
      return `${event.disk}: removed probe files left by a dead slowdisk: ${event.paths.join(', ')}`;
    case 'name-taken':
      return `${event.disk}: ${event.error.message}; probing under a fresh name`;
    case 'contested':
      return `${event.disk} is contested: ${event.error.message}, and so was the fresh name: someone else writes to its directory. Not charged; a fresh name is tried each round`;
    case 'held-up':
      return `slowdisk itself was held up for ${formatElapsed(event.ms)} (stopped, or starved of CPU): its prober's records were read late, each judged at the time it was made; no disk was charged for it`;
    case 'prober-restarted':
      return `${event.reason}; started a new prober (pid ${event.pid ?? '?'})`;
    case 'filesystem-changed':
      return `${event.disk}: ${event.dir} is on another filesystem than at the last run: was ${describeFilesystem(event.was)}, now ${describeFilesystem(event.now)}`;
    case 'layout':
      return `layout changed: ${event.disks
        .map((disk) => (disk.inspected ? `${disk.name} on ${disk.mount?.source ?? disk.device ?? '?'}` : `${disk.name} skipped (same filesystem as ${disk.sameAs})`))
        .join(', ')}`;
  }
}

/** A threshold crossed, its name first as `watch --until` takes it: "evict: store score 100 (evict at 100), worst disk kv". */
export function formatCrossing(crossing: ThresholdCrossing): string {
  const worst = crossing.disk === undefined ? '' : `, worst disk ${crossing.disk}`;
  const level = crossing.event.endsWith('-cleared') ? `cleared at ${crossing.clearScore} or under` : `${crossing.threshold} at ${crossing.thresholdScore}`;
  return `${crossing.event}: store score ${crossing.reportedScore} (${level})${worst}`;
}

/** How long a run's last line lets an inspection wait before it shows it: the last two ticks' are under way when a run ends. */
export function lastLineWaitMs(params: Pick<ScoreParams, 'intervalMs'>): number {
  return 2 * params.intervalMs;
}
