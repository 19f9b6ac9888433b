// The inspection trace (../shared/spec/trace-format.md): what `watch --record` writes and
// `replay` reads. A public contract, versioned by the header's "slowdisk_trace".
import { DEFAULT_INTERVAL_MS, type ScoreParams } from '../params.js';

export const TRACE_VERSION = 1;

/** The header's name for each scoring parameter: the writer records them all, replay reads them back. */
export const HEADER_PARAM_KEYS = {
  intervalMs: 'interval_ms',
  roundTicks: 'round_ticks',
  ratioThreshold: 'ratio_threshold',
  minTtrMs: 'min_ttr_ms',
  timeoutMs: 'timeout_ms',
  evictThreshold: 'evict_threshold',
  slowThreshold: 'slow_threshold',
} as const satisfies Record<keyof ScoreParams, string>;

type HeaderParams = { [K in keyof ScoreParams as (typeof HEADER_PARAM_KEYS)[K]]?: number };

/** The first line of a trace, when it has one. Keys beyond these are kept for people, not read. */
export interface TraceHeader extends HeaderParams {
  slowdisk_trace: number;
  /** The inspected disks, in order. Without them replay takes the disks named in the lines. */
  disks?: string[];
  /** Each disk's directory. */
  paths?: Record<string, string>;
  host?: string;
  /** When recording started, ISO 8601. */
  start?: string;
  /** "slowdisk <version>". */
  tool?: string;
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
  /** Wall-clock time of the result, ms since the epoch. */
  t: number;
  /**
   * The result came back under the interval but after its tick had ended (IPC delay), so it
   * was charged as a timeout live; replay charges it too.
   */
  late?: boolean;
}

/** An inspection that failed, as the recorder writes it. */
export interface RecordedFailure {
  tick: number;
  disk: string;
  /** The errno name, e.g. "EIO". */
  error: string;
  t: number;
}

/** One line of a trace as replay reads it, whatever its kind. */
export interface TraceLine {
  /** Its line number in the file, from 1. */
  line: number;
  tick: number;
  /** null on a clock line. */
  disk: string | null;
  /** The inspection's duration; null when it failed, and on a clock line. */
  ms: number | null;
  late: boolean;
}

export function headerParamsOf(params: ScoreParams): HeaderParams {
  const header: HeaderParams = {};
  for (const [param, key] of Object.entries(HEADER_PARAM_KEYS) as [keyof ScoreParams, keyof HeaderParams][]) {
    header[key] = params[param];
  }
  return header;
}

/**
 * The scoring parameters a header records. A timeout equal to the interval is left out: it is
 * the default, so it follows the interval when replay is given another one.
 */
export function paramsOfHeader(header: TraceHeader): Partial<ScoreParams> {
  const params: Partial<ScoreParams> = {};
  for (const [param, key] of Object.entries(HEADER_PARAM_KEYS) as [keyof ScoreParams, keyof HeaderParams][]) {
    if (header[key] !== undefined) params[param] = header[key];
  }
  if (params.timeoutMs === (params.intervalMs ?? DEFAULT_INTERVAL_MS)) delete params.timeoutMs;
  return params;
}
