// What watch and check print on stdout while they run, and check's last line, in the form
// the flags ask for: the live view or round lines, JSON Lines, the human or Nagios summary.
import type { ScoreParams } from '../score/score-params.js';
import { checkSummary, type CheckOutcome } from '../report/check-summary.js';
import { JsonLines } from '../report/json-lines.js';
import { LiveView } from '../report/live-view.js';
import { LineClock } from '../report/line-time.js';
import { nagiosLine } from '../report/nagios.js';
import { PhaseLatencies } from '../report/phase-latencies.js';
import { RoundLines, type Reporter } from '../report/round-lines.js';
import { canRedraw } from '../report/terminal.js';
import { visible } from '../common/visible-text.js';
import type { ProbeSession } from '../live/probe-session.js';
import type { OutputOptions } from '../report/report-options.js';

const DEFAULT_OUTPUT: OutputOptions = { json: false, format: 'human' };

export class RunOutput {
  /** The Nagios perfdata's latencies, gathered over the check. */
  private readonly latencies: PhaseLatencies | null = null;

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
    private readonly session: ProbeSession,
    private readonly params: ScoreParams,
    private readonly buffered: boolean,
    /** --warn-probability: the Nagios perfdata's warning level of each disk's predicted probability. */
    private readonly warnProbability?: number,
  ) {
    if (mode === 'check' && options.format === 'nagios') {
      const latencies = new PhaseLatencies();
      session.on('inspection', (record) => latencies.add(record));
      this.latencies = latencies;
    }
  }

  writeCheckResult(outcome: CheckOutcome): void {
    if (this.json) {
      this.json.summary(outcome);
      return;
    }
    const line = this.latencies
      ? nagiosLine(outcome, this.params, this.buffered, this.latencies, this.session.chargedTimeouts(), this.warnProbability)
      : checkSummary(outcome.verdict, outcome.storeScore, outcome.elapsedMs, outcome.disks, this.params, this.buffered, outcome.interruptedBy);
    process.stdout.write(`${visible(line)}\n`);
  }
}
