// The live feeder: the prober's records become the pipeline's events on the schedule's clock,
// each after the ticks whose deadlines it passed, so that a batch read late is judged as it
// happened; a round closes when its last tick is covered, not when a batch is read.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BatchFeeder } from '../../src/live/batch-feeder.js';
import { TickSchedule } from '../../src/ticks/tick-schedule.js';
import type { BatchRecord } from '../../src/probe/prober-protocol.js';
import type { RoundVerdict } from '../../src/verdict/verdict-pipeline.js';
import { defaultPipeline, liveDisks } from '../helpers/live-parts.js';

afterEach(() => vi.useRealTimers());

const START = 50_000;
const schedule = new TickSchedule(START, 100, 30);
/** An inspection of `disk` at `tick` that took `ms` and was recorded at `atMs`. */
const timed = (disk: string, tick: number, ms: number, atMs = schedule.deadlineMs(tick) + ms): BatchRecord => [disk, tick, atMs, 0, ms / 2, ms / 2, 0, 0, ms, atMs - ms];

function feederOf(disks: string[]) {
  const pipeline = defaultPipeline();
  const { disks: live, told } = liveDisks(pipeline, disks);
  const rounds: RoundVerdict[] = [];
  const begun: number[] = [];
  const feeder = new BatchFeeder(pipeline, live, {
    tickBegins: (tick) => begun.push(tick),
    roundDevices: () => undefined,
    round: (round) => rounds.push(round),
    resolved: () => {},
    listening: () => true,
  });
  feeder.start(schedule);
  return { pipeline, feeder, told, rounds, begun };
}

describe('BatchFeeder', () => {
  it('tells each tick once, at the first record or cover past its deadline, and closes a round at its last tick', () => {
    const { feeder, rounds, begun } = feederOf(['raft']);
    const records: BatchRecord[] = [];
    for (let tick = 1; tick <= 30; tick += 1) records.push(timed('raft', tick, 1));
    feeder.feed(schedule.deadlineMs(29) + 50, records.slice(0, 29));
    expect(begun).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    expect(rounds).toEqual([]);
    feeder.feed(schedule.deadlineMs(30) + 2, records.slice(29));
    expect(rounds.map((round) => [round.tick, round.storeScore])).toEqual([[30, 1]]);
    expect(feeder.lastTick).toBe(30);
  });

  it('a batch read a second late is judged in order: under the interval but recorded after its tick is late', () => {
    const { feeder, told } = feederOf(['raft']);
    // Tick 1 on time; tick 2's inspection started 25 ms late and took 90 ms: recorded after tick 3 began.
    feeder.feed(schedule.deadlineMs(10), [timed('raft', 1, 2), timed('raft', 2, 90, schedule.deadlineMs(2) + 115), timed('raft', 4, 3)]);
    expect(told.inspections.map(({ tick, late }) => [tick, late])).toEqual([
      [1, false],
      [2, true],
      [4, false],
    ]);
  });

  it('the disks are judged at the clock the records reach, not at the reader\'s', () => {
    const { feeder, pipeline } = feederOf(['raft']);
    feeder.feed(schedule.deadlineMs(3) + 10, [timed('raft', 1, 1), timed('raft', 2, 1)]);
    // Tick 3's inspection started at its deadline and is 10 ms old at the batch's cover.
    expect(feeder.known).toBe(schedule.deadlineMs(3) + 10);
    expect(pipeline.disk('raft', feeder.known)?.waitingMs).toBeUndefined();
    // The watchdog's reading, 600 ms on, finds it waiting past its tick.
    feeder.advanceTo(schedule.deadlineMs(9));
    expect(pipeline.disk('raft', feeder.known)?.waitingMs).toBe(600);
  });

  it('once stopped, tells no tick and no record', () => {
    const { feeder, told, begun } = feederOf(['raft']);
    feeder.stop();
    feeder.feed(schedule.deadlineMs(5), [timed('raft', 1, 1)]);
    feeder.advanceTo(schedule.deadlineMs(9));
    expect([begun, told.inspections]).toEqual([[], []]);
  });

  it('a check waiting for the next batch goes on once it is fed, or after its wait', async () => {
    vi.useFakeTimers();
    const { feeder } = feederOf(['raft']);
    let done = false;
    const waited = feeder.nextBatch(200).then(() => (done = true));
    feeder.fed();
    await waited;
    expect(done).toBe(true);
    let late = false;
    const timedOut = feeder.nextBatch(200).then(() => (late = true));
    await vi.advanceTimersByTimeAsync(199);
    expect(late).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await timedOut;
    expect(late).toBe(true);
  });
});
