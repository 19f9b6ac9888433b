// Connects a live probe session to a TraceWriter: `watch --record` and `check --record`. The
// trace file is created and written by the output writer, in the prober's process: a trace on
// a hung disk stalls a thread of that process, never the run.
import { deadlineText, withinDeadline } from '../output/deadline.js';
import type { OutputWriter } from '../output/output-writer.js';
import type { ProbeSession } from '../live/probe-session.js';
import type { InspectionRecord } from '../live/session-events.js';
import { VERSION } from '../common/version.js';
import type { RecordedParams } from '../trace/trace-format.js';
import { TRACE_MODE, traceCreateError, traceHeaderLine, TraceWriter } from './trace-writer.js';
import { writeStderrLine } from '../common/visible-text.js';

/** An inspection as the session told it, as a trace line: what replay reads back. */
export function recordInspection(writer: TraceWriter, record: InspectionRecord): void {
  const { tick, disk, timings, error, late, wallMs } = record;
  if (timings) {
    writer.inspection({
      tick,
      disk,
      ms: timings.totalMs,
      open_ms: timings.openMs,
      write_ms: timings.writeMs,
      sync_ms: timings.syncMs,
      read_ms: timings.readMs,
      ...(timings.waitMs === null ? {} : { wait_ms: timings.waitMs }),
      ...(timings.startWaitMs === null ? {} : { start_wait_ms: timings.startWaitMs }),
      t: wallMs,
      late,
    });
  } else {
    writer.failure({ tick, disk, error: error!.code, t: wallMs });
  }
}

export class SessionRecorder {
  private created = false;
  private closed = false;
  /** Lines were lost: a write failed (ENOSPC, EIO). */
  private lostLines = false;
  private failing = false;
  private stopping = false;

  private constructor(
    private readonly file: string,
    private readonly writer: TraceWriter,
    private readonly session: ProbeSession,
    private readonly close: () => Promise<void>,
  ) {
    session.on('inspection', (record) => this.stopping || recordInspection(writer, record));
    session.on('round', (report) => {
      if (this.stopping) return;
      const wallMs = Date.now();
      for (const figures of report.devices) writer.device(report.tick, figures, wallMs);
    });
  }

  /**
   * Creates the trace file (never over an existing entry) with the layout at start: a file
   * that cannot be created fails the run; one not created within the deadline (a hung disk)
   * is told, and the run goes on, its lines queued in the writer. The header records every
   * parameter that can change a verdict.
   */
  static async start(output: OutputWriter, file: string, session: ProbeSession, recorded: RecordedParams): Promise<SessionRecorder> {
    const { score: params, ...stages } = recorded;
    const inspected = session.statuses().filter((disk) => disk.inspected);
    const header = traceHeaderLine({
      params,
      disks: inspected.map((disk) => disk.name),
      paths: Object.fromEntries(inspected.map((disk) => [disk.name, disk.dir])),
      tool: `slowdisk ${VERSION}`,
      blockDevices: Object.fromEntries(inspected.map((disk) => [disk.name, disk.blockDevices ?? []])),
      stages,
    });
    const creating = output.request({ type: 'create', file, text: header, mode: TRACE_MODE });
    const sink = { write: (text: string) => output.append(file, text), close: () => output.closeFile(file) };
    const recorder = new SessionRecorder(file, TraceWriter.to(sink, params), session, () => sink.close());
    output.onFailure(file, (error) => {
      recorder.lostLines = true;
      recorder.tell(`cannot record to ${file}: ${error.message}`);
    });
    if ((await withinDeadline(creating)) === 'late') {
      recorder.tell(`cannot record to ${file}: not created within ${deadlineText()}, its disk may hang; the run goes on`);
      void creating.then(() => (recorder.created = true), () => {});
      return recorder;
    }
    await creating.catch((error: Error & { code?: string }) => {
      throw traceCreateError(file, error);
    });
    recorder.created = true;
    return recorder;
  }

  /** Marks the last tick, so that inspections that never returned replay as timeouts, and closes the file (waited for up to the deadline). */
  async stop(): Promise<void> {
    // The session goes on until the prober stops, after the trace: what comes later is not the run's.
    this.stopping = true;
    this.writer.clock(this.session.currentTick);
    if (!this.created) return;
    const closing = this.close().then(() => (this.closed = true));
    if ((await withinDeadline(closing)) === 'late') {
      this.tell(`cannot record to ${this.file}: not written within ${deadlineText()}, its disk may hang; the run goes on`);
      return;
    }
    await closing.catch((error: Error) => this.tell(`cannot record to ${this.file}: ${error.message}`));
  }

  /** "the trace PATH" unless it was closed with all its lines. */
  notWritten(): string | null {
    return this.closed && !this.lostLines ? null : `the trace ${this.file}`;
  }

  private tell(line: string): void {
    if (!this.failing) writeStderrLine(line);
    this.failing = true;
  }
}
