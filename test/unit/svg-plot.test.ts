// The plot is read back from its SVG: each series must be the scores and latencies replayed,
// on the axes it draws.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS, type ScoreParams } from '../../src/score/score-params.js';
import { replayBatches, type ScoreUpdate } from '../../src/replay/replay-engine.js';
import { MAX_PLOT_POINTS, PlotRecorder, renderPlot } from '../../src/formats/svg-plot.js';
import { readTrace } from '../../src/trace/trace-reader.js';

type Line = { tick: number; disk: string; ms?: number; error?: string } | { tick: number };

async function plotOf(lines: Line[], disks: string[], params: ScoreParams = DEFAULT_SCORE_PARAMS): Promise<{ svg: string; updates: ScoreUpdate[] }> {
  const text = [{ slowdisk_trace: 1, disks }, ...lines].map((line) => `${JSON.stringify(line)}\n`).join('');
  const trace = await readTrace(Readable.from(text), 'test.jsonl');
  const plot = new PlotRecorder();
  const updates: ScoreUpdate[] = [];
  await replayBatches(trace.batches, { params, disks }, {
    update: (update) => {
      updates.push(update);
      plot.update(update);
    },
    inspection: (disk, tick, ms) => plot.inspection(disk, tick, ms),
  });
  return { svg: renderPlot(plot, params, 'night <1> & "2".jsonl'), updates };
}

/** Every element of the SVG, with its attributes; throws unless every tag is closed in order. */
function parseSvg(svg: string): { name: string; attributes: Record<string, string>; text: string }[] {
  const elements: { name: string; attributes: Record<string, string>; text: string }[] = [];
  const open: string[] = [];
  const tag = /<(\/?)([a-z]+)((?:\s+[A-Za-z0-9-]+="[^"<>]*")*)\s*(\/?)>([^<]*)/gy;
  let match: RegExpExecArray | null;
  let at = 0;
  while ((match = tag.exec(svg)) !== null) {
    const [, closing, name, attributeText, selfClosing, text] = match;
    at = tag.lastIndex;
    if (closing) {
      expect(open.pop()).toBe(name);
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const [, key, value] of attributeText.matchAll(/([A-Za-z0-9-]+)="([^"]*)"/g)) attributes[key] = value;
    elements.push({ name, attributes, text });
    if (!selfClosing) open.push(name);
  }
  expect(at).toBe(svg.length);
  expect(open).toEqual([]);
  return elements;
}

type Element = ReturnType<typeof parseSvg>[number];

function series(elements: Element[], name: string, disk: string): [number, number][] {
  const found = elements.filter((e) => e.attributes['data-series'] === name && e.attributes['data-disk'] === disk);
  const points: [number, number][] = [];
  for (const element of found) {
    if (element.name === 'polyline') {
      for (const pair of element.attributes.points.split(' ')) points.push(pair.split(',').map(Number) as [number, number]);
    } else if (element.name === 'path') {
      for (const [, x, y] of element.attributes.d.matchAll(/[ML]([-\d.]+),([-\d.]+)/g)) points.push([Number(x), Number(y)]);
    } else {
      points.push([Number(element.attributes.cx), Number(element.attributes.cy)]);
    }
  }
  return points.sort((a, b) => a[0] - b[0]);
}

/** The affine map value -> pixel that two points define. */
function axisThrough(v1: number, p1: number, v2: number, p2: number): (value: number) => number {
  return (value) => p1 + ((value - v1) * (p2 - p1)) / (v2 - v1);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

describe('the SVG plot', () => {
  it("draws each disk's score per round, the thresholds, and the latency per round on a log scale", async () => {
    // raft hangs from tick 1 for 21.05 s, then answers in 1 ms; kv answers in 2 to 40 ms, failing now and then.
    const lines: Line[] = [{ tick: 1, disk: 'raft', ms: 21_050 }];
    const kvMs = (tick: number) => 2 + ((tick * 37) % 39);
    for (let tick = 1; tick <= 900; tick += 1) {
      if (tick >= 212) lines.push({ tick, disk: 'raft', ms: 1 });
      lines.push(tick % 50 === 0 ? { tick, disk: 'kv', error: 'EIO' } : { tick, disk: 'kv', ms: kvMs(tick) });
    }
    const { svg, updates } = await plotOf(lines, ['raft', 'kv']);
    const elements = parseSvg(svg);

    // Scores: one point per round at its time, on one linear axis.
    const raft = series(elements, 'score', 'raft');
    expect(raft).toHaveLength(30);
    const x = axisThrough(updates[0].timeMs, raft[0][0], updates[29].timeMs, raft[29][0]);
    const y = axisThrough(2, raft[0][1], 100, raft[6][1]);
    for (const disk of ['raft', 'kv']) {
      const points = series(elements, 'score', disk);
      points.forEach(([px, py], i) => {
        expect(px).toBeCloseTo(x(updates[i].timeMs), 1);
        expect(py).toBeCloseTo(y(updates[i].scores.get(disk)!), 1);
      });
    }
    expect(y(100)).toBeLessThan(y(1));
    const threshold = (name: string) => Number(elements.find((e) => e.attributes['data-threshold'] === name)!.attributes.y1);
    expect(threshold('slow')).toBeCloseTo(y(80), 1);
    expect(threshold('evict')).toBeCloseTo(y(100), 1);

    // Latency: the median of each round's inspections (ticks 30(r-1)..30r-1), log scale.
    const kvMedians = updates.map((update) => {
      const ticks = Array.from({ length: 30 }, (_, i) => update.tick - 30 + i).filter((tick) => tick >= 1 && tick % 50 !== 0);
      return median(ticks.map(kvMs));
    });
    const kv = series(elements, 'latency-median', 'kv');
    expect(kv).toHaveLength(30);
    // The axis its decade labels draw (each label sits 4 px under its grid line).
    const labelY = (label: string) => Number(elements.find((e) => e.name === 'text' && e.text === label)!.attributes.y) - 4;
    const logY = axisThrough(0, labelY('1 ms'), 4, labelY('10 s'));
    kv.forEach(([px, py], i) => {
      expect(px).toBeCloseTo(x(updates[i].timeMs), 1);
      expect(py).toBeCloseTo(logY(Math.log10(kvMedians[i])), 1);
    });
    expect(threshold('timeout')).toBeCloseTo(logY(2), 1);

    // raft's one hung inspection (21.05 s, in round 1) stands alone, then nothing returns until round 8.
    const raftMax = series(elements, 'latency-max', 'raft');
    expect(raftMax[0][1]).toBeCloseTo(logY(Math.log10(21_050)), 1);
    expect(raftMax[1][0]).toBeCloseTo(x(updates[7].timeMs), 1);
    expect(elements.some((e) => e.name === 'circle' && e.attributes['data-disk'] === 'raft')).toBe(true);

    // What a reader needs to read it.
    const texts = elements.map((e) => e.text);
    expect(texts).toContain('time (minutes)');
    expect(texts).toContain('slow score');
    expect(texts).toContain('inspection latency (log scale)');
    expect(texts).toEqual(expect.arrayContaining(['raft', 'kv', 'slow threshold 80', 'eviction threshold 100', 'latency: median', 'latency: max']));
    expect(svg).toContain('slowdisk replay: night &lt;1&gt; &amp; &quot;2&quot;.jsonl');
  });

  it('merges rounds on a long trace, keeping every peak', async () => {
    // 3000 rounds of a healthy disk with one 21 s hang in the middle.
    const rounds = 3000;
    const lines: Line[] = [];
    const hangStart = 45_001;
    for (let tick = 1; tick <= rounds * 30; tick += 1) {
      if (tick === hangStart) lines.push({ tick, disk: 'raft', ms: 21_050 });
      else if (tick < hangStart || tick > hangStart + 210) lines.push({ tick, disk: 'raft', ms: 1 });
    }
    const { svg, updates } = await plotOf(lines, ['raft']);
    expect(updates).toHaveLength(rounds);
    const elements = parseSvg(svg);
    const scores = series(elements, 'score', 'raft');
    expect(scores.length).toBeLessThanOrEqual(MAX_PLOT_POINTS);
    expect(scores.length).toBe(Math.ceil(rounds / Math.ceil(rounds / MAX_PLOT_POINTS)));
    const y = axisThrough(1, scores[0][1], 100, Math.min(...scores.map(([, py]) => py)));
    const highest = scores.filter(([, py]) => Math.abs(py - y(100)) < 0.01);
    expect(highest.length).toBeGreaterThan(0);
    expect(elements.map((e) => e.text).join(' ')).toMatch(/one point per 3 rounds/);
  });

  it('a trace too short for a round still gives a readable SVG', async () => {
    const { svg } = await plotOf([{ tick: 5, disk: 'raft', ms: 1 }], ['raft']);
    const elements = parseSvg(svg);
    expect(elements.map((e) => e.text)).toContain('no round closed: no score to plot');
    expect(svg).not.toMatch(/NaN|Infinity/);
  });
});
