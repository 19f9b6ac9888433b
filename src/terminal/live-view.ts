// watch on a TTY: a live view that redraws a few times a second, so that it moves with each
// batch of records (about a second apart) between rounds, and fits the terminal as it is
// resized. With --verbose, each disk's block devices over the last round, on lines under it.
// The frame itself is live-view-text.ts's.
import type { Ora } from 'ora';
import type { ScoreParams } from '../score/score-params.js';
import type { Severity } from '../score/store-score.js';
import type { DiskStatus, RoundReport, SessionEvent } from '../live/session-events.js';
import { formatCrossing, formatEvent } from '../formats/format.js';
import { eventLineText, liveViewText, viewVerdict } from './live-view-text.js';
import type { Reporter } from '../formats/round-lines.js';
import { loadOra, spinnerColor } from './terminal.js';
import type { LineClock } from '../formats/line-time.js';

const REDRAW_MS = 250;
/** What ora puts before the first line: the spinner and a space. */
const SPINNER_COLUMNS = 2;

export interface LiveViewSource {
  /** Each disk as the records that have come say it is. */
  statuses: () => DiskStatus[];
  /** The run's verdict so far: what its exit code would be now. */
  runSeverity: () => Severity;
}

export class LiveView implements Reporter {
  private readonly timer: NodeJS.Timeout;
  private last: RoundReport | null = null;

  /** On stdout, which the caller found to be a terminal, with the events written between frames. */
  static async start(source: LiveViewSource, params: ScoreParams, buffered: boolean, verbose: boolean, clock: LineClock): Promise<LiveView> {
    const ora = await loadOra();
    const spinner = ora({ text: 'starting the probes', stream: process.stdout, discardStdin: false, color: spinnerColor() }).start();
    return new LiveView(spinner, source, params, buffered, verbose, clock);
  }

  private constructor(
    private readonly spinner: Ora,
    private readonly source: LiveViewSource,
    private readonly params: ScoreParams,
    private readonly buffered: boolean,
    private readonly verbose: boolean,
    private readonly clock: LineClock,
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

  stop(): void {
    clearInterval(this.timer);
    if (this.last) this.spinner.stopAndPersist({ symbol: '', text: this.text() });
    else this.spinner.stop();
  }

  /** An event, above the view, which stays drawn below it; the round lines and --json have it whole. */
  private line(text: string): void {
    this.spinner.clear();
    process.stdout.write(`${eventLineText(this.clock.timeOfDay(), text, this.columns())}\n`);
    this.spinner.render();
  }

  private redraw(): void {
    if (this.last) this.spinner.text = this.text();
  }

  private text(): string {
    const report = this.last!;
    const scores = new Map(report.disks.map((disk) => [disk.name, disk.score]));
    const disks = this.source.statuses().map((disk) => ({ ...disk, score: scores.get(disk.name) ?? disk.score }));
    return liveViewText({
      verdict: viewVerdict(this.source.runSeverity(), report.storeScore, disks, this.params),
      storeScore: report.storeScore,
      tick: report.tick,
      elapsedMs: report.elapsedMs,
      disks,
      ...(this.verbose ? { devices: report.devices } : {}),
      params: this.params,
      buffered: this.buffered,
      columns: this.columns(),
      colour: spinnerColor() !== false,
    });
  }

  /** The width every line keeps to: the spinner takes the first line's first columns. */
  private columns(): number {
    return Math.max(20, (process.stdout.columns || 80) - SPINNER_COLUMNS);
  }
}
