// watch off a TTY: one plain line per round and one per event, each starting with the time
// (line-time.ts); with --verbose, a line per block device after each round's.
import type { RoundReport, SessionEvent } from '../live/session-events.js';
import { visible } from '../common/visible-text.js';
import { formatCrossing, formatDeviceLine, formatDiskLine, formatElapsed, formatEvent, formatScore } from './format.js';
import { LineClock } from './line-time.js';

export interface Reporter {
  round(report: RoundReport): void;
  event(event: SessionEvent): void;
  stop(): void;
}

export class RoundLines implements Reporter {
  constructor(
    private readonly buffered: boolean,
    private readonly verbose = false,
    private readonly write: (line: string) => void = (line) => process.stdout.write(`${line}\n`),
    private readonly clock = new LineClock(false),
  ) {}

  round(report: RoundReport): void {
    const disks = report.disks.map((disk) => formatDiskLine(disk, this.buffered));
    const time = this.clock.stamp();
    this.write(`${time} ${visible(`${formatElapsed(report.elapsedMs)} tick ${report.tick} store ${report.reportedScore} (${formatScore(report.storeScore)}) | ${disks.join(' | ')}`)}`);
    if (this.verbose) for (const device of report.devices) this.write(`${time} ${visible(`  ${formatDeviceLine(device)}`)}`);
    for (const crossing of report.crossings) this.write(`${time} ${visible(`event: ${formatCrossing(crossing)}`)}`);
  }

  event(event: SessionEvent): void {
    this.write(`${this.clock.stamp()} ${visible(`event: ${formatEvent(event)}`)}`);
  }

  stop(): void {}
}
