// `slowdisk replay TRACE`: the trace's lines through the same verdict pipeline as watch, on a
// virtual clock, shown as a timeline, JSON Lines or an SVG plot, and the exit code check would give.
import path from 'node:path';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { ScoreParams } from '../score/score-params.js';
import type { StatisticalParams } from '../detectors/statistical-params.js';
import type { VerdictParams } from '../verdict/verdict-pipeline.js';
import type { TailParams } from '../detectors/tail-params.js';
import type { PredictorParams } from '../early-warning/predictor-params.js';
import { replaceFile } from '../common/exclusive-file.js';
import { replayBatches, type ReplayObserver } from '../replay/replay-engine.js';
import { PlotRecorder, renderPlot } from '../formats/svg-plot.js';
import { stalledBehind, Timeline } from '../formats/replay-timeline.js';
import { JsonLines } from '../formats/json-lines.js';
import { ReplayProgress } from '../terminal/replay-progress.js';
import { stdoutFlushed, whenReaderGone } from '../terminal/stdout-flushed.js';
import { canRedraw, loadOra } from '../terminal/terminal.js';
import { openTrace, TraceError, type Trace } from '../trace/trace-reader.js';
import { EXIT_UNKNOWN, exitCodeOf } from '../verdict/exit-codes.js';
import { fail } from '../formats/fail.js';

export interface ReplayRequest {
  params: ScoreParams;
  statistical: StatisticalParams;
  tail: TailParams;
  verdict: VerdictParams;
  predictor: PredictorParams;
  hangAfterMs: number;
  /** Replay exactly this many ticks. */
  ticks?: number;
  json: boolean;
  /** A line per block device at every update. */
  verbose: boolean;
  /** Also draw the scores into this SVG file. */
  plot?: string;
}

function failTrace(name: string, error: unknown): never {
  if (error instanceof TraceError) fail(`${name} ${error.message}`, EXIT_UNKNOWN);
  fail(`cannot read ${name}: ${error instanceof Error ? error.message : String(error)}`, EXIT_UNKNOWN);
}

/** The trace named on the command line (`-`: stdin), its header read; one line and UNKNOWN when it cannot be. */
export function openReplayTrace(source: string): Promise<Trace> {
  return openTrace(source).catch((error: unknown) => failTrace(source === '-' ? 'stdin' : source, error));
}

export async function runReplay(trace: Trace, request: ReplayRequest): Promise<void> {
  const { params } = request;
  const write = (text: string) => process.stdout.write(text);
  // A reader that stops early (`| head`) ends the replay before its verdict: quietly, as UNKNOWN.
  whenReaderGone(() => process.exit(EXIT_UNKNOWN));
  // ora redraws by its line count, which a terminal of 0 columns (a pty nobody sized) makes infinite.
  const progress = !request.json && canRedraw(process.stdout) ? new ReplayProgress(trace, await loadOra()) : null;
  const timelineOut = progress ? (text: string) => progress.write(text) : write;
  const timeline = request.json ? null : new Timeline(params, (line) => timelineOut(`${line}\n`), request.verbose, trace.blockDevices);
  const json = request.json ? new JsonLines(params) : null;
  const plot = request.plot !== undefined ? { file: request.plot, recorder: new PlotRecorder() } : null;
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
        statisticalJudged: update.statisticalJudged.get(name),
        confirmation: update.confirmations.get(name),
        tail: update.tail.get(name),
        tailJudged: update.tailJudged.get(name),
        prediction: update.predictions.get(name),
        cause: update.causes.get(name),
        held: update.held.get(name),
        warningOf: update.warningOf.get(name),
        blockDevices: trace.blockDevices.get(name),
        stalledDevices: shown.length > 0 ? stalledBehind(name, shown) : undefined,
      }));
      json?.round({ tick: update.tick, elapsedMs: update.timeMs, storeScore: update.storeScore, actedScore: update.actedScore, disks, devices: shown, crossings: update.crossings });
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
    ticks: request.ticks,
    statistical: request.statistical,
    tail: request.tail,
    verdict: request.verdict,
    predictor: request.predictor,
    hangAfterMs: request.hangAfterMs,
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

