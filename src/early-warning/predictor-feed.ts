// Feeds each disk's early-warning predictor from the store's tick outcomes, on the ticks' own
// clock, as tick-feed.ts feeds the statistical detector: live runs and replays hand it the
// same outcomes, failures and device figures at the same ticks, so they reach the same
// predictions.
//
// The sample that closes at tick T (a multiple of the sample period in ticks) holds the
// outcomes of the ticks before T: an inspection that counted for its tick is a latency, a
// tick charged as a timeout is unanswered, for as long as the disk has gone without an
// answer (a failure that came back resets that to 0: it is an error, not a wait). An error
// that comes back after its tick was charged counts as an error all the same, but its tick
// was charged as a wait; a trace does not say how long a failure took, so replay counts it
// as one that came back in time. With the figures of the block devices recorded at T,
// the sample also has the queue depth and the IOPS of the device nearest to the disk.
// Durations and figures are taken as a trace records them (to the microsecond, the figures
// rounded as on a device line), so that a replay is fed exactly what the live run was.
import { microseconds } from '../common/microseconds.js';
import { recordedFigures, type DeviceFigures } from '../kernel/device-counters.js';
import { HostPredictors } from './host-predictors.js';
import type { Prediction } from './predictor.js';
import type { PredictorParams } from './predictor-params.js';
import type { PredictorSample } from './sample-features.js';

interface DiskSample {
  latenciesMs: number[];
  unansweredMs: number[];
  errors: number;
  /** Ticks in a row charged as timeouts since the disk last answered. */
  waitingTicks: number;
  /** The tick of a failure that came back, until that tick is charged. */
  failedTick: number | null;
}

/** A disk's block device figures over the sample: summed, one entry per round. */
interface DeviceSums {
  queueDepth: number;
  iops: number;
  rounds: number;
  /** The kernel's name of the device the figures come from. */
  device: string;
}

/**
 * The device whose figures stand for the disk: its filesystem's own device, else the whole
 * disk it is on; a stacked device's members and a loop device's backing disk also carry
 * other traffic, so they are not read.
 */
export function nearestDevice(disk: string, devices: readonly DeviceFigures[]): DeviceFigures | undefined {
  const behind = devices.filter((device) => device.disks.includes(disk));
  return behind.find((device) => device.role === 'filesystem') ?? behind.find((device) => device.role === 'whole-disk');
}

export class PredictorFeed {
  private readonly predictors: HostPredictors;
  private readonly samples = new Map<string, DiskSample>();
  private readonly deviceSums = new Map<string, DeviceSums>();
  private readonly predictions = new Map<string, Prediction>();
  private readonly ticksPerSample: number;

  constructor(
    params: PredictorParams,
    private readonly intervalMs: number,
  ) {
    // An interval that does not divide the sample period gets the nearest whole number of ticks.
    this.ticksPerSample = Math.max(1, Math.round(params.sampleMs / intervalMs));
    this.predictors = new HostPredictors(params);
  }

  /** What a tick of a disk came to (StoreTicks' TickOutcomeListener). */
  readonly outcome = (disk: string, tickId: number, durationMs: number | null): void => {
    const sample = this.sampleOf(disk);
    if (durationMs !== null) {
      sample.latenciesMs.push(microseconds(durationMs));
      sample.waitingTicks = 0;
      return;
    }
    if (sample.failedTick === tickId) {
      sample.unansweredMs.push(0);
      sample.waitingTicks = 0;
      sample.failedTick = null;
      return;
    }
    sample.waitingTicks += 1;
    sample.unansweredMs.push(sample.waitingTicks * this.intervalMs);
  };

  /** An inspection of the disk failed (an errno came back). */
  failed(disk: string, tickId: number): void {
    const sample = this.sampleOf(disk);
    sample.errors += 1;
    sample.failedTick = tickId;
    // The disk answered: a tick charged after this one waits afresh.
    sample.waitingTicks = 0;
  }

  /**
   * Tick `tickId` began, with the block devices' figures of the round it closed, if it closed
   * one; at the end of a sample period each disk's predictor is fed.
   */
  tick(tickId: number, devices: readonly DeviceFigures[] = []): void {
    // Figures come once a round: the other ticks have nothing to sum.
    if (devices.length > 0) this.sumDevices(devices.map(recordedFigures));
    if (tickId % this.ticksPerSample !== 0) return;
    const samples = new Map<string, PredictorSample>();
    for (const [disk, sample] of this.samples) {
      const sums = this.deviceSums.get(disk);
      samples.set(disk, {
        latenciesMs: sample.latenciesMs,
        unansweredMs: sample.unansweredMs,
        errors: sample.errors,
        ...(sums ? { queueDepth: sums.queueDepth / sums.rounds, iops: sums.iops / sums.rounds } : {}),
      });
      sample.latenciesMs = [];
      sample.unansweredMs = [];
      sample.errors = 0;
    }
    for (const [disk, prediction] of this.predictors.observe(tickId * this.intervalMs, samples)) {
      if (prediction) this.predictions.set(disk, prediction);
    }
    this.deviceSums.clear();
  }

  /** Adds a round's figures to each disk's sums: those of the device nearest to it. */
  private sumDevices(recorded: readonly DeviceFigures[]): void {
    for (const disk of this.samples.keys()) {
      const figures = nearestDevice(disk, recorded);
      if (!figures) continue;
      const sums = this.deviceSums.get(disk);
      const iops = (figures.readIops ?? 0) + (figures.writeIops ?? 0) + (figures.flushIops ?? 0);
      if (sums && sums.device === figures.name) {
        sums.queueDepth += figures.averageQueueDepth;
        sums.iops += iops;
        sums.rounds += 1;
      } else {
        this.deviceSums.set(disk, { queueDepth: figures.averageQueueDepth, iops, rounds: 1, device: figures.name });
      }
    }
  }

  /** The disk's latest prediction, or undefined before its first sample. */
  predictionOf(disk: string): Prediction | undefined {
    return this.predictions.get(disk);
  }

  /** The disk is another disk now (or no longer inspected): its window starts afresh. */
  forget(disk: string): void {
    this.predictors.forget(disk);
    this.samples.delete(disk);
    this.deviceSums.delete(disk);
    this.predictions.delete(disk);
  }

  private sampleOf(disk: string): DiskSample {
    let sample = this.samples.get(disk);
    if (!sample) this.samples.set(disk, (sample = { latenciesMs: [], unansweredMs: [], errors: 0, waitingTicks: 0, failedTick: null }));
    return sample;
  }
}
