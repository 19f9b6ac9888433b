// `slowdisk replay TRACE`: scores a recorded trace offline through the same tick semantics
// as watch, with the header's parameters unless a flag says otherwise.
import path from 'node:path';
import { Command } from 'commander';
import type { Ora } from 'ora';
import type { DeviceFigures } from '../kernel/device-counters.js';
import { flagName, formatParamValue } from '../common/param-spec.js';
import { HANG_AFTER_SPEC } from '../prober/probe-params.js';
import { replaceFile } from '../common/exclusive-file.js';
import { replayBatches, type ReplayObserver } from '../replay/replay-engine.js';
import { PlotRecorder, renderPlot } from '../report/svg-plot.js';
import { stalledBehind, Timeline } from '../report/replay-timeline.js';
import { JsonLines } from '../report/json-lines.js';
import { stdoutFlushed } from '../report/stdout-flushed.js';
import { canRedraw, loadOra, spinnerColor } from '../report/terminal.js';
import { visible, writeStderrLine } from '../common/visible-text.js';
import { HEADER_SPECS, headerValueOf, type TraceHeader } from '../trace/trace-format.js';
import { openTrace, TraceError, type Trace } from '../trace/trace-reader.js';
import { EXIT_CODE_HELP } from './exit-code-help.js';
import { EXIT_UNKNOWN, exitCodeOf } from '../verdict/exit-codes.js';
import { fail } from '../report/fail.js';
import { VERBOSE_HELP } from './output-options.js';
import { addParamOptions, attributeOf, HELP_HEADINGS, numberArg, type OptionValues } from './param-options.js';
import { addPredictorOptions, predictorParamsFrom } from './predictor-options.js';
import {
  addScoreOptions,
  addStatisticalOptions,
  criticalOnFrom,
  scoreParamsFrom,
  statisticalParamsFrom,
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
    .option('--ticks <n>', 'replay exactly this many ticks (default: up to the last tick in the trace)', numberArg(1, Number.MAX_SAFE_INTEGER, true))
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

${EXIT_CODE_HELP}
  A trace that cannot be read, or breaks the format, also exits 3, naming the line.
`,
    )
    .action((source: string, values: ReplayValues, self: Command) => runReplay(source, values, self));
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

function failTrace(name: string, error: unknown): never {
  if (error instanceof TraceError) fail(`${name} ${error.message}`, EXIT_UNKNOWN);
  fail(`cannot read ${name}: ${error instanceof Error ? error.message : String(error)}`, EXIT_UNKNOWN);
}

async function runReplay(source: string, values: ReplayValues, command: Command): Promise<void> {
  const trace = await openTrace(source).catch((error: unknown) => failTrace(source === '-' ? 'stdin' : source, error));
  const given = withHeader(values, trace.header, command);
  const params = scoreParamsFrom(given);
  const write = (text: string) => process.stdout.write(text);
  // A reader that stops early (`| head`) ends the replay before its verdict: quietly, as UNKNOWN.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(EXIT_UNKNOWN);
    throw error;
  });
  // ora redraws by its line count, which a terminal of 0 columns (a pty nobody sized) makes infinite.
  const progress = !values.json && canRedraw(process.stdout) ? new ReplayProgress(trace, await loadOra()) : null;
  const timelineOut = progress ? (text: string) => progress.write(text) : write;
  const blockDevices = trace.header?.block_devices ?? {};
  const timeline = values.json ? null : new Timeline(params, (line) => timelineOut(`${line}\n`), values.verbose === true, blockDevices);
  const json = values.json ? new JsonLines(params) : null;
  const plot = values.plot ? { file: values.plot, recorder: new PlotRecorder() } : null;
  // A live round's device lines, recorded at the tick that closed it, come before that
  // tick's update; they are shown with it (with other --round-ticks, when an update falls there).
  let recorded: { tick: number; devices: readonly DeviceFigures[] } = { tick: 0, devices: [] };
  const observer: ReplayObserver = {
    devices: (tick, devices) => {
      recorded = { tick, devices };
    },
    update: (update) => {
      const shown = recorded.tick === update.tick ? recorded.devices : [];
      timeline?.update(update, shown);
      const disks = [...update.scores].map(([name, score]) => ({
        name,
        score,
        statistical: update.statistical.get(name),
        prediction: update.predictions.get(name),
        blockDevices: blockDevices[name],
        stalledDevices: shown.length > 0 ? stalledBehind(name, shown) : undefined,
      }));
      json?.round({ tick: update.tick, elapsedMs: update.timeMs, storeScore: update.storeScore, disks, devices: shown });
      plot?.recorder.update(update);
      progress?.at(update.tick);
    },
    // Called for every tick of every disk: only when a plot needs it.
    inspection: plot ? (disk, tick, ms) => plot.recorder.inspection(disk, tick, ms) : undefined,
  };

  timeline?.start(trace.name);
  const result = await replayBatches(trace.batches, {
    params,
    disks: trace.header?.disks,
    ticks: values.ticks,
    statistical: statisticalParamsFrom(given, params),
    criticalOn: criticalOnFrom(given),
    predictor: predictorParamsFrom(given, params),
    hangAfterMs: given[attributeOf(HANG_AFTER_SPEC)] as number,
  }, observer).catch((error: unknown) => {
    progress?.stop();
    return failTrace(trace.name, error);
  });
  timeline?.end(result);
  progress?.stop();
  if (plot) {
    // Replaced atomically, never through a symlink planted at its name.
    await replaceFile(path.dirname(plot.file), path.basename(plot.file), renderPlot(plot.recorder, params, trace.name), { mode: 0o644 }).catch((error: Error) =>
      fail(`cannot write the plot ${plot.file}: ${error.message}`, EXIT_UNKNOWN),
    );
  }
  await stdoutFlushed();
  process.exit(exitCodeOf(result.verdict.severity));
}

/**
 * A spinner on a terminal for a replay that takes a while; a short one ends before it shows.
 * The timeline's lines go out through it a batch at a time, since the spinner is cleared and
 * redrawn around every write.
 */
class ReplayProgress {
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
