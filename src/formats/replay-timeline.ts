// replay's default output: one line per round, a line at each moment a post-mortem looks
// for (the slow and eviction thresholds first reached, each recovery to 1), and the verdict.
// The block devices a trace recorded show as watch shows them: on the round's line, and with
// --verbose a line each.
import type { DeviceFigures } from '../kernel/device-counters.js';
import { formatDuration } from '../common/durations.js';
import type { ScoreParams } from '../score/score-params.js';
import { formatBlockDevices, formatCause, formatDeviceLine, formatElapsed, formatScore, formatTail, shownPrediction, shownStatistical } from './format.js';
import { visible } from '../common/visible-text.js';
import { SEVERITY_LABELS, reportedScore } from '../score/store-score.js';
import type { ReplayResult, ScoreUpdate } from '../replay/replay-engine.js';


export class Timeline {
  private slowReached = false;
  private evictReached = false;
  /** The highest reported score since the store last stood at 1. */
  private peak = 1;

  constructor(
    private readonly params: ScoreParams,
    private readonly writeLine: (line: string) => void,
    private readonly verbose = false,
    /** The trace header's block devices of each disk. */
    private readonly blockDevices: ReadonlyMap<string, string[]> = new Map(),
  ) {}

  private write(line: string): void {
    this.writeLine(visible(line));
  }

  /** Names the trace and the parameters it is scored with, since flags may differ from the live run's. */
  start(traceName: string): void {
    this.write(`${traceName}: ${paramsSummary(this.params)}`);
  }

  /** `devices`: the figures recorded at the update's tick. */
  update(update: ScoreUpdate, devices: readonly DeviceFigures[] = []): void {
    const reported = reportedScore(update.storeScore);
    const disks = [...update.scores].map(([name, score]) => {
      const shown = { blockDevices: this.blockDevices.get(name), stalledDevices: stalledBehind(name, devices) };
      const statistical = shownStatistical({ statistical: update.statistical.get(name), statisticalJudged: update.statisticalJudged.get(name), confirmation: update.confirmations.get(name) });
      const prediction = shownPrediction({ prediction: update.predictions.get(name), inspected: true, state: 'up', warningOf: update.warningOf.get(name) });
      const cause = formatCause({ cause: update.causes.get(name), held: update.held.get(name) });
      const held = update.held.has(name) ? ` busy (${update.held.get(name)})` : '';
      return `${name} ${formatScore(score)}${held} stat ${statistical}${formatTail(update.tail.get(name))}${cause}${prediction}${formatBlockDevices(shown)}`;
    });
    const at = `${formatElapsed(update.timeMs)} tick ${update.tick}`;
    this.write([`${at} store ${reported} (${formatScore(update.storeScore)})`, ...disks].join(' | '));
    if (this.verbose) for (const device of devices) this.write(`  ${formatDeviceLine(device)}`);
    if (update.severity !== 'ok' && !this.slowReached) {
      this.slowReached = true;
      this.write(`${at}: slow threshold ${this.params.slowThreshold} first reached`);
    }
    if (update.severity === 'evict' && !this.evictReached) {
      this.evictReached = true;
      this.write(`${at}: eviction threshold ${this.params.evictThreshold} first reached`);
    }
    if (reported > 1) {
      this.peak = Math.max(this.peak, reported);
    } else if (this.peak > 1) {
      this.write(`${at}: recovered to 1 (peak ${this.peak})`);
      this.peak = 1;
    }
  }

  end(result: ReplayResult): void {
    const { verdict } = result;
    this.write(
      `${SEVERITY_LABELS[verdict.severity]}: max reported store score ${verdict.maxReported} over ${result.ticks} ticks ` +
        `(${formatElapsed(result.ticks * this.params.intervalMs)}); slow at ${this.params.slowThreshold}, evict at ${this.params.evictThreshold}`,
    );
  }
}

/** The devices behind a disk that stalled. */
export function stalledBehind(disk: string, devices: readonly DeviceFigures[]): string[] {
  return devices.filter((device) => device.stalled && device.disks.includes(disk)).map((device) => device.name);
}

export function paramsSummary(p: ScoreParams): string {
  return (
    `interval ${formatDuration(p.intervalMs)}, timeout ${formatDuration(p.timeoutMs)}, ${p.roundTicks}-tick rounds, ` +
    `ratio ${p.ratioThreshold}, min TTR ${formatDuration(p.minTtrMs)}, slow at ${p.slowThreshold}, evict at ${p.evictThreshold}`
  );
}
