// replay's progress on a terminal: a spinner naming the tick reached and the share of the
// trace read, with the timeline's lines written around it.
import type { Ora } from 'ora';
import { visible } from '../common/visible-text.js';
import type { Trace } from '../trace/trace-reader.js';
import { spinnerColor, type loadOra } from './terminal.js';

/**
 * A spinner on a terminal for a replay that takes a while; a short one ends before it shows.
 * The timeline's lines go out through it a batch at a time, since the spinner is cleared and
 * redrawn around every write.
 */
export class ReplayProgress {
  private static readonly REFRESH_MS = 250;
  private spinner: Ora | null = null;
  private tick = 0;
  private pending = '';
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly trace: Trace,
    private readonly ora: Awaited<ReturnType<typeof loadOra>>,
  ) {
    // The replay yields to timers between chunks of the file, so this runs while it works.
    this.timer = setInterval(() => this.refresh(), ReplayProgress.REFRESH_MS);
  }

  at(tick: number): void {
    this.tick = tick;
  }

  write(text: string): void {
    this.pending += text;
  }

  stop(): void {
    clearInterval(this.timer);
    this.spinner?.stop();
    this.flush();
  }

  private refresh(): void {
    this.flush();
    if (this.spinner) this.spinner.text = this.text();
    else this.spinner = this.ora({ text: this.text(), stream: process.stdout, discardStdin: false, color: spinnerColor() }).start();
  }

  private flush(): void {
    if (this.pending === '') return;
    process.stdout.write(this.pending);
    this.pending = '';
  }

  private text(): string {
    const share = this.trace.readShare();
    return `replaying ${visible(this.trace.name)}: tick ${this.tick}${share === null ? '' : ` (${Math.floor(share * 100)}% read)`}`;
  }
}
