// What watch and check print of the drives judged against their peers (--all-devices,
// --devices): a line per drive judged slow and a summary, or with --json one line per drive
// ({"type":"drive"}) and one summary ({"type":"drives"}).
import type { DriveJudgement, DriveReport } from '../drives/drive-monitor.js';
import type { PeerParams } from '../peer/params.js';

export interface DriveContext {
  stateDir: string;
  /** Whole disks --all-devices left out, by kind. */
  excluded: Record<string, string[]>;
  peer: PeerParams;
}

const finite = (value: number | undefined): number | null => (value !== undefined && Number.isFinite(value) ? Number(value.toPrecision(4)) : null);

export const isSlow = (drive: DriveReport): boolean => drive.verdict?.verdict === 'slow';

/** A drive judged slow, with its evidence, for a person. */
export function slowDriveLine(drive: DriveReport): string {
  const v = drive.verdict!;
  // The verdict latches (a fail-slow drive rarely heals): one fine since is still shown, and said to be.
  const still = v.current === 'slow' ? '' : `, not slow in the days since ${v.lastSlow}`;
  return (
    `${drive.device}: SLOW, ${v.ratio.toFixed(2)}x its peers' latency at ${v.loadRatio.toFixed(2)}x their load, ` +
    `slow on ${v.slowDays} of ${v.days} days (${v.from} to ${v.to}), confidence ${v.confidence.toFixed(2)}${still}`
  );
}

function excludedText(excluded: Record<string, string[]>): string {
  const kinds = Object.entries(excluded).map(([kind, names]) => `${names.length} ${kind}`);
  return kinds.length === 0 ? '' : `; not watched: ${kinds.join(', ')} (name them with --devices)`;
}

/** The summary line, for a person. */
export function driveSummaryLine(judgement: DriveJudgement, context: DriveContext): string {
  const slow = judgement.drives.filter(isSlow).map((drive) => drive.device);
  const verdict = slow.length === 0 ? `no drive slow of ${judgement.drives.length}` : `${slow.length} of ${judgement.drives.length} drives slow (${slow.join(', ')})`;
  const hostWide = judgement.hostWideDays > 0 ? `, ${judgement.hostWideDays} of them host-wide slow (not charged to any drive)` : '';
  const young = judgement.days < context.peer.minSlowDays ? `, a slow verdict needs at least ${context.peer.minSlowDays}` : '';
  return `drives: ${verdict}; ${judgement.days} day${judgement.days === 1 ? '' : 's'} of history${hostWide}${young} in ${context.stateDir}${excludedText(context.excluded)}`;
}

/** One drive as a JSON line. */
export function driveJson(drive: DriveReport, timeMs: number): Record<string, unknown> {
  const v = drive.verdict;
  return {
    type: 'drive',
    time: new Date(timeMs).toISOString(),
    device: drive.device,
    id: drive.id,
    verdict: v?.verdict ?? 'ok',
    current: v?.current ?? 'ok',
    ratio: finite(v?.ratio),
    load_ratio: finite(v?.loadRatio),
    slow_days: v?.slowDays ?? 0,
    days: v?.days ?? 0,
    host_wide_days: v?.hostWideDays ?? 0,
    window_share: finite(v?.windowShare),
    z: finite(v?.z),
    confidence: finite(v?.confidence) ?? 0,
    first_slow: v?.firstSlow ?? null,
    last_slow: v?.lastSlow ?? null,
    from: v?.from || null,
    to: v?.to || null,
  };
}

/** The summary as a JSON line. */
export function drivesJson(judgement: DriveJudgement, context: DriveContext, timeMs: number): Record<string, unknown> {
  return {
    type: 'drives',
    time: new Date(timeMs).toISOString(),
    drives: judgement.drives.length,
    slow: judgement.drives.filter(isSlow).map((drive) => drive.device),
    days: judgement.days,
    host_wide_days: judgement.hostWideDays,
    min_slow_days: context.peer.minSlowDays,
    state_dir: context.stateDir,
    excluded: context.excluded,
  };
}
