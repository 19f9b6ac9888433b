// `slowdisk replay TRACE`'s flags, and the parameters a replay runs with: the trace header's,
// unless a flag given says otherwise (src/commands/replay.ts runs it).
import { Command } from 'commander';
import { flagName, formatParamValue } from '../common/param-spec.js';
import { writeStderrLine } from '../common/visible-text.js';
import { HANG_AFTER_SPEC } from '../probe/probe-params.js';
import { HEADER_SPECS, headerValueOf, type TraceHeader } from '../trace/trace-format.js';
import { exitCodeHelp } from './exit-code-help.js';
import { VERBOSE_HELP } from './output-options.js';
import { addParamOptions, attributeOf, HELP_HEADINGS, numberArg, type OptionValues } from './param-options.js';
import { addPredictorOptions, predictorParamsFrom } from './predictor-options.js';
import {
  addScoreOptions,
  addStatisticalOptions,
  verdictParamsFrom,
  rawPath,
  scoreParamsFrom,
  statisticalParamsFrom,
  tailParamsFrom,
} from './options.js';

interface ReplayValues extends OptionValues {
  ticks?: number;
  json?: boolean;
  verbose?: boolean;
  plot?: string;
}


export function replayCommand(): Command {
  const summary = 'score a recorded inspection trace offline, on a virtual clock, with the parameters it was recorded with or any others';
  const command = new Command('replay')
    .summary(summary)
    .description(`${summary}; a flag given here overrides the value recorded in the trace's header, and says so on stderr`)
    .argument('<trace>', 'a trace written by watch --record or check --record (JSON Lines), or - for stdin');
  addScoreOptions(command);
  addStatisticalOptions(command);
  addPredictorOptions(command);
  addParamOptions(command, [HANG_AFTER_SPEC]);
  return command
    .optionsGroup(HELP_HEADINGS.run)
    .option('--ticks <n>', 'replay exactly this many ticks (1 or more) (default: up to the last tick in the trace)', numberArg(1, Number.MAX_SAFE_INTEGER, true))
    .optionsGroup(HELP_HEADINGS.outputs)
    .option('--json', "print JSON Lines instead: each disk's score and the store score at every update")
    .option('--verbose', VERBOSE_HELP.replace('every round', 'at every update, as recorded'))
    .option('--plot <file.svg>', 'also draw the scores and the inspection latencies into an SVG chart')
    .optionsGroup('Options:')
    .addHelpText(
      'after',
      `
Examples:
  slowdisk replay night.jsonl                      # the timeline the live run saw
  slowdisk replay night.jsonl --min-ttr 10m --plot night.svg
  ./inject-fault.sh | slowdisk replay - --json     # assert on the scores, without waiting

${exitCodeHelp('replay')}
`,
    )
    .action((source: string, values: ReplayValues, self: Command) => replay(source, values, self));
}


/**
 * The option values with the header's parameters in place of the defaults: replay has a flag
 * for every parameter a header records. A flag given on the command line wins, and a flag
 * that changes a recorded value says so on stderr.
 */
function withHeader(values: ReplayValues, header: TraceHeader | null, command: Command): ReplayValues {
  if (header === null) return values;
  const merged: ReplayValues = { ...values };
  for (const spec of HEADER_SPECS) {
    const recorded = headerValueOf(header, spec);
    if (recorded === undefined) continue;
    const attribute = attributeOf(spec);
    if (command.getOptionValueSource(attribute) !== 'cli') merged[attribute] = recorded;
    else if (values[attribute] !== recorded) {
      writeStderrLine(`replay: ${flagName(spec)} ${formatParamValue(spec, values[attribute])} overrides the trace's ${formatParamValue(spec, recorded)}`);
    }
  }
  return merged;
}

async function replay(source: string, values: ReplayValues, command: Command): Promise<void> {
  const { openReplayTrace, runReplay } = await import('../commands/replay.js');
  const trace = await openReplayTrace(source === '-' ? source : rawPath('the trace', source));
  // The header's parameters can be refused, and --ticks ends a replay before the file does.
  try {
    const given = withHeader(values, trace.header, command);
    const params = scoreParamsFrom(given);
    await runReplay(trace, {
      params,
      statistical: statisticalParamsFrom(given, params),
      tail: tailParamsFrom(given, params),
      verdict: verdictParamsFrom(given),
      predictor: predictorParamsFrom(given, params),
      hangAfterMs: given[attributeOf(HANG_AFTER_SPEC)] as number,
      ...(values.ticks === undefined ? {} : { ticks: values.ticks }),
      json: values.json === true,
      verbose: values.verbose === true,
      ...(values.plot === undefined ? {} : { plot: rawPath('--plot', values.plot) }),
    });
  } finally {
    trace.close();
  }
}
