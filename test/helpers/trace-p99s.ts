// A trace file's 15 s samples of one disk, as the early warning's tests read them: each
// sample's end on the trace's clock and the P99 of the inspections in it.
import { readFileSync } from 'node:fs';
import { traceSamples, type TraceEntry } from '../../dev/predict/trace-samples.js';
import { sampleFeatures } from '../../src/early-warning/sample-features.js';

export function traceP99s(file: string, disk: string, intervalMs: number): { atMs: number; p99Ms: number }[] {
  const entries = readFileSync(file, 'utf8').trim().split('\n').slice(1).map((line) => JSON.parse(line) as TraceEntry);
  return traceSamples(entries, intervalMs, 15_000)
    .get(disk)!
    .map(({ atMs, sample }) => ({ atMs, p99Ms: sampleFeatures(sample, intervalMs)!.p99Ms }));
}
