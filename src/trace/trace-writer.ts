// The recorder behind `watch --record FILE` and `check --record FILE`: one JSON line per
// result as it arrives, written through an async stream so a slow trace file never stalls
// the ticks. What it writes is what replay needs to give the live timeline back exactly.
import { open } from 'node:fs/promises';
import os from 'node:os';
import type { WriteStream } from 'node:fs';
import { finished } from 'node:stream/promises';
import type { ScoreParams } from '../params.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import { deviceFields, headerParamsOf, TRACE_VERSION, type RecordedDevice, type RecordedFailure, type RecordedInspection, type TraceHeader } from './trace-format.js';

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
  /** --hang-after, for replay to find the same hangs. */
  hangAfterMs?: number;
}

export class TraceWriter {
  private writeError: Error | null = null;

  private constructor(
    private readonly stream: WriteStream,
    private readonly params: ScoreParams,
  ) {
    stream.on('error', (error) => (this.writeError ??= error));
  }

  /** Creates `file` and writes the header. Never overwrites: an existing file is someone's data. */
  static async open(file: string, options: TraceWriterOptions): Promise<TraceWriter> {
    const handle = await open(file, 'wx').catch((error: NodeJS.ErrnoException) => {
      throw new Error(error.code === 'EEXIST' ? `refusing to overwrite ${file}: it already exists` : `cannot record to ${file}: ${error.message}`);
    });
    const writer = new TraceWriter(handle.createWriteStream(), options.params);
    const header: TraceHeader = {
      slowdisk_trace: TRACE_VERSION,
      ...headerParamsOf(options.params),
      disks: options.disks,
      ...(options.paths ? { paths: options.paths } : {}),
      host: os.hostname(),
      start: new Date().toISOString(),
      tool: options.tool,
      ...(options.blockDevices ? { block_devices: options.blockDevices } : {}),
      ...(options.hangAfterMs === undefined ? {} : { hang_after_ms: options.hangAfterMs }),
    };
    writer.write(header);
    return writer;
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

  /** Flushes and closes the file; rejects with the first write error (ENOSPC, EIO), if any. */
  async close(): Promise<void> {
    this.stream.end();
    await finished(this.stream).catch((error: Error) => (this.writeError ??= error));
    if (this.writeError) throw this.writeError;
  }

  private write(line: object): void {
    if (this.writeError === null) this.stream.write(`${JSON.stringify(line)}\n`);
  }
}

/** The resolution of a trace's timings. */
export function microseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * Microseconds, unless rounding would carry the duration across the interval or the timeout:
 * then it is kept exact, so that replay charges exactly what the live run charged.
 */
function recordedMs(ms: number, limits: number[]): number {
  const rounded = microseconds(ms);
  return limits.every((limit) => rounded < limit === ms < limit) ? rounded : ms;
}
