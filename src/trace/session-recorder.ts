// Connects a live probe session to a TraceWriter: `watch --record` and `check --record`.
import type { ScoreParams } from '../params.js';
import type { InspectionRecord, ProbeSession } from '../session/probe-session.js';
import { VERSION } from '../version.js';
import { TraceWriter } from './trace-writer.js';

/** How long stopping waits for the trace to reach its file (it may sit on a hung disk). */
const CLOSE_WAIT_MS = 2000;

export class SessionRecorder {
  private constructor(
    private readonly writer: TraceWriter,
    private readonly session: ProbeSession,
  ) {
    session.on('inspection', (record) => this.write(record));
    session.on('round', (report) => {
      const wallMs = Date.now();
      for (const figures of report.devices) writer.device(report.tick, figures, wallMs);
    });
  }

  /** Creates the trace file (never over an existing one) with the layout at start. */
  static async start(file: string, session: ProbeSession, params: ScoreParams, hangAfterMs: number): Promise<SessionRecorder> {
    const inspected = session.statuses().filter((disk) => disk.inspected);
    const writer = await TraceWriter.open(file, {
      params,
      disks: inspected.map((disk) => disk.name),
      paths: Object.fromEntries(inspected.map((disk) => [disk.name, disk.dir])),
      tool: `slowdisk ${VERSION}`,
      blockDevices: Object.fromEntries(inspected.map((disk) => [disk.name, disk.blockDevices ?? []])),
      hangAfterMs,
    });
    return new SessionRecorder(writer, session);
  }

  /** Marks the last tick, so that inspections that never returned replay as timeouts. */
  async stop(): Promise<void> {
    this.writer.clock(this.session.currentTick);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)));
    await Promise.race([this.writer.close(), timeout]);
    clearTimeout(timer);
  }

  private write(record: InspectionRecord): void {
    const { tick, disk, timings, error, late, wallMs } = record;
    if (timings) {
      this.writer.inspection({
        tick,
        disk,
        ms: timings.totalMs,
        open_ms: timings.openMs,
        write_ms: timings.writeMs,
        sync_ms: timings.syncMs,
        read_ms: timings.readMs,
        t: wallMs,
        late,
      });
    } else {
      this.writer.failure({ tick, disk, error: error!.code, t: wallMs });
    }
  }
}
