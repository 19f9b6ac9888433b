// The inspection trace (docs/trace-format.md): what `watch --record` writes and
// `replay` reads. A public contract, versioned by the header's "slowdisk_trace".
import { recordedFigures, type DeviceFigures } from '../kernel/device-counters.js';
import type { DeviceRole } from '../kernel/block-devices.js';
import type { ParamSpec } from '../common/param-spec.js';
import { CRITICAL_ON_SPEC, STATISTICAL_SPECS, type StatisticalParams } from '../detectors/statistical-params.js';
import { BUSY_SPEC } from '../verdict/busy-verdict.js';
import type { VerdictParams } from '../verdict/verdict-pipeline.js';
import { TAIL_SPECS, type TailParams } from '../detectors/tail-params.js';
import { DEFAULT_INTERVAL_MS, INTERVAL_SPEC, SCORE_SPECS, TIMEOUT_SPEC, type ScoreParams } from '../score/score-params.js';
import { HANG_AFTER_SPEC, type ProbeParams } from '../probe/probe-params.js';
import { PREDICTOR_SPECS, type PredictorParams } from '../early-warning/predictor-params.js';

export const TRACE_VERSION = 1;

/** The parameters a header records, by the stage whose params hold them: every one that can change a state or the exit code. */
export interface RecordedParams {
  score: ScoreParams;
  probe: Pick<ProbeParams, 'hangAfterMs'>;
  statistical: StatisticalParams;
  tail: TailParams;
  verdict: VerdictParams;
  predictor: PredictorParams;
}

type RecordedSpecs = { readonly [Stage in keyof RecordedParams]: readonly ParamSpec<keyof RecordedParams[Stage] & string>[] };

/** The specs of each stage whose parameters a header records, under the specs' `trace` keys. */
export const RECORDED_SPECS: RecordedSpecs = Object.freeze({
  score: SCORE_SPECS,
  probe: [HANG_AFTER_SPEC],
  statistical: STATISTICAL_SPECS,
  tail: TAIL_SPECS,
  verdict: [CRITICAL_ON_SPEC, BUSY_SPEC],
  predictor: PREDICTOR_SPECS,
});

/** Every parameter a header may hold. */
export const HEADER_SPECS: readonly ParamSpec[] = Object.values(RECORDED_SPECS)
  .flat()
  .filter((spec) => spec.trace !== undefined);

/** The first line of a trace, when it has one. Keys beyond these are kept for people, not read. */
export interface TraceHeader {
  slowdisk_trace: number;
  /** The recorded parameters, under their specs' `trace` keys (HEADER_SPECS): all optional. */
  [traceKey: string]: unknown;
  /** The inspected disks, in order. Without them replay takes the disks named in the lines. */
  disks?: string[];
  /** Each disk's directory. */
  paths?: Record<string, string>;
  host?: string;
  /** When recording started, ISO 8601. */
  start?: string;
  /** "slowdisk <version>". */
  tool?: string;
  /** The kernel's names of the block devices behind each disk's filesystem, at the start. */
  block_devices?: Record<string, string[]>;
}

/** An inspection that finished, as the recorder writes it. */
export interface RecordedInspection {
  tick: number;
  disk: string;
  /** From start to end of the inspection started at `tick`. */
  ms: number;
  open_ms: number;
  write_ms: number;
  sync_ms: number;
  read_ms: number;
  /**
   * The time the probe thread waited for a CPU during the inspection (PhaseTimings' waitMs):
   * absent where the kernel did not say. Some older traces have it only where it was read, and
   * then since start_wait_ms's reading or the thread's last: it is the inspection's own only on
   * a line with both.
   */
  wait_ms?: number;
  /** The same, from the thread's last reading to the inspection's start (PhaseTimings' startWaitMs). */
  start_wait_ms?: number;
  /** Wall-clock time of the result, ms since the epoch. */
  t: number;
  /**
   * The result came back under the interval but after its tick had ended (IPC delay), so it
   * was charged as a timeout live; replay charges it too.
   */
  late?: boolean;
}

/** The error of a tick whose probe file's name was taken (a name race lost): no fault of the disk, neither counted nor charged. */
export const NAME_LOST = 'ENAMETAKEN';

/** An inspection that failed, as the recorder writes it. */
export interface RecordedFailure {
  tick: number;
  disk: string;
  /** The errno name, e.g. "EIO"; NAME_LOST for a name race lost. */
  error: string;
  t: number;
}

/**
 * A block device over the round that closed at `tick`, from the kernel's counters. It has no
 * "disk" key, so that a reader that does not know it takes it for a clock line; "disks" are
 * the inspected disks whose filesystem goes through the device. Per second: *_iops; mean ms
 * from queueing to completion of the requests that completed in the round: *_ms, null when
 * none did (f_iops and f_ms are null on a kernel that does not count flushes, before 5.5).
 */
export interface RecordedDevice {
  tick: number;
  /** The kernel's name, as in /proc/diskstats. */
  device: string;
  major_minor: string;
  disks: string[];
  role: DeviceRole;
  r_iops: number;
  w_iops: number;
  f_iops: number | null;
  r_ms: number | null;
  w_ms: number | null;
  f_ms: number | null;
  /** Requests in flight as the round closed: the queue depth then. */
  in_flight: number;
  /** Mean requests in flight over the round (iostat's aqu-sz). */
  avg_in_flight: number;
  /** Share of the round with a request in flight, 0 to 1. */
  util: number;
  /** Requests in flight and none completed for the whole round. */
  stalled: boolean;
  /** The largest share of an I/O limit on the device in slowdisk's cgroup that the group used over the round; absent where none is set. */
  limit_use?: number;
  /** Wall-clock ms since the epoch; absent from --json, whose lines carry "time". */
  t?: number;
}

/** A device's figures under the names the trace and --json give them, to the places they keep. */
export function deviceFields(figures: DeviceFigures): Omit<RecordedDevice, 'tick' | 't'> {
  const kept = recordedFigures(figures);
  return {
    device: kept.name,
    major_minor: kept.device,
    disks: kept.disks,
    role: kept.role,
    r_iops: kept.readIops,
    w_iops: kept.writeIops,
    f_iops: kept.flushIops,
    r_ms: kept.readLatencyMs,
    w_ms: kept.writeLatencyMs,
    f_ms: kept.flushLatencyMs,
    in_flight: kept.inFlight,
    avg_in_flight: kept.averageQueueDepth,
    util: kept.utilisation,
    stalled: kept.stalled,
    ...(kept.limitUse === null ? {} : { limit_use: kept.limitUse }),
  };
}

/** The figures back from a device line. */
export function figuresOfLine(line: Omit<RecordedDevice, 'tick' | 't'>): DeviceFigures {
  return {
    name: line.device,
    device: line.major_minor,
    disks: line.disks,
    role: line.role,
    readIops: line.r_iops,
    writeIops: line.w_iops,
    flushIops: line.f_iops,
    readLatencyMs: line.r_ms,
    writeLatencyMs: line.w_ms,
    flushLatencyMs: line.f_ms,
    inFlight: line.in_flight,
    averageQueueDepth: line.avg_in_flight,
    utilisation: line.util,
    stalled: line.stalled,
    limitUse: line.limit_use ?? null,
  };
}

/** One line of a trace as replay reads it, whatever its kind. */
export interface TraceLine {
  /** Its line number in the file, from 1. */
  line: number;
  tick: number;
  /** null on a clock line and a device line. */
  disk: string | null;
  /** The inspection's duration; null when it failed, and on a clock or device line. */
  ms: number | null;
  /** The probe thread's waits for a CPU during it and before it, where the line has them (RecordedInspection's). */
  waitMs?: number;
  startWaitMs?: number;
  late: boolean;
  /** A name race lost (error ENAMETAKEN): no inspection was made, and the tick counts neither way. */
  lost?: boolean;
  /** A failed inspection's errno name. */
  error?: string;
  /** On a device line: the device's figures over the round that closed at `tick`. */
  device?: DeviceFigures;
}

/** The header's parameters: a run records the score's always, the other stages' when it has them. */
export function headerParamsOf(params: Pick<RecordedParams, 'score'> & Partial<RecordedParams>): Record<string, number | string> {
  const header: Record<string, number | string> = {};
  for (const stage of Object.keys(RECORDED_SPECS) as (keyof RecordedParams)[]) {
    const values = params[stage] as Record<string, number | string> | undefined;
    if (values === undefined) continue;
    for (const spec of RECORDED_SPECS[stage]) if (spec.trace !== undefined) header[spec.trace] = values[spec.key];
  }
  return header;
}

/**
 * The value a header records for a parameter, if any, or the one a trace without it ran with
 * (`untraced`). A timeout equal to the interval is
 * left out: it is the default, so it follows the interval when replay is given another one.
 */
export function headerValueOf(header: TraceHeader, spec: ParamSpec): number | string | undefined {
  if (spec.trace === undefined) return undefined;
  const value = (header[spec.trace] as number | string | undefined) ?? spec.untraced;
  if (spec === (TIMEOUT_SPEC as ParamSpec) && value === (header[INTERVAL_SPEC.trace!] ?? DEFAULT_INTERVAL_MS)) return undefined;
  return value;
}
