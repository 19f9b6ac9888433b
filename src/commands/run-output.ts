// What watch and check print on stdout while they run, and check's last line, in the form
// the flags ask for: the live view or round lines, JSON Lines, the human or Nagios summary.
import type { ScoreParams } from '../score/score-params.js';
import { checkSummary, type CheckOutcome } from '../formats/check-summary.js';
import { JsonLines } from '../formats/json-lines.js';
import { LiveView } from '../terminal/live-view.js';
import { LineClock } from '../formats/line-time.js';
import { nagiosLine } from '../formats/nagios.js';
import { DiskSummaries } from '../formats/disk-summary.js';
import { RoundLines, type Reporter } from '../formats/round-lines.js';
import { canRedraw } from '../terminal/terminal.js';
import { visible } from '../common/visible-text.js';
import type { ProbeSession } from '../live/probe-session.js';
import type { OutputOptions } from '../formats/report-options.js';

const DEFAULT_OUTPUT: OutputOptions = { json: false, format: 'human' };

/** The latest inspections of a disk a check's summary covers: all of them in a check of up to 2.7 h at 100 ms. */
const CHECK_SUMMARY_INSPECTIONS = 100_000;

export class RunOutput {
  /** Each disk's figures over the check, for its summary in every format. */
  private readonly summaries: DiskSummaries | null = null;

  /** The live view is started here, as it loads the spinner only when it is shown. */
  static async open(
    mode: 'watch' | 'check',
    options: OutputOptions = DEFAULT_OUTPUT,
    session: ProbeSession,
    params: ScoreParams,
    buffered: boolean,
    warnProbability?: number,
  ): Promise<RunOutput> {
    let reporter: Reporter | null = null;
    let json: JsonLines | null = null;
    if (options.json) {
      json = new JsonLines(params, undefined, { now: Date.now, currentTick: () => session.currentTick, buffered });
      reporter = json;
    } else if (mode === 'watch') {
      const clock = new LineClock(options.utc === true);
      reporter = canRedraw(process.stdout)
        ? await LiveView.start({ statuses: () => session.statuses(), runSeverity: () => session.verdict.severity }, params, buffered, options.verbose === true, clock)
        : new RoundLines(buffered, options.verbose, undefined, clock);
    }
    return new RunOutput(mode, options, reporter, json, session, params, buffered, warnProbability);
  }

  private constructor(
    mode: 'watch' | 'check',
    options: OutputOptions,
    /** Shows the rounds and events as they come; check in its human and Nagios forms shows none. */
    readonly reporter: Reporter | null,
    private readonly json: JsonLines | null,
    session: ProbeSession,
    private readonly params: ScoreParams,
    private readonly buffered: boolean,
    /** --warn-probability: the Nagios perfdata's warning level of each disk's predicted probability. */
    private readonly warnProbability?: number,
  ) {
    this.nagios = options.format === 'nagios';
    if (mode === 'check') this.summaries = new DiskSummaries(session, CHECK_SUMMARY_INSPECTIONS);
  }

  private readonly nagios: boolean;

  writeCheckResult(result: Omit<CheckOutcome, 'summaries'>): void {
    const outcome: CheckOutcome = { ...result, summaries: this.summaries?.of(result.disks) ?? new Map() };
    if (this.json) {
      this.json.summary(outcome);
      return;
    }
    const line = this.nagios ? nagiosLine(outcome, this.params, this.buffered, this.warnProbability) : checkSummary(outcome, this.params, this.buffered);
    process.stdout.write(`${visible(line)}\n`);
  }
}
