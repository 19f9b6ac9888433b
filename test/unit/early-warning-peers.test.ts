// The early warning judges a disk against its peers: a rise the whole host shows is not one
// disk's coming breach, a disk slowing down alone is warned of as early as if it had no peers.
import { describe, expect, it } from 'vitest';
import { HostPredictors } from '../../src/early-warning/host-predictors.js';
import { ownChance } from '../../src/early-warning/own-chance.js';
import type { Prediction } from '../../src/early-warning/predictor.js';
import type { PredictorParams } from '../../src/early-warning/predictor-params.js';
import type { PredictorSample } from '../../src/early-warning/sample-features.js';

/** 15 s of inspections all taking `ms` (so that the P90 the rising trend reads moves with the P99). */
const every = (ms: number): PredictorSample => ({ latenciesMs: Array.from({ length: 150 }, () => ms) });
/** Sample i of a disk slowing down by 10 ms a sample from 50 ms: over the 200 ms SLA from i = 16. */
const rising = (i: number): PredictorSample => every(50 + 10 * i);
const flat = (): PredictorSample => every(50);

/** Feeds three disks 20 samples each, `sampleOf(disk, i)`, and returns each disk's predictions in order. */
function feed(sampleOf: (disk: string, i: number) => PredictorSample, params: Partial<PredictorParams> = {}): Record<string, Prediction[]> {
  const host = new HostPredictors({ model: 'trend', ...params });
  const out: Record<string, Prediction[]> = { a: [], b: [], c: [] };
  for (let i = 0; i < 20; i += 1) {
    const samples = new Map(Object.keys(out).map((disk) => [disk, sampleOf(disk, i)]));
    for (const [disk, prediction] of host.observe((i + 1) * 15_000, samples)) out[disk]!.push(prediction!);
  }
  return out;
}
const firstWarning = (predictions: Prediction[]): number => predictions.findIndex((p) => p.warning);

describe("a disk's own chance of a breach", () => {
  it('is its reading without peers, less the share the median of its peers shows too', () => {
    expect(ownChance(0.3, [])).toBe(0.3);
    // 1 - 0.25 = (1 - 0.5)(1 - q): q = 0.5.
    expect(ownChance(0.75, [0.5])).toBeCloseTo(0.5, 12);
    expect(ownChance(0.3, [0.9, 0.3, 0.1])).toBe(0);
    expect(ownChance(0.6, [1])).toBe(0);
    expect(ownChance(0.6, [0, 0, 0.99])).toBe(0.6);
  });

  it('warns of a disk slowing down alone among steady peers at the sample it would be warned of alone', () => {
    const alone = feed((_, i) => rising(i), { peerCondition: false });
    const amongPeers = feed((disk, i) => (disk === 'a' ? rising(i) : flat()));
    expect(firstWarning(alone.a!)).toBe(15);
    expect(firstWarning(amongPeers.a!)).toBe(15);
    expect(firstWarning(amongPeers.b!)).toBe(-1);
    expect(firstWarning(amongPeers.c!)).toBe(-1);
  });

  it('does not warn of a rise the whole host shows until a disk breaches the SLA, then warns as of a breach', () => {
    const host = feed((_, i) => rising(i));
    for (const disk of ['a', 'b', 'c']) {
      const predictions = host[disk]!;
      // Under the SLA every disk reads what its peers read: none of it is its own.
      expect(predictions.slice(3, 16).map((p) => p.probability)).toEqual(Array(13).fill(0));
      // Over it from sample 16: 1 by rule, and a warning once the breach has lasted two samples.
      expect(predictions[16]!.probability).toBe(1);
      expect(firstWarning(predictions)).toBe(17);
    }
  });
});
