import { describe, expect, it } from 'vitest';
import { windowInputs } from '../../src/early-warning/network.js';
import { sampleFeatures, sortedQuantile } from '../../src/early-warning/sample-features.js';
import { traceSamples, type TraceEntry } from '../../dev/predict/trace-samples.js';

const range = (n: number, from = 1): number[] => Array.from({ length: n }, (_, i) => from + i);

describe('one sample period', () => {
  it('takes nearest-rank percentiles of the inspections', () => {
    const latenciesMs = range(150); // 1..150 ms
    const f = sampleFeatures({ latenciesMs }, 100)!;
    expect([f.p50Ms, f.p90Ms, f.p99Ms, f.count]).toEqual([75, 135, 149, 150]);
    expect(sortedQuantile([7], 0.99)).toBe(7);
  });

  it('counts each unanswered tick as at least the timeout, and as long as the inspection had run when longer', () => {
    const fast = Array.from({ length: 145 }, () => 1);
    const f = sampleFeatures({ latenciesMs: fast, unansweredMs: [0, 0, 0, 0, 500] }, 100)!;
    // 150 values: 145 x 1 ms, 4 x 100 ms (errors count as the timeout), 1 x 500 ms.
    expect(f.p99Ms).toBe(100);
    expect(sampleFeatures({ latenciesMs: fast, unansweredMs: [300, 400] }, 100)!.p99Ms).toBe(300);
  });

  it('keeps the counters the caller gave and marks the others missing; nothing at all is no sample', () => {
    const f = sampleFeatures({ latenciesMs: [1], queueDepth: 4, iops: 120 }, 100)!;
    expect(f).toMatchObject({ queueDepth: 4, iops: 120, errors: null });
    expect(sampleFeatures({ latenciesMs: [] }, 100)).toBeNull();
    expect(() => sampleFeatures({ latenciesMs: [-1] }, 100)).toThrow(RangeError);
    expect(() => sampleFeatures({ latenciesMs: [1], iops: Number.NaN }, 100)).toThrow(RangeError);
  });
});

describe('a trace cut into sample periods', () => {
  it('makes one sample per 150 ticks of 100 ms per disk, ending at tick x interval, and drops the last partial period', () => {
    const lines: TraceEntry[] = range(320).map((tick) => ({ tick, disk: 'raft', ms: 1 }));
    const samples = traceSamples(lines, 100, 15_000).get('raft')!;
    expect(samples.map((s) => s.atMs)).toEqual([15_000, 30_000]);
    expect(samples[0].sample.latenciesMs).toHaveLength(150);
    expect(samples[0].sample.unansweredMs).toEqual([]);
  });

  it('charges the ticks a long inspection spans with how long it had run (up to its duration), and a hang with ever more', () => {
    const lines: TraceEntry[] = [];
    for (let tick = 1; tick <= 150; tick += 1) {
      if (tick === 10) lines.push({ tick, disk: 'kv', ms: 250 }); // spans ticks 11 and 12
      else if (tick === 11 || tick === 12) continue;
      else if (tick < 100) lines.push({ tick, disk: 'kv', ms: 2 });
    }
    lines.push({ tick: 20, disk: 'kv', error: 'EIO' });
    lines.push({ tick: 150 });
    const [{ sample }] = traceSamples(lines, 100, 15_000).get('kv')!;
    // Tick 20 had an error line, ticks 100..150 have none: a hang started at tick 100.
    expect(sample.errors).toBe(1);
    expect(sample.unansweredMs).toEqual([200, 250, 0, ...range(51).map((i) => i * 100)]);
    expect(sample.latenciesMs).toHaveLength(150 - 2 - 1 - 51);
  });

  it('rejects a period that is not a whole number of ticks', () => {
    expect(() => traceSamples([], 100, 15_050)).toThrow(RangeError);
  });
});

describe('the network inputs of a window', () => {
  const s = (p99Ms: number) => sampleFeatures({ latenciesMs: [p99Ms] }, 100)!;

  it('are the log of each latency over the SLA, oldest sample first, a short window padded with its median', () => {
    // Padding: the median of ln(0.1) and ln(1), the logs of 20 ms and 200 ms over the SLA; the
    // 20 ms between it and 200 ms is read as the median of the three, the padding.
    expect(windowInputs([s(20), s(200)], 3, ['p99'], 200)).toEqual([Math.log(0.1) / 2, Math.log(0.1) / 2, 0]);
    expect(windowInputs([s(20), s(200)], 2, ['p99'], 200)).toEqual([Math.log(0.1), 0]);
    expect(windowInputs([s(400)], 1, ['p50', 'p99', 'errors'], 200)).toEqual([Math.log(2), Math.log(2), 0]);
    expect(() => windowInputs([], 3, ['p99'], 200)).toThrow(RangeError);
    expect(() => windowInputs([s(1), s(1)], 1, ['p99'], 200)).toThrow(RangeError);
  });

  it('read a burst of one sample that recovered as its neighbours, and a ramp as it is', () => {
    const ln = (ms: number) => Math.log(ms / 200);
    // 400 ms between 20 and 25 ms is gone; the newest sample is read as it is (it may yet recover).
    expect(windowInputs([s(20), s(400), s(25), s(30)], 4, ['p99'], 200)).toEqual([ln(20), ln(25), ln(30), ln(30)]);
    expect(windowInputs([s(20), s(25), s(30), s(400)], 4, ['p99'], 200)).toEqual([ln(20), ln(25), ln(30), ln(400)]);
    expect(windowInputs([s(20), s(40), s(80), s(160)], 4, ['p99'], 200)).toEqual([ln(20), ln(40), ln(80), ln(160)]);
    // Whichever sample a short window began with, a burst in it is read as the padding around it.
    expect(windowInputs([s(150), s(5), s(5)], 6, ['p99'], 200)).toEqual([ln(5), ln(5), ln(5), ln(5), ln(5), ln(5)]);
  });
});
