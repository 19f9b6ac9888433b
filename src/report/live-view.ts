// watch on a TTY: a live view that redraws a few times a second, so a hung disk's
// waiting time and the other disks' latencies keep moving between rounds. With --verbose,
// each disk's block devices over the last round, on lines under it.
import type { Ora } from 'ora';
import type { ScoreParams } from '../score/score-params.js';
import type { DiskStatus, RoundReport, SessionEvent } from '../live/probe-session.js';
import { severityOf } from '../score/store-score.js';
import { formatCrossing, formatDeviceLine, formatDiskLine, formatElapsed, formatEvent, formatScore } from './format.js';
import type { Reporter } from './round-lines.js';
import { loadOra, spinnerColor } from './terminal.js';
import { visible } from '../common/visible-text.js';

const REDRAW_MS = 250;

export class LiveView implements Reporter {
  private readonly timer: NodeJS.Timeout;
  private last: RoundReport | null = null;

  /** On stdout, which the caller found to be a terminal, with the events written between frames. */
  static async start(statuses: () => DiskStatus[], params: ScoreParams, buffered: boolean, verbose: boolean): Promise<LiveView> {
    const ora = await loadOra();
    const spinner = ora({ text: 'starting the probes', stream: process.stdout, discardStdin: false, color: spinnerColor() }).start();
    return new LiveView(spinner, statuses, params, buffered, verbose);
  }

  private constructor(
    private readonly spinner: Ora,
    private readonly statuses: () => DiskStatus[],
    private readonly params: ScoreParams,
    private readonly buffered: boolean,
    private readonly verbose: boolean,
  ) {
    this.timer = setInterval(() => this.redraw(), REDRAW_MS);
  }

  round(report: RoundReport): void {
    this.last = report;
    for (const crossing of report.crossings) this.line(formatCrossing(crossing));
    this.redraw();
  }

  event(event: SessionEvent): void {
    this.line(formatEvent(event));
  }

  /** An event, above the view, which stays drawn below it. */
  private line(text: string): void {
    this.spinner.clear();
    process.stdout.write(`${visible(text)}\n`);
    this.spinner.render();
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.last) this.spinner.stopAndPersist({ symbol: '', text: this.text() });
    else this.spinner.stop();
  }

  private redraw(): void {
    if (this.last) this.spinner.text = this.text();
  }

  private text(): string {
    const report = this.last!;
    const severity = severityOf(report.storeScore, this.params);
    const scores = new Map(report.disks.map((disk) => [disk.name, disk.score]));
    const lines = this.statuses().flatMap((disk) => [
      `  ${formatDiskLine({ ...disk, score: scores.get(disk.name) ?? disk.score }, this.buffered)}`,
      // A device behind two disks is shown under the first.
      ...(this.verbose ? report.devices.filter((device) => device.disks[0] === disk.name).map((device) => `    ${formatDeviceLine(device)}`) : []),
    ]);
    return [
      `store score ${report.reportedScore} (${formatScore(report.storeScore)}) ${severity.toUpperCase()}  tick ${report.tick}  ${formatElapsed(report.elapsedMs)}  slow ${this.params.slowThreshold} evict ${this.params.evictThreshold}`,
      ...lines,
    ]
      .map(visible)
      .join('\n');
  }
}
