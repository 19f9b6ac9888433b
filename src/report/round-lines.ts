// watch off a TTY: one plain line per round and one per event; with --verbose, a line per
// block device after each round's.
import type { RoundReport, SessionEvent } from '../live/probe-session.js';
import { visible } from '../common/visible-text.js';
import { formatCrossing, formatDeviceLine, formatDiskLine, formatElapsed, formatEvent, formatScore } from './format.js';

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
  ) {}

  round(report: RoundReport): void {
    const disks = report.disks.map((disk) => formatDiskLine(disk, this.buffered));
    this.write(
      visible(`${formatElapsed(report.elapsedMs)} tick ${report.tick} store ${report.reportedScore} (${formatScore(report.storeScore)}) | ${disks.join(' | ')}`),
    );
    if (this.verbose) for (const device of report.devices) this.write(visible(`  ${formatDeviceLine(device)}`));
    for (const crossing of report.crossings) this.write(visible(`event: ${formatCrossing(crossing)}`));
  }

  event(event: SessionEvent): void {
    this.write(visible(`event: ${formatEvent(event)}`));
  }

  stop(): void {}
}
