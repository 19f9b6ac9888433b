// The recorder behind `watch --record FILE` and `check --record FILE`: one JSON line per
// result as it arrives, handed to a sink (the output writer, in the prober's process, in a live run) so a slow
// trace file never stalls the ticks. What it writes is what replay needs to give the live
// timeline back exactly.
import os from 'node:os';
import { microseconds } from '../common/microseconds.js';
import { AppendedFile } from '../output/appended-file.js';
import type { ScoreParams } from '../score/score-params.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import { deviceFields, headerParamsOf, TRACE_VERSION, type RecordedDevice, type RecordedFailure, type RecordedInspection, type RecordedParams, type TraceHeader } from '../trace/trace-format.js';

export interface TraceWriterOptions {
  params: ScoreParams;
  /** The inspected disks, in order. */
  disks: string[];
  /** Each disk's directory, for the person reading the trace later. */
  paths?: Record<string, string>;
  /** "slowdisk <version>". */
  tool: string;
  /** The block devices behind each disk's filesystem. */
  blockDevices?: Record<string, string[]>;
  /** The other stages' verdict parameters, for replay to reach the same verdicts. */
  stages?: Omit<Partial<RecordedParams>, 'score'>;
}

/** Where a trace's lines go: written in order; close flushes them. */
export interface TraceSink {
  write(text: string): void;
  close(): Promise<void>;
}

/** The trace's mode: it holds the paths and timings of the host's disks. */
export const TRACE_MODE = 0o644;

/** The line for a trace file that cannot be created: never over an existing entry, which is someone's data. */
export function traceCreateError(file: string, error: { code?: string; message: string }): Error {
  return new Error(error.code === 'EEXIST' ? `refusing to overwrite ${file}: it already exists` : `cannot record to ${file}: ${error.message}`);
}

export class TraceWriter {
  private constructor(
    private readonly sink: TraceSink,
    private readonly params: ScoreParams,
  ) {}

  /** Creates `file` in this process and writes the header. Never over an existing file, symlink or FIFO. */
  static async open(file: string, options: TraceWriterOptions): Promise<TraceWriter> {
    const sink = await AppendedFile.create(file, TRACE_MODE).catch((error: NodeJS.ErrnoException) => {
      throw traceCreateError(file, error);
    });
    const writer = new TraceWriter(sink, options.params);
    sink.write(traceHeaderLine(options));
    return writer;
  }

  /** A trace whose header the sink has already been given (traceHeaderLine). */
  static to(sink: TraceSink, params: ScoreParams): TraceWriter {
    return new TraceWriter(sink, params);
  }

  /** An inspection that finished; `late` when StoreTicks did not count it. */
  inspection(record: RecordedInspection): void {
    const { intervalMs, timeoutMs } = this.params;
    this.write({
      tick: record.tick,
      disk: record.disk,
      ms: recordedMs(record.ms, [intervalMs, timeoutMs]),
      open_ms: microseconds(record.open_ms),
      write_ms: microseconds(record.write_ms),
      sync_ms: microseconds(record.sync_ms),
      read_ms: microseconds(record.read_ms),
      ...(record.wait_ms === undefined ? {} : { wait_ms: microseconds(record.wait_ms) }),
      ...(record.start_wait_ms === undefined ? {} : { start_wait_ms: microseconds(record.start_wait_ms) }),
      t: microseconds(record.t),
      // Replay charges a result at or over the interval anyway; the mark matters only under it.
      ...(record.late && record.ms < intervalMs ? { late: true } : {}),
    });
  }

  failure(record: RecordedFailure): void {
    this.write({ tick: record.tick, disk: record.disk, error: record.error, t: microseconds(record.t) });
  }

  /** A block device over the round that closed at `tick`. */
  device(tick: number, figures: DeviceFigures, wallMs: number): void {
    const line: RecordedDevice = { tick, ...deviceFields(figures), t: microseconds(wallMs) };
    this.write(line);
  }

  /** The clock reached `tick`: write it when stopping, so that replay charges the last ticks. */
  clock(tick: number): void {
    this.write({ tick });
  }

  /** Flushes and closes the trace; rejects with the first write error (ENOSPC, EIO), if any. */
  close(): Promise<void> {
    return this.sink.close();
  }

  private write(line: object): void {
    this.sink.write(`${JSON.stringify(line)}\n`);
  }
}

/** A trace's first line: its parameters and layout, at the start of the run. */
export function traceHeaderLine(options: TraceWriterOptions): string {
  const header: TraceHeader = {
    slowdisk_trace: TRACE_VERSION,
    ...headerParamsOf({ ...options.stages, score: options.params }),
    disks: options.disks,
    ...(options.paths ? { paths: options.paths } : {}),
    host: os.hostname(),
    start: new Date().toISOString(),
    tool: options.tool,
    ...(options.blockDevices ? { block_devices: options.blockDevices } : {}),
  };
  return `${JSON.stringify(header)}\n`;
}

/**
 * Microseconds, unless rounding would carry the duration across the interval or the timeout:
 * then it is kept exact, so that replay charges exactly what the live run charged.
 */
function recordedMs(ms: number, limits: number[]): number {
  const rounded = microseconds(ms);
  return limits.every((limit) => rounded < limit === ms < limit) ? rounded : ms;
}
