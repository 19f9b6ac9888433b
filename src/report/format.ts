// How numbers and disks read at a glance, in every human-facing output.
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { Prediction } from '../early-warning/predictor.js';
import type { SessionEvent, DiskStatus } from '../live/probe-session.js';
import { describeError } from '../live/shown-error.js';

export function formatScore(score: number): string {
  return score >= 100 ? '100' : score.toFixed(2);
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

/** The state of a disk in a few words: what an operator reads first. */
export function formatState(disk: DiskStatus): string {
  if (disk.state === 'skipped') return `skipped: same filesystem as ${disk.sameAs}`;
  if (disk.state === 'hung') return formatHung(disk);
  if (disk.waitingMs !== undefined) return `waiting ${formatElapsed(disk.waitingMs)} for an inspection`;
  if (disk.state === 'down' && disk.error) return `down ${describeError(disk.error, disk)}`;
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
 * The early warning, once the predictor has a probability: ` warn 0.82` for a disk in state
 * warning, else ` predict 0.12` (the chance its P99 exceeds the SLA within 5 minutes), and
 * ` cleared steady` (or `gap`) at the sample whose warning ended.
 */
export function formatPrediction(prediction: Pick<Prediction, 'probability' | 'warning' | 'cleared'> | undefined): string {
  if (prediction?.probability == null) return '';
  const cleared = prediction.cleared ? ` cleared ${prediction.cleared}` : '';
  return ` ${prediction.warning ? 'warn' : 'predict'} ${prediction.probability.toFixed(2)}${cleared}`;
}

/** The tail detector's state once it is not ok: ` tail suspect`, ` tail confirmed` (tail-slow). */
export function formatTail(tail: string | undefined): string {
  return tail === undefined || tail === 'ok' ? '' : ` tail ${tail}`;
}

/** One line per disk: name, score, state, latest phases, early warning, block devices, flags. */
export function formatDiskLine(disk: DiskStatus, buffered: boolean): string {
  const flags = diskFlags(disk, buffered);
  const flagText = flags.length > 0 ? ` [${flags.join('; ')}]` : '';
  // A path that led somewhere else through symlinks at start shows where.
  const where = disk.resolvedDir === undefined ? disk.dir : `${disk.dir} (-> ${disk.resolvedDir})`;
  if (disk.state === 'skipped') return `${disk.name} ${where} ${formatState(disk)}${flagText}`;
  const phases = disk.state === 'up' ? ` ${formatPhases(disk)}` : '';
  const statistical = disk.statistical ? ` stat ${disk.statistical}` : '';
  return `${disk.name} ${where} score ${formatScore(disk.score)} ${formatState(disk)}${phases}${statistical}${formatTail(disk.tail)}${formatPrediction(disk.prediction)}${formatBlockDevices(disk)}${flagText}`;
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
    case 'prober-restarted':
      return `${event.reason}; started a new prober (pid ${event.pid ?? '?'})`;
    case 'layout':
      return `layout changed: ${event.disks
        .map((disk) => (disk.inspected ? `${disk.name} on ${disk.mount?.source ?? disk.device ?? '?'}` : `${disk.name} skipped (same filesystem as ${disk.sameAs})`))
        .join(', ')}`;
  }
}
