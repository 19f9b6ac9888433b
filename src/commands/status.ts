// `slowdisk status`: the running service's verdict at once, in check's formats and with
// check's exit codes. It touches no probed disk: it only asks the service, over its socket.
import { writeStderrLine, visible } from '../common/visible-text.js';
import { checkSummary } from '../formats/check-summary.js';
import { nagiosLine } from '../formats/nagios.js';
import { reasonLine } from '../formats/reason-line.js';
import type { CheckFormat } from '../formats/report-options.js';
import { askStatus, type StatusAnswer } from '../status/status-client.js';
import { outcomeOf } from '../status/status-snapshot.js';
import { EXIT_CRITICAL, EXIT_UNKNOWN } from '../verdict/exit-codes.js';

export interface StatusOptions {
  store?: string;
  json: boolean;
  format: CheckFormat;
}

/**
 * The service answers root alone, in a directory only root may enter: anyone else is told so,
 * rather than that the directory is not theirs.
 */
const NEEDS_ROOT: StatusAnswer = { kind: 'unknown', reason: 'status needs root: the service answers root only (sudo slowdisk status)' };

/** Prints the answer; the exit code is set, and the process ends once stdout is flushed. */
export async function runStatus(options: StatusOptions): Promise<void> {
  const answer: StatusAnswer = process.geteuid?.() === 0 ? await askStatus(options.store) : NEEDS_ROOT;
  if (answer.kind !== 'answered') {
    const code = answer.kind === 'not-answering' ? EXIT_CRITICAL : EXIT_UNKNOWN;
    if (answer.kind === 'unknown') writeStderrLine(answer.reason);
    process.stdout.write(`${visible(reasonLine(options, code, answer.reason))}\n`);
    process.exitCode = code;
    return;
  }
  const { snapshot } = answer;
  const outcome = outcomeOf(snapshot);
  if (options.json) {
    // Loaded for --json only: the JSON lines' module brings the trace format's.
    const { JsonLines } = await import('../formats/json-lines.js');
    new JsonLines(snapshot.params, undefined, { now: Date.now, currentTick: () => 0, buffered: snapshot.buffered }).summary(outcome);
  } else {
    const line = options.format === 'nagios' ? nagiosLine(outcome, snapshot.params, snapshot.buffered, snapshot.warnProbability) : checkSummary(outcome, snapshot.params, snapshot.buffered);
    // After the status line, where a monitoring plugin's long text goes.
    const lines = [line, ...(outcome.problems ?? []).map((problem) => `the service: ${problem}`)];
    process.stdout.write(lines.map((text) => `${visible(text)}\n`).join(''));
  }
  process.exitCode = outcome.exitCode;
}
