// The JSON a hook reads on stdin: enough to file a disk replacement ticket or to evict the
// store's leaders, without asking anything else. Field names are snake_case, as in the trace.
import os from 'node:os';
import { driveOf, resolveBlockDevices, type DriveOfFilesystem } from '../kernel/block-devices.js';
import type { ScoreParams } from '../score/score-params.js';
import { shownScore } from '../score/store-score.js';
import type { DiskStatus, InspectionRecord, RoundReport } from '../live/session-events.js';
import type { HookEvent } from './eviction-tracker.js';
import type { SlowCause } from '../verdict/slow-cause.js';
import type { SessionHistory } from './session-history.js';
import { smartHealth, type SmartHealth } from './smart-health.js';

export interface HookReport {
  event: HookEvent;
  time: string;
  host: string;
  store_score: number;
  reported_score: number;
  thresholds: { slow: number; evict: number };
  disks: DiskReport[];
  score_history: { tick: number; time: string; store_score: number; disks: Record<string, number> }[];
  latest_inspections: Record<string, InspectionReport[]>;
}

export interface DiskReport {
  name: string;
  path: string;
  score: number;
  state: DiskStatus['state'];
  /** For a skipped path: the inspected path on the same filesystem. */
  same_as?: string;
  error?: string;
  /** How long the inspection in flight has been running, once it has missed its tick. */
  waiting_ms?: number;
  /** A hung disk (state hung): when its inspection in flight started, ISO 8601. */
  hung_since?: string;
  device: string | null;
  block_device: string | null;
  whole_disk: string | null;
  /** The kernel's names of every block device behind the filesystem, from its own down; those that stalled in the last round. */
  block_devices: string[];
  stalled_devices: string[];
  /** The early-warning predictor's probability that the P99 exceeds the SLA within 5 minutes (null until it has one), and whether the disk is in state warning. */
  predicted_breach_probability: number | null;
  warning: boolean;
  /** Why it was slow in the last round (docs/causes.md): null when it was not. */
  cause: SlowCause | null;
  mount: { mount_point: string; fstype: string; source: string } | null;
  smart: { command: string; exit_code: number; output: string } | null;
  /** Why smart is null. */
  smart_unavailable?: string;
}

export interface InspectionReport {
  tick: number;
  time: string;
  ms?: number;
  write_ms?: number;
  sync_ms?: number;
  read_ms?: number;
  error?: string;
}

export interface ReportContext {
  event: HookEvent;
  round: RoundReport;
  wallMs: number;
  history: SessionHistory;
  score: ScoreParams;
  /** smartctl's path, or null when it is not installed. */
  smartctl: string | null;
}

const iso = (wallMs: number) => new Date(wallMs).toISOString();

function inspectionReport(record: InspectionRecord): InspectionReport {
  const base = { tick: record.tick, time: iso(record.wallMs) };
  if (record.error) return { ...base, error: record.error.message };
  const timings = record.timings!;
  return { ...base, ms: timings.totalMs, write_ms: timings.writeMs, sync_ms: timings.syncMs, read_ms: timings.readMs };
}

/** Resolved afresh at the event: a replacement ticket must name the drive as it is now. */
async function driveOfDisk(disk: DiskStatus): Promise<DriveOfFilesystem | null> {
  if (disk.device === undefined) return null;
  // A device that goes away during the walk has no drive to name.
  return resolveBlockDevices(disk.device).then(driveOf, () => null);
}

async function diskReport(disk: DiskStatus, smartOf: (wholeDisk: string) => Promise<SmartHealth>): Promise<DiskReport> {
  const blockDevice = await driveOfDisk(disk);
  let smart: SmartHealth;
  if (!blockDevice) smart = { unavailable: `no block device is known for ${disk.device ?? 'this filesystem'}` };
  else if (blockDevice.virtualBecause !== undefined) smart = { unavailable: blockDevice.virtualBecause };
  else smart = await smartOf(blockDevice.wholeDisk);
  return {
    name: disk.name,
    path: disk.dir,
    score: shownScore(disk.score),
    state: disk.state,
    ...(disk.sameAs === undefined ? {} : { same_as: disk.sameAs }),
    ...(disk.error === undefined ? {} : { error: disk.error.message }),
    ...(disk.waitingMs === undefined ? {} : { waiting_ms: disk.waitingMs }),
    ...(disk.hungSinceMs === undefined ? {} : { hung_since: iso(disk.hungSinceMs) }),
    device: disk.device ?? null,
    block_device: blockDevice?.node ?? null,
    whole_disk: blockDevice?.wholeDisk ?? null,
    block_devices: disk.blockDevices ?? [],
    stalled_devices: disk.stalledDevices ?? [],
    predicted_breach_probability: disk.prediction?.probability ?? null,
    warning: disk.prediction?.warning === true,
    cause: disk.cause ?? null,
    mount: disk.mount ? { mount_point: disk.mount.mountPoint, fstype: disk.mount.fsType, source: disk.mount.source } : null,
    ...('unavailable' in smart
      ? { smart: null, smart_unavailable: smart.unavailable }
      : { smart: { command: smart.command, exit_code: smart.exitCode, output: smart.output } }),
  };
}

export async function hookReport(context: ReportContext): Promise<HookReport> {
  const { round, score, smartctl } = context;
  // One query per physical disk, however many paths it holds; all of them at once.
  const queries = new Map<string, Promise<SmartHealth>>();
  const smartOf = (wholeDisk: string): Promise<SmartHealth> => {
    if (smartctl === null) return Promise.resolve({ unavailable: 'smartctl is not installed' });
    let query = queries.get(wholeDisk);
    if (!query) queries.set(wholeDisk, (query = smartHealth(wholeDisk, smartctl)));
    return query;
  };
  // The past as it was at the event: smartctl may take seconds, and the session goes on.
  const scoreHistory = context.history.rounds().map((entry) => ({
    tick: entry.tick,
    time: iso(entry.wallMs),
    store_score: shownScore(entry.storeScore),
    disks: Object.fromEntries(Object.entries(entry.disks).map(([disk, score]) => [disk, shownScore(score)])),
  }));
  const latestInspections = Object.fromEntries(
    [...context.history.inspections()].map(([disk, records]) => [disk, records.map(inspectionReport)]),
  );
  return {
    event: context.event,
    time: iso(context.wallMs),
    host: os.hostname(),
    store_score: shownScore(round.storeScore),
    reported_score: round.reportedScore,
    thresholds: { slow: score.slowThreshold, evict: score.evictThreshold },
    disks: await Promise.all(round.disks.map((disk) => diskReport(disk, smartOf))),
    score_history: scoreHistory,
    latest_inspections: latestInspections,
  };
}
