// `replay --plot FILE.svg`: a chart for a post-mortem. On top, each disk's score per round
// with the slow and eviction thresholds; under it, each disk's inspection latency per round
// (median and max, log scale) with the timeout. Hand-written SVG: it opens in any browser.
import { formatDuration } from '../common/durations.js';
import type { ScoreParams } from '../score/score-params.js';
import type { ReplayObserver, ScoreUpdate } from '../replay/replay-engine.js';
import { paramsSummary } from './replay-timeline.js';

/** Past this many rounds, rounds are merged into buckets: more points than pixels show nothing more. */
export const MAX_PLOT_POINTS = 1200;

interface DiskSeries {
  score: number[];
  /** NaN for a round in which no inspection of the disk returned. */
  maxMs: number[];
  medianMs: number[];
}

/** Collects the per-round series while the trace replays. */
export class PlotRecorder implements ReplayObserver {
  /** The time of each round's update, ms on the virtual clock. */
  readonly times: number[] = [];
  readonly disks = new Map<string, DiskSeries>();
  private readonly roundLatencies = new Map<string, number[]>();

  update(update: ScoreUpdate): void {
    this.times.push(update.timeMs);
    for (const [disk, score] of update.scores) {
      let series = this.disks.get(disk);
      if (!series) {
        series = { score: [], maxMs: [], medianMs: [] };
        this.disks.set(disk, series);
      }
      const latencies = this.roundLatencies.get(disk) ?? [];
      series.score.push(score);
      series.maxMs.push(latencies.length > 0 ? Math.max(...latencies) : NaN);
      series.medianMs.push(median(latencies));
      latencies.length = 0;
    }
  }

  inspection(disk: string, _tick: number, ms: number | null): void {
    if (ms === null) return;
    let latencies = this.roundLatencies.get(disk);
    if (!latencies) {
      latencies = [];
      this.roundLatencies.set(disk, latencies);
    }
    latencies.push(ms);
  }
}

function median(values: number[]): number {
  const present = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (present.length === 0) return NaN;
  const mid = present.length >> 1;
  return present.length % 2 === 1 ? present[mid] : (present[mid - 1] + present[mid]) / 2;
}

function maxOf(values: number[]): number {
  const present = values.filter((value) => !Number.isNaN(value));
  return present.length > 0 ? Math.max(...present) : NaN;
}

/**
 * Merges consecutive rounds into at most MAX_PLOT_POINTS buckets, each at the time of its last
 * round: the worst score and the slowest inspection survive, so no peak is lost.
 */
function downsample(plot: PlotRecorder): { times: number[]; disks: Map<string, DiskSeries>; roundsPerPoint: number } {
  const roundsPerPoint = Math.max(1, Math.ceil(plot.times.length / MAX_PLOT_POINTS));
  if (roundsPerPoint === 1) return { times: plot.times, disks: plot.disks, roundsPerPoint };
  const buckets = (values: number[], merge: (bucket: number[]) => number) => {
    const merged: number[] = [];
    for (let i = 0; i < values.length; i += roundsPerPoint) merged.push(merge(values.slice(i, i + roundsPerPoint)));
    return merged;
  };
  const disks = new Map<string, DiskSeries>();
  for (const [disk, series] of plot.disks) {
    disks.set(disk, { score: buckets(series.score, maxOf), maxMs: buckets(series.maxMs, maxOf), medianMs: buckets(series.medianMs, median) });
  }
  return { times: buckets(plot.times, (bucket) => bucket[bucket.length - 1]), disks, roundsPerPoint };
}

const WIDTH = 1000;
const LEFT = 80;
const PLOT_WIDTH = 700;
const SCORE_TOP = 70;
const SCORE_HEIGHT = 260;
const LATENCY_TOP = SCORE_TOP + SCORE_HEIGHT + 50;
const LATENCY_HEIGHT = 220;
const HEIGHT = LATENCY_TOP + LATENCY_HEIGHT + 60;
const LEGEND_LEFT = LEFT + PLOT_WIDTH + 30;
const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const SLOW_COLOR = '#e6a100';
const EVICT_COLOR = '#b00020';

const fixed = (n: number) => n.toFixed(2);

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A step of 1, 2 or 5 times a power of ten that cuts `range` into about `count` parts. */
function niceStep(range: number, count: number): number {
  const rough = range / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= rough)!;
  return step * power;
}

function decadeLabel(exponent: number): string {
  return exponent < 3 ? `${10 ** exponent} ms` : `${10 ** (exponent - 3)} s`;
}

/**
 * A latency series: a path through the rounds that have a value, broken where one has none,
 * and a dot for a value alone between gaps (a hang's one slow inspection), which a path
 * would not show.
 */
function latencySeries(series: string, disk: string, xs: number[], ys: number[], color: string, style: string): string {
  const present = (i: number) => i >= 0 && i < ys.length && !Number.isNaN(ys[i]);
  const parts: string[] = [];
  const dots: string[] = [];
  for (let i = 0; i < xs.length; i += 1) {
    if (!present(i)) continue;
    if (present(i - 1)) parts.push(`L${fixed(xs[i])},${fixed(ys[i])}`);
    else if (present(i + 1)) parts.push(`M${fixed(xs[i])},${fixed(ys[i])}`);
    else dots.push(`<circle data-series="${series}" data-disk="${disk}" cx="${fixed(xs[i])}" cy="${fixed(ys[i])}" r="2.5" fill="${color}" stroke="none"/>`);
  }
  return [`<path data-series="${series}" data-disk="${disk}" d="${parts.join(' ')}" fill="none" stroke="${color}" ${style}/>`, ...dots].join('\n');
}

/** The SVG's elements in order, with the two shapes drawn everywhere. */
class SvgCanvas {
  readonly out: string[] = [];

  text(x: number, y: number, content: string, attributes = ''): void {
    this.out.push(`<text x="${fixed(x)}" y="${fixed(y)}"${attributes}>${escapeXml(content)}</text>`);
  }

  hLine(y: number, attributes: string): void {
    this.out.push(`<line x1="${LEFT}" y1="${fixed(y)}" x2="${LEFT + PLOT_WIDTH}" y2="${fixed(y)}" ${attributes}/>`);
  }
}

/** Where a value lands: the score on a linear panel, a latency on a log panel of whole decades. */
interface PlotScales {
  endMinutes: number;
  scoreY: (score: number) => number;
  latencyY: (ms: number) => number;
  lowExp: number;
  highExp: number;
}

function scalesOf(times: readonly number[], disks: ReadonlyMap<string, { maxMs: number[]; medianMs: number[] }>, params: ScoreParams): PlotScales {
  const endMinutes = times.length > 0 ? times[times.length - 1] / 60_000 : 1;
  const latencies = [...disks.values()].flatMap((series) => [...series.maxMs, ...series.medianMs]).filter((ms) => ms > 0);
  // A decade of room on each side, so that no series runs along the frame.
  const lowExp = Math.max(-3, Math.ceil(Math.log10(Math.min(params.timeoutMs, ...latencies))) - 1);
  const highExp = Math.floor(Math.log10(Math.max(params.timeoutMs, ...latencies))) + 1;
  return {
    endMinutes,
    scoreY: (score) => SCORE_TOP + ((100 - score) / 100) * SCORE_HEIGHT,
    latencyY: (ms) => LATENCY_TOP + ((highExp - Math.log10(Math.max(ms, 10 ** lowExp))) / (highExp - lowExp)) * LATENCY_HEIGHT,
    lowExp,
    highExp,
  };
}

export function renderPlot(plot: PlotRecorder, params: ScoreParams, traceName: string): string {
  const { times, disks, roundsPerPoint } = downsample(plot);
  const scales = scalesOf(times, disks, params);
  const canvas = new SvgCanvas();
  canvas.out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
  );
  canvas.text(LEFT, 24, `slowdisk replay: ${traceName}`, ' font-size="16" font-weight="bold"');
  const sampling = roundsPerPoint === 1 ? 'one point per round' : `one point per ${roundsPerPoint} rounds (worst score, slowest inspection)`;
  canvas.text(LEFT, 44, `${paramsSummary(params)}; ${sampling}`, ' fill="#555"');
  drawAxes(canvas, scales);
  drawThresholds(canvas, scales, params);
  const xs = times.map((ms) => LEFT + (ms / 60_000 / scales.endMinutes) * PLOT_WIDTH);
  let diskIndex = 0;
  for (const [disk, series] of disks) {
    const color = COLORS[diskIndex % COLORS.length];
    const name = escapeXml(disk);
    const points = series.score.map((score, i) => `${fixed(xs[i])},${fixed(scales.scoreY(score))}`).join(' ');
    canvas.out.push(`<polyline data-series="score" data-disk="${name}" points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
    canvas.out.push(latencySeries('latency-max', name, xs, series.maxMs.map(scales.latencyY), color, `stroke-opacity="0.4" stroke-dasharray="3 2"`));
    canvas.out.push(latencySeries('latency-median', name, xs, series.medianMs.map(scales.latencyY), color, `stroke-width="1.5"`));
    diskIndex += 1;
  }
  drawLegend(canvas, [...disks.keys()], params);
  if (times.length === 0) canvas.text(LEFT + PLOT_WIDTH / 2, SCORE_TOP + SCORE_HEIGHT / 2, 'no round closed: no score to plot', ' text-anchor="middle"');
  canvas.out.push('</svg>');
  return `${canvas.out.join('\n')}\n`;
}

/** The two panels, their grids and their axes' labels. */
function drawAxes(canvas: SvgCanvas, { endMinutes, scoreY, latencyY, lowExp, highExp }: PlotScales): void {
  for (const [top, height] of [[SCORE_TOP, SCORE_HEIGHT], [LATENCY_TOP, LATENCY_HEIGHT]]) {
    canvas.out.push(`<rect x="${LEFT}" y="${top}" width="${PLOT_WIDTH}" height="${height}" fill="none" stroke="#888"/>`);
  }
  for (let score = 0; score <= 100; score += 20) {
    canvas.hLine(scoreY(score), 'stroke="#eee"');
    canvas.text(LEFT - 8, scoreY(score) + 4, String(score), ' text-anchor="end"');
  }
  for (let exponent = lowExp; exponent <= highExp; exponent += 1) {
    canvas.hLine(latencyY(10 ** exponent), 'stroke="#eee"');
    canvas.text(LEFT - 8, latencyY(10 ** exponent) + 4, decadeLabel(exponent), ' text-anchor="end"');
  }
  const step = niceStep(endMinutes, 8);
  const decimals = Math.max(0, -Math.floor(Math.log10(step)));
  for (let i = 0; i * step <= endMinutes * (1 + 1e-9); i += 1) {
    const minutes = i * step;
    const x = LEFT + (minutes / endMinutes) * PLOT_WIDTH;
    for (const [top, height] of [[SCORE_TOP, SCORE_HEIGHT], [LATENCY_TOP, LATENCY_HEIGHT]]) {
      canvas.out.push(`<line x1="${fixed(x)}" y1="${top}" x2="${fixed(x)}" y2="${top + height}" stroke="#eee"/>`);
    }
    canvas.text(x, LATENCY_TOP + LATENCY_HEIGHT + 18, minutes.toFixed(decimals), ' text-anchor="middle"');
  }
  canvas.text(LEFT + PLOT_WIDTH / 2, HEIGHT - 16, 'time (minutes)', ' text-anchor="middle"');
  const yLabel = (top: number, height: number, label: string) =>
    canvas.text(22, top + height / 2, label, ` text-anchor="middle" transform="rotate(-90 22 ${fixed(top + height / 2)})"`);
  yLabel(SCORE_TOP, SCORE_HEIGHT, 'slow score');
  yLabel(LATENCY_TOP, LATENCY_HEIGHT, 'inspection latency (log scale)');
}

function drawThresholds(canvas: SvgCanvas, { scoreY, latencyY }: PlotScales, params: ScoreParams): void {
  canvas.hLine(scoreY(params.slowThreshold), `data-threshold="slow" stroke="${SLOW_COLOR}" stroke-dasharray="6 4"`);
  canvas.hLine(scoreY(params.evictThreshold), `data-threshold="evict" stroke="${EVICT_COLOR}" stroke-dasharray="6 4"`);
  canvas.hLine(latencyY(params.timeoutMs), `data-threshold="timeout" stroke="${EVICT_COLOR}" stroke-dasharray="6 4"`);
  canvas.text(LEFT + PLOT_WIDTH - 4, latencyY(params.timeoutMs) - 4, `timeout ${formatDuration(params.timeoutMs)}`, ` text-anchor="end" fill="${EVICT_COLOR}"`);
}

function drawLegend(canvas: SvgCanvas, disks: readonly string[], params: ScoreParams): void {
  const entries: [string, string][] = disks.map((disk, i) => [`stroke="${COLORS[i % COLORS.length]}" stroke-width="2"`, disk]);
  entries.push(
    [`stroke="${SLOW_COLOR}" stroke-dasharray="6 4"`, `slow threshold ${params.slowThreshold}`],
    [`stroke="${EVICT_COLOR}" stroke-dasharray="6 4"`, `eviction threshold ${params.evictThreshold}`],
    ['stroke="#333" stroke-width="1.5"', 'latency: median'],
    ['stroke="#333" stroke-opacity="0.4" stroke-dasharray="3 2"', 'latency: max'],
  );
  entries.forEach(([style, label], i) => {
    const y = SCORE_TOP + 10 + i * 20;
    canvas.out.push(`<line x1="${LEGEND_LEFT}" y1="${y}" x2="${LEGEND_LEFT + 28}" y2="${y}" ${style}/>`);
    canvas.text(LEGEND_LEFT + 36, y + 4, label);
  });
}
