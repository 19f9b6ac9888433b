import { describe, expect, it } from 'vitest';
import {
  DEFAULT_STALL,
  MEDIA_RANGES,
  Rng,
  ScenarioGenerator,
  mixSeed,
  scenarioLines,
  scenarioTrace,
  type InspectionLine,
  type ScenarioOptions,
} from '../../dev/scenarios/index.js';

const SHORT = 600_000;

function linesOf(options: ScenarioOptions): InspectionLine[] {
  const out: InspectionLine[] = [];
  for (const tick of new ScenarioGenerator(options).ticks()) out.push(...tick.lines);
  return out;
}

/** A disk's lines by tick. */
function byTick(lines: InspectionLine[], disk: string): Map<number, number> {
  return new Map(lines.filter((l) => l.disk === disk).map((l) => [l.tick, l.ms]));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

describe('the PRNG', () => {
  it('is deterministic, in (0, 1), and seeds mix apart', () => {
    const a = new Rng(42);
    const b = new Rng(42);
    const draws = Array.from({ length: 1000 }, () => a.next());
    expect(draws).toEqual(Array.from({ length: 1000 }, () => b.next()));
    expect(Math.min(...draws)).toBeGreaterThan(0);
    expect(Math.max(...draws)).toBeLessThan(1);
    expect(mixSeed(1, 'disk', 0)).not.toBe(mixSeed(1, 'disk', 1));
    expect(mixSeed(1, 'disk', 0)).toBe(mixSeed(1, 'disk', 0));
    const normals = Array.from({ length: 20_000 }, () => a.normal());
    const mean = normals.reduce((s, x) => s + x, 0) / normals.length;
    const sd = Math.sqrt(normals.reduce((s, x) => s + (x - mean) ** 2, 0) / normals.length);
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(sd - 1)).toBeLessThan(0.03);
  });
});

describe('the scenario generator', () => {
  it('gives the same lines for the same seed, and other lines for another', () => {
    const options: ScenarioOptions = { kind: 'burst', seed: 9, disks: 12, media: 'hdd', durationMs: 60_000 };
    expect(linesOf(options)).toEqual(linesOf(options));
    expect(linesOf({ ...options, seed: 10 })).not.toEqual(linesOf(options));
    expect([...scenarioTrace(options)]).toEqual([...scenarioTrace(options)]);
  });

  it('writes trace lines: a header, {tick, disk, ms} in tick order, a clock line at the end', () => {
    const trace = [...scenarioTrace({ kind: 'healthy', seed: 1, disks: 2, media: 'ssd', durationMs: 10_000 })].map((l) => JSON.parse(l));
    expect(trace[0]).toMatchObject({ slowdisk_trace: 1, interval_ms: 100, disks: ['raft', 'kv'] });
    const body = trace.slice(1, -1);
    expect(body).toHaveLength(200);
    for (const line of body) expect(Object.keys(line)).toEqual(['tick', 'disk', 'ms']);
    expect(body.map((l) => l.tick)).toEqual([...body.map((l) => l.tick)].sort((a, b) => a - b));
    expect(trace.at(-1)).toEqual({ tick: 100 });
    const lines = [...scenarioLines({ kind: 'healthy', seed: 1, disks: 2, media: 'ssd', durationMs: 10_000 })];
    expect(lines.at(-1)).toEqual({ tick: 100 });
  });

  it('names the disks raft and kv for 2, disk1..diskN otherwise', () => {
    expect(new ScenarioGenerator({ kind: 'healthy', seed: 1, disks: 2, media: 'ssd' }).info.disks).toEqual(['raft', 'kv']);
    expect(new ScenarioGenerator({ kind: 'healthy', seed: 1, disks: 12, media: 'hdd' }).info.disks.at(-1)).toBe('disk12');
  });

  it('draws healthy SSD latencies around 0.2-1 ms and HDD ones around 5-15 ms, with a tail', () => {
    const ssd = linesOf({ kind: 'healthy', seed: 3, disks: 2, media: 'ssd', durationMs: SHORT });
    const hdd = linesOf({ kind: 'healthy', seed: 3, disks: 12, media: 'hdd', durationMs: SHORT });
    for (const [lines, [lo, hi]] of [
      [ssd, [0.15, 1.3]],
      [hdd, [5, 18]],
    ] as const) {
      const ms = lines.map((l) => l.ms);
      const m = median(ms);
      expect(m).toBeGreaterThan(lo);
      expect(m).toBeLessThan(hi);
      // A tail: the worst inspection is several times the median.
      expect(Math.max(...ms)).toBeGreaterThan(4 * m);
    }
    expect(MEDIA_RANGES.ssd.medianMs).toEqual([0.2, 1.0]);
  });

  it('slows one disk by the factor from the onset; every other line is the healthy run of the same seed', () => {
    const base: ScenarioOptions = { kind: 'healthy', seed: 5, disks: 2, media: 'ssd', durationMs: SHORT };
    const slow = new ScenarioGenerator({ ...base, kind: 'slow', factor: 2 });
    const { slowDisk, onsetMs } = slow.info;
    expect(onsetMs).toBeGreaterThanOrEqual(300_000);
    expect(onsetMs).toBeLessThanOrEqual(360_000);
    const healthyLines = linesOf(base);
    const slowLines = linesOf({ ...base, kind: 'slow', factor: 2 });
    const other = slow.info.disks.find((d) => d !== slowDisk)!;
    expect(byTick(slowLines, other)).toEqual(byTick(healthyLines, other));
    const h = byTick(healthyLines, slowDisk!);
    let after = 0;
    for (const [tick, ms] of byTick(slowLines, slowDisk!)) {
      if (tick * 100 < onsetMs!) expect(ms).toBe(h.get(tick));
      else {
        // Both are written in whole microseconds.
        expect(Math.abs(ms - 2 * h.get(tick)!)).toBeLessThanOrEqual(0.0015 + 1e-12);
        after += 1;
      }
    }
    expect(after).toBeGreaterThan(2000);
  });

  it('honours a given onset, disk and factor', () => {
    const gen = new ScenarioGenerator({ kind: 'slow', factor: 10, seed: 1, disks: 12, media: 'hdd', onsetMs: 60_000, slowDisk: 3, durationMs: 120_000 });
    expect(gen.info).toMatchObject({ slowDisk: 'disk4', onsetMs: 60_000, factor: 10 });
    const lines = linesOf({ kind: 'slow', factor: 10, seed: 1, disks: 12, media: 'hdd', onsetMs: 60_000, slowDisk: 3, durationMs: 120_000 });
    const slow = [...byTick(lines, 'disk4')];
    // x10 of 5-15 ms reaches the interval: such an inspection spans ticks that then have no line.
    for (let i = 0; i + 1 < slow.length; i += 1) {
      const [tick, ms] = slow[i];
      const next = slow[i + 1][0];
      expect(next - tick).toBe(Math.max(1, Math.ceil(ms / 100)));
    }
    expect(slow.filter(([tick]) => tick >= 600).some(([, ms]) => ms >= 100)).toBe(true);
  });

  it('heals: the slowdown ends healAfterMs after the onset', () => {
    const base: ScenarioOptions = { kind: 'healthy', seed: 8, disks: 2, media: 'ssd', durationMs: SHORT };
    const heal = new ScenarioGenerator({ ...base, kind: 'heal', onsetMs: 100_000, healAfterMs: 200_000 });
    expect(heal.info).toMatchObject({ factor: 3, onsetMs: 100_000, healMs: 300_000 });
    const h = byTick(linesOf(base), heal.info.slowDisk!);
    for (const [tick, ms] of byTick(linesOf({ ...base, kind: 'heal', onsetMs: 100_000, healAfterMs: 200_000 }), heal.info.slowDisk!)) {
      const t = tick * 100;
      if (t < 100_000 || t >= 300_000) expect(ms).toBe(h.get(tick));
      else expect(Math.abs(ms - 3 * h.get(tick)!)).toBeLessThanOrEqual(0.002 + 1e-12);
    }
  });

  it('ramps: the factor grows from x1 at the onset to the full factor rampMs later, geometrically or linearly, then stays', () => {
    const base: ScenarioOptions = { kind: 'healthy', seed: 6, disks: 2, media: 'ssd', durationMs: 400_000 };
    const ramp = { kind: 'ramp', onsetMs: 100_000, rampMs: 200_000, factor: 16 } as const;
    const h = byTick(linesOf(base), 'raft');
    const ratioAt = (shape: 'geometric' | 'linear', tick: number): number => {
      const lines = byTick(linesOf({ ...base, ...ramp, slowDisk: 0, rampShape: shape }), 'raft');
      return lines.get(tick)! / h.get(tick)!;
    };
    expect(new ScenarioGenerator({ ...base, ...ramp }).info.ramp).toEqual({ rampMs: 200_000, shape: 'geometric' });
    // Before the onset, halfway, at the end and after: x1, x4 (16^0.5) or x8.5 (1 + 15/2), x16, x16.
    expect(ratioAt('geometric', 900)).toBeCloseTo(1, 2);
    expect(ratioAt('geometric', 2000)).toBeCloseTo(4, 1);
    expect(ratioAt('linear', 2000)).toBeCloseTo(8.5, 1);
    expect(ratioAt('geometric', 3000)).toBeCloseTo(16, 1);
    expect(ratioAt('linear', 3500)).toBeCloseTo(16, 1);
    expect(() => new ScenarioGenerator({ ...base, ...ramp, factor: 0.5 })).toThrow(RangeError);
  });

  it('hangs: no line for the hung disk from the onset on, the others go on', () => {
    const lines = linesOf({ kind: 'hang', seed: 2, disks: 12, media: 'hdd', onsetMs: 200_000, slowDisk: 0, durationMs: 300_000 });
    const hung = [...byTick(lines, 'disk1').keys()];
    expect(Math.max(...hung)).toBeLessThan(2000);
    expect(Math.max(...hung)).toBeGreaterThanOrEqual(1999);
    expect(byTick(lines, 'disk2').size).toBeGreaterThan(2900);
  });

  it('stalls 1 s every 20 s: one long inspection, then no line for the ticks it spans', () => {
    const gen = new ScenarioGenerator({ kind: 'stall', seed: 4, disks: 2, media: 'ssd', onsetMs: 100_000, slowDisk: 1, durationMs: 200_000 });
    const lines = [...byTick(linesOf({ kind: 'stall', seed: 4, disks: 2, media: 'ssd', onsetMs: 100_000, slowDisk: 1, durationMs: 200_000 }), 'kv')];
    const long = lines.filter(([, ms]) => ms >= 100);
    // Pauses at 100, 120, ..., 200 s: an inspection started at a pause's first tick waits it out.
    expect(long.map(([tick]) => tick)).toEqual([1000, 1200, 1400, 1600, 1800, 2000]);
    for (const [, ms] of long) {
      expect(ms).toBeGreaterThan(DEFAULT_STALL.stallMs);
      expect(ms).toBeLessThan(DEFAULT_STALL.stallMs + 100);
    }
    // The 10 ticks it spans have no line (the last pause runs past the end of the run).
    const ticks = new Set(lines.map(([tick]) => tick));
    const missing = Array.from({ length: gen.info.ticks }, (_, i) => i + 1).filter((k) => !ticks.has(k));
    expect(missing).toHaveLength(5 * 10);
    expect(missing.slice(0, 10)).toEqual(Array.from({ length: 10 }, (_, i) => 1001 + i));
  });

  it('raises every disk x4 with a heavier tail during the peak', () => {
    const base: ScenarioOptions = { kind: 'healthy', seed: 6, disks: 4, media: 'hdd', durationMs: 1_800_000 };
    const gen = new ScenarioGenerator({ ...base, kind: 'peak' });
    const { startMs, endMs } = gen.info.peak!;
    expect(endMs - startMs).toBe(600_000);
    expect(startMs).toBeGreaterThanOrEqual(900_000);
    const healthyLines = linesOf(base);
    const peakLines = linesOf({ ...base, kind: 'peak' });
    const inPeak = (l: InspectionLine) => l.tick * 100 >= startMs + 60_000 && l.tick * 100 < endMs;
    const ratio = median(peakLines.filter(inPeak).map((l) => l.ms)) / median(healthyLines.filter(inPeak).map((l) => l.ms));
    expect(ratio).toBeGreaterThan(3.5);
    expect(ratio).toBeLessThan(4.5);
    const before = (l: InspectionLine) => l.tick * 100 < startMs;
    expect(peakLines.filter(before)).toEqual(healthyLines.filter(before));
  });

  it('bursts: one disk at a time, a few seconds each, listed in the info', () => {
    const gen = new ScenarioGenerator({ kind: 'burst', seed: 7, disks: 12, media: 'ssd', durationMs: 3_600_000 });
    const bursts = gen.info.bursts;
    // 12 disks, one burst per disk every 5 minutes on average: about 144 in an hour.
    expect(bursts.length).toBeGreaterThan(100);
    expect(bursts.length).toBeLessThan(200);
    for (const b of bursts) {
      expect(b.endMs - b.startMs).toBeGreaterThanOrEqual(1000);
      expect(b.endMs - b.startMs).toBeLessThanOrEqual(5000);
      expect(b.factor).toBeGreaterThanOrEqual(1);
    }
    expect(gen.info.slowDisk).toBeNull();
  });

  it('journal commits: every disk waits for one every 25 to 35 s, one to four inspections at a time; the rest is the run without them', () => {
    const base: ScenarioOptions = { kind: 'healthy', seed: 11, disks: 2, media: 'ssd', durationMs: SHORT };
    const plain = linesOf(base);
    const journal = linesOf({ ...base, journal: {} });
    for (const disk of ['raft', 'kv']) {
      const before = byTick(plain, disk);
      // The ticks whose inspection waited: more than a millisecond over the same draw without the journal.
      const waited = [...byTick(journal, disk)].filter(([tick, ms]) => before.has(tick) && ms > before.get(tick)! + 1).map(([tick]) => tick);
      const commits: number[][] = [];
      for (const tick of waited) {
        const last = commits.at(-1);
        if (last && tick - last.at(-1)! <= 2) last.push(tick);
        else commits.push([tick]);
      }
      // 600 s at one commit every 25 to 35 s.
      expect(commits.length).toBeGreaterThanOrEqual(17);
      expect(commits.length).toBeLessThanOrEqual(24);
      for (const commit of commits) expect(commit.length).toBeLessThanOrEqual(4);
      const gaps = commits.slice(1).map((commit, i) => (commit[0] - commits[i][0]) / 10);
      for (const gap of gaps) {
        expect(gap).toBeGreaterThanOrEqual(24);
        expect(gap).toBeLessThanOrEqual(36);
      }
      // The SSD's waits: around 10 ms, far above its sub-millisecond inspections.
      const waits = waited.map((tick) => byTick(journal, disk).get(tick)! - before.get(tick)!);
      expect(median(waits)).toBeGreaterThan(4);
      expect(median(waits)).toBeLessThan(25);
    }
  });

  it('rejects what it cannot generate', () => {
    expect(() => new ScenarioGenerator({ kind: 'nope' as never, seed: 1, disks: 2, media: 'ssd' })).toThrow(RangeError);
    expect(() => new ScenarioGenerator({ kind: 'healthy', seed: 1, disks: 0, media: 'ssd' })).toThrow(RangeError);
    expect(() => new ScenarioGenerator({ kind: 'slow', seed: 1, disks: 2, media: 'ssd', slowDisk: 2 })).toThrow(RangeError);
  });
});
