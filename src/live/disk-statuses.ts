// What every output shows of each disk and each round: a disk's state as its results left
// it, with the pipeline's verdict on it at a clock reading and the kernel's devices behind it.
import type { DeviceFigures } from '../kernel/device-counters.js';
import { reportedScore } from '../score/store-score.js';
import type { RoundVerdict, VerdictPipeline } from '../verdict/verdict-pipeline.js';
import { hungSinceWallMs, type DiskRecord } from './live-disks.js';
import type { DiskStatus, RoundReport } from './session-events.js';

/** The kernel's block devices behind each disk: src/kernel/device-counters.ts. */
export interface DevicesOfDisk {
  devicesOf(disk: string): string[];
  stalledOf(disk: string): string[];
}

/** Each disk at `nowMs`: a copy, for the outputs to keep. */
export function diskStatuses(disks: Iterable<DiskRecord>, pipeline: VerdictPipeline, devices: DevicesOfDisk, nowMs: number): DiskStatus[] {
  return [...disks].map((disk) => {
    const status: DiskStatus = { ...disk.status, ...pipeline.countsOf(disk.status.name), score: 1 };
    const verdict = pipeline.disk(status.name, nowMs);
    if (!status.inspected || !verdict) return status;
    status.score = verdict.score;
    status.statistical = verdict.statistical;
    status.statisticalJudged = verdict.statisticalJudged;
    if (verdict.confirmation) status.confirmation = verdict.confirmation;
    status.evictionInMs = verdict.evictionInMs;
    if (verdict.filesystemChanged) status.filesystemChanged = true;
    status.tail = verdict.tail;
    status.tailJudged = verdict.tailJudged;
    status.blockDevices = devices.devicesOf(status.name);
    status.stalledDevices = devices.stalledOf(status.name);
    if (verdict.prediction) status.prediction = verdict.prediction;
    if (verdict.cause) status.cause = verdict.cause;
    if (verdict.held) status.held = verdict.held;
    if (verdict.warningOf) status.warningOf = verdict.warningOf;
    if (verdict.waitingMs !== undefined) status.waitingMs = verdict.waitingMs;
    if (disk.contested && !verdict.hung) status.state = 'contested';
    if (verdict.hung) {
      status.state = 'hung';
      status.hungSinceMs = hungSinceWallMs(disk, verdict.inFlightSinceMs!);
      if (disk.stuckProber) status.stuckProber = disk.stuckProber.pid;
    }
    return status;
  });
}

/** A round as the outputs take it: the pipeline's verdict, the disks at its close, the devices over it. */
export function roundReport(round: RoundVerdict, sinceStartMs: number, disks: DiskStatus[], devices: DeviceFigures[]): RoundReport {
  return {
    tick: round.tick,
    elapsedMs: sinceStartMs,
    storeScore: round.storeScore,
    reportedScore: reportedScore(round.storeScore),
    disks,
    devices,
    severity: round.severity,
    crossings: round.crossings,
    actedScore: round.actedScore,
  };
}
