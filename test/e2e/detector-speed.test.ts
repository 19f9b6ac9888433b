// How fast the statistical detector observes, on the machine's clock: a budget, so not a unit test.
import { describe, expect, it } from 'vitest';
import { StatisticalDetector } from '../../src/detectors/statistical-detector.js';
import { Rng } from '../../dev/scenarios/index.js';

const TICK = 100;

describe('the statistical detector', () => {
  it('is fast: six hours of 100 ms ticks for 12 disks in seconds (a day well under a minute)', () => {
    const rng = new Rng(3);
    const values = Float64Array.from({ length: 1 << 16 }, () => rng.lognormal(10, 0.3));
    const detector = new StatisticalDetector();
    const disks = Array.from({ length: 12 }, (_, i) => `d${i}`);
    const started = performance.now();
    let v = 0;
    for (let tick = 1; tick <= 216_000; tick += 1) {
      for (const d of disks) detector.observe(d, tick * TICK, values[v++ & 0xffff]);
    }
    const seconds = (performance.now() - started) / 1000;
    expect(seconds).toBeLessThan(10);
    expect(disks.every((d) => detector.state(d) === 'ok')).toBe(true);
  });
});
