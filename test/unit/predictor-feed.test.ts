// The early-warning predictor fed from the store's tick outcomes, on the scheduled clock: the
// 15 s sample boundaries, unanswered ticks, failures, the device figures, and a replay of a
// live run's trace reaching exactly the predictions the live run had.
import { describe, expect, it } from 'vitest';
import type { DeviceFigures } from '../../src/kernel/device-counters.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import type { Prediction } from '../../src/early-warning/predictor.js';
import { nearestDevice, PredictorFeed } from '../../src/early-warning/predictor-feed.js';
import { predictorParams } from '../../src/early-warning/predictor-params.js';
import { ReplayEngine } from '../../src/replay/replay-engine.js';
import { StoreTicks } from '../../src/score/store-ticks.js';
import { InFlight } from '../../src/verdict/in-flight.js';
import type { TraceLine } from '../../src/trace/trace-format.js';
import { microseconds } from '../../src/common/microseconds.js';

const params = DEFAULT_SCORE_PARAMS;
const INTERVAL = params.intervalMs;

function figures(name: string, disks: string[], role: DeviceFigures['role'], extra: Partial<DeviceFigures> = {}): DeviceFigures {
  return {
    device: `7:${name.length}`,
    name,
    readIops: 1,
    writeIops: 10,
    flushIops: 5,
    readLatencyMs: 1,
    writeLatencyMs: 1,
    flushLatencyMs: 1,
    inFlight: 1,
    averageQueueDepth: 0.5,
    utilisation: 0.1,
    stalled: false,
    limitUse: null,
    disks,
    role,
    ...extra,
  };
}

/**
 * Drives StoreTicks and the feed as the live session does, for one disk 'a': each tick is
 * charged, then the feed told, then the inspection started. `behaviour(tick)` says what the
 * inspection started at `tick` does: a duration under the interval counts at once; null fails.
 */
function drive(ticks: number, behaviour: (tick: number) => number | null | 'hang', devices: (tick: number) => DeviceFigures[] = () => []) {
  const feed = new PredictorFeed(predictorParams({ timeoutMs: params.timeoutMs }), INTERVAL);
  const store = new StoreTicks(params, feed.outcome);
  store.setInspected(['a'], 0);
  const inFlight = new InFlight();
  const predictions = new Map<number, Prediction | undefined>();
  for (let k = 1; k <= ticks; k += 1) {
    store.tick(k * INTERVAL);
    feed.tick(k, devices(k));
    predictions.set(k, feed.predictionOf('a'));
    if (inFlight.tick(k, k * INTERVAL)) {
      const name = 'a';
      const what = behaviour(k);
      if (what === 'hang') continue;
      inFlight.ended(k, k * INTERVAL, k * INTERVAL + (what ?? 0));
      if (what === null) {
        feed.failed(name, k);
      } else {
        store.finished(name, k, what);
      }
    }
  }
  return predictions;
}

describe('the predictor feed', () => {
  it('closes a sample every 150 ticks of the scheduled clock, with the ticks before it; a hang waits longer and longer', () => {
    // Inspections take 1 ms; the one started at tick 141 never comes back.
    const predictions = drive(300, (k) => (k >= 141 ? 'hang' : 1));
    expect(predictions.get(149)).toBeUndefined();
    // Ticks 1..149: 140 inspections and 9 ticks charged, the disk waiting 0.1 s to 0.9 s.
    // Nearest rank: the P99 of 149 values is the 148th, 0.8 s.
    expect(predictions.get(150)).toMatchObject({ atMs: 15_000, samples: 1, p99Ms: 800, probability: null });
    // Ticks 150..299: 150 ticks charged, waiting 1 s to 15.9 s; the 149th is 15.8 s.
    expect(predictions.get(300)).toMatchObject({ atMs: 30_000, samples: 2, p99Ms: 15_800 });
  });

  it('takes a failure that came back as an error, not as a wait', () => {
    const predictions = drive(150, (k) => (k > 100 ? null : 1));
    // 49 failures each count as an inspection of the timeout (100 ms), however many in a row.
    expect(predictions.get(150)).toMatchObject({ p99Ms: 100, samples: 1 });
  });

  it('reads the queue depth and IOPS of the device nearest to the disk, when there are figures', () => {
    const withDevices = drive(150, () => 1, (k) => (k % 30 === 0 ? [figures('loop0', ['a'], 'filesystem'), figures('sda', ['a'], 'backing')] : []));
    // The shipped network was trained without device counters: it says it was given them and did not read them.
    expect(withDevices.get(150)?.ignored).toEqual(['queueDepth', 'iops', 'errors']);
    const without = drive(150, () => 1);
    expect(without.get(150)?.ignored).toEqual(['errors']);
  });

  it("picks the disk's own filesystem device, else its whole disk; never a member or a backing disk", () => {
    const loop = [figures('sda', ['a'], 'backing'), figures('loop0', ['a'], 'filesystem')];
    expect(nearestDevice('a', loop)?.name).toBe('loop0');
    const partition = [figures('sdb', ['b'], 'whole-disk'), figures('sdb1', ['b'], 'filesystem')];
    expect(nearestDevice('b', partition)?.name).toBe('sdb1');
    expect(nearestDevice('b', [figures('sdb', ['b'], 'whole-disk')])?.name).toBe('sdb');
    expect(nearestDevice('c', [figures('sdc', ['c'], 'member'), figures('sdd', ['c'], 'backing')])).toBeUndefined();
    expect(nearestDevice('c', loop)).toBeUndefined();
  });
});

describe('a replayed trace', () => {
  it('reaches exactly the predictions of the live run that recorded it, a warning included', () => {
    // A live run, one inspection in flight as the pipeline has it (src/verdict/in-flight.ts): a disk whose inspections slow down
    // geometrically from minute 5 to 2 s at minute 15, with a hang of 20 s at minute 12 and
    // failures around minute 8; a result that takes longer than the interval comes back later.
    const ticks = 9000;
    // Live timings have more digits than a trace keeps (microseconds).
    const latency = (k: number): number => (k < 3000 ? 0.5 + (k % 7) / 10 + 1 / 3e4 : Math.min(2000, 0.5 * 8000 ** ((k - 3000) / 6000)));
    const feed = new PredictorFeed(predictorParams({ timeoutMs: params.timeoutMs }), INTERVAL);
    const store = new StoreTicks(params, feed.outcome);
    store.setInspected(['a'], 0);
    const inFlight = new InFlight();
    const trace: TraceLine[] = [];
    const pending: { endMs: number; tick: number; ms: number }[] = [];
    const live = new Map<number, Prediction | undefined>();
    for (let k = 1; k <= ticks; k += 1) {
      const now = k * INTERVAL;
      while (pending.length > 0 && pending[0]!.endMs < now) {
        const { tick, ms, endMs } = pending.shift()!;
        inFlight.ended(tick, tick * INTERVAL, endMs);
        store.finished('a', tick, ms);
        trace.push({ line: trace.length + 2, tick, disk: 'a', ms: microseconds(ms), late: false });
      }
      const tick = store.tick(now);
      const devices = k % params.roundTicks === 0 ? [figures('loop0', ['a'], 'filesystem', { averageQueueDepth: k % 4 })] : [];
      for (const device of devices) trace.push({ line: trace.length + 2, tick: k, disk: null, ms: null, late: false, device });
      feed.tick(k, devices);
      if (tick.updated) live.set(k, feed.predictionOf('a'));
      if (inFlight.tick(k, now)) {
        const name = 'a';
        if (k >= 7200 && k < 7400) continue;
        if (k >= 4800 && k < 4810) {
          inFlight.ended(k, now, now);
          feed.failed(name, k);
          trace.push({ line: trace.length + 2, tick: k, disk: name, ms: null, late: false });
        } else if (latency(k) < INTERVAL) {
          inFlight.ended(k, now, now + latency(k));
          store.finished(name, k, latency(k));
          trace.push({ line: trace.length + 2, tick: k, disk: name, ms: microseconds(latency(k)), late: false });
        } else {
          pending.push({ endMs: now + latency(k), tick: k, ms: latency(k) });
        }
      }
    }
    const replayed = new Map<number, Prediction | undefined>();
    const engine = new ReplayEngine({ params, disks: ['a'], ticks }, { update: (update) => replayed.set(update.tick, update.predictions.get('a')) });
    for (const line of trace) engine.add(line);
    const result = engine.end();
    expect(replayed).toEqual(live);
    const warned = [...replayed.values()].filter((prediction) => prediction?.warning);
    expect(warned.length).toBeGreaterThan(0);
    expect(result.verdict.severity).not.toBe('ok');
  });
});
