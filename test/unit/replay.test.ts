// The tick semantics of the slow score (docs/slow-score.md), driven end to end through traces
// (docs/record-and-replay.md).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS, SCORE_SPECS, type ScoreParams } from '../../src/score/score-params.js';
import { replayBatches, SETTLE_WINDOW_TICKS, type ReplayResult, type ScoreUpdate } from '../../src/replay/replay-engine.js';
import { headerValueOf, type TraceHeader } from '../../src/trace/trace-format.js';
import { openTrace, readTrace, TraceError, type Trace } from '../../src/trace/trace-reader.js';
import { TraceWriter } from '../../src/record/trace-writer.js';
import { recordInspection } from '../../src/record/session-recorder.js';
import { BatchFeeder } from '../../src/live/batch-feeder.js';
import { TickSchedule } from '../../src/ticks/tick-schedule.js';
import type { RoundVerdict } from '../../src/verdict/verdict-pipeline.js';
import { defaultPipeline, liveDisks, probeError } from '../helpers/live-parts.js';
import type { BatchRecord } from '../../src/probe/prober-protocol.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-replay-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const params = (overrides: Partial<ScoreParams> = {}): ScoreParams => ({ ...DEFAULT_SCORE_PARAMS, ...overrides });

/** The score's parameters a header records, as replay takes them. */
function paramsOfHeader(header: TraceHeader): Partial<ScoreParams> {
  const params: Partial<Record<keyof ScoreParams, unknown>> = {};
  for (const spec of SCORE_SPECS) {
    const value = headerValueOf(header, spec);
    if (value !== undefined) params[spec.key] = value;
  }
  return params as Partial<ScoreParams>;
}

interface Replayed {
  updates: ScoreUpdate[];
  /** The store score at each update. */
  store: number[];
  result: ReplayResult;
}

async function replayTrace(trace: Trace, overrides: Partial<ScoreParams> = {}, ticks?: number): Promise<Replayed> {
  const updates: ScoreUpdate[] = [];
  const p = params({ ...(trace.header ? paramsOfHeader(trace.header) : {}), ...overrides });
  const result = await replayBatches(trace.batches, { params: p, disks: trace.header?.disks, ticks }, { update: (u) => updates.push(u) });
  return { updates, store: updates.map((u) => u.storeScore), result };
}

/** Replays trace lines given as objects, one JSON line each. */
async function replay(lines: object[], overrides: Partial<ScoreParams> = {}, ticks?: number): Promise<Replayed> {
  const text = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
  return replayTrace(await readTrace(Readable.from(text), 'test.jsonl'), overrides, ticks);
}

const header = (disks: string[], extra: object = {}) => ({ slowdisk_trace: 1, interval_ms: 100, disks, ...extra });

/** Lines for ticks from..to of one disk, each taking `ms(tick)` (null: no line). */
function run(disk: string, from: number, to: number, ms: (tick: number) => number | null = () => 1): object[] {
  const lines: object[] = [];
  for (let tick = from; tick <= to; tick += 1) {
    const duration = ms(tick);
    if (duration !== null) lines.push({ tick, disk, ms: duration });
  }
  return lines;
}

describe('a hang', () => {
  it('a disk that never answers doubles every round and reaches 100 at tick 210 (21 s), no sooner', async () => {
    const { updates, result } = await replay([header(['raft']), { tick: 210 }]);
    expect(updates.map((u) => [u.tick, u.storeScore])).toEqual([
      [30, 2],
      [60, 4],
      [90, 8],
      [120, 16],
      [150, 32],
      [180, 64],
      [210, 100],
    ]);
    expect(updates.map((u) => u.timeMs)).toEqual([3000, 6000, 9000, 12000, 15000, 18000, 21000]);
    expect(updates[5].severity).toBe('ok');
    expect(updates[6].severity).toBe('evict');
    expect(result.verdict.severity).toBe('evict');
    expect(result.ticks).toBe(210);
  });

  it('recovers from 100 by exactly 1.0 per 3 s round, to exactly 1', async () => {
    // The inspection of tick 1 hangs for 21.05 s and returns during tick 211; the next starts at 212.
    const { store } = await replay([header(['raft']), { tick: 1, disk: 'raft', ms: 21_050 }, ...run('raft', 212, 210 + 30 * 101)]);
    expect(store.slice(0, 8)).toEqual([2, 4, 8, 16, 32, 64, 100, 100]);
    const recovery = store.slice(8);
    expect(recovery.slice(0, 3)).toEqual([99, 98, 97]);
    expect(recovery.indexOf(1)).toBe(98);
    expect(recovery.every((score, i) => score === Math.max(1, 99 - i))).toBe(true);
  });
});

describe('rounds', () => {
  it('the first round holds the 29 samples of ticks 1..29', async () => {
    // One timeout among 29 samples: 1 x (1 + (1/29) / 0.1).
    const early = await replay([header(['raft']), ...run('raft', 1, 30, (tick) => (tick === 29 ? 150 : 1))]);
    expect(early.store).toEqual([1 + 1 / 29 / 0.1]);
    // A timeout at tick 30 is charged at tick 31: round 2.
    const late = await replay([header(['raft']), ...run('raft', 1, 60, (tick) => (tick === 30 ? 150 : 1))]);
    expect(late.store).toEqual([1, 1 + 1 / 30 / 0.1]);
  });

  it('a round with 3 timeouts of 30 doubles the score', async () => {
    const { store } = await replay([header(['raft']), ...run('raft', 1, 60, (tick) => ([35, 40, 45].includes(tick) ? 150 : 1))]);
    expect(store).toEqual([1, 2]);
  });

  it('a round with 3 of 60 timeouts multiplies by 1.5; counted at their tick when under the interval', async () => {
    // Rounds of 60 ticks; a 70 ms inspection under a 50 ms timeout is a timeout counted at its own tick.
    const { store } = await replay([header(['raft'], { round_ticks: 60, timeout_ms: 50 }), ...run('raft', 1, 120, (tick) => ([61, 62, 119].includes(tick) ? 70 : 1))]);
    expect(store).toEqual([1, 1.5]);
  });
});

describe('durations around the interval', () => {
  it('under the interval counts at its tick; at or over it is charged at the next tick, once', async () => {
    const at = (ms: number) => replay([header(['raft']), ...run('raft', 1, 60, (tick) => (tick === 29 ? ms : 1))]);
    expect((await at(99.999)).store).toEqual([1, 1]);
    expect((await at(100)).store).toEqual([1 + 1 / 29 / 0.1, 1]);
    expect((await at(100.001)).store).toEqual([1 + 1 / 29 / 0.1, 1]);
  });

  it('an inspection that spans ticks: the ticks it spans have no line, and each is a timeout', async () => {
    // Tick 5 takes 250 ms: no inspection starts at 6 or 7; ticks 5, 6 and 7 are charged.
    // (60-tick rounds, so that 3 timeouts stay under the ratio threshold.)
    const lines = run('raft', 1, 60, (tick) => (tick === 5 ? 250 : tick === 6 || tick === 7 ? null : 1));
    const { store } = await replay([header(['raft'], { round_ticks: 60 }), ...lines]);
    expect(store).toEqual([1 + 3 / 59 / 0.1]);
  });

  it('with a longer timeout, a duration over the interval is still charged: it missed its tick', async () => {
    const { store } = await replay([header(['raft']), ...run('raft', 1, 30, (tick) => (tick === 5 ? 150 : 1))], { timeoutMs: 200 });
    expect(store).toEqual([1 + 1 / 29 / 0.1]);
  });
});

describe('error and late lines', () => {
  it('an error line is charged as a timeout at the next tick', async () => {
    const lines = run('raft', 1, 30, (tick) => (tick === 7 ? null : 1));
    lines.splice(6, 0, { tick: 7, disk: 'raft', error: 'EIO' });
    expect((await replay([header(['raft']), ...lines])).store).toEqual([1 + 1 / 29 / 0.1]);
  });

  it('a late line under the interval is charged; the same line on time counts', async () => {
    const lines = (late: boolean) => run('raft', 1, 30).map((line) => ((line as { tick: number }).tick === 12 ? { ...line, ms: 2, late } : line));
    expect((await replay([header(['raft']), ...lines(true)])).store).toEqual([1 + 1 / 29 / 0.1]);
    expect((await replay([header(['raft']), ...lines(false)])).store).toEqual([1]);
  });
});

describe('the length of a replay', () => {
  it('runs to the largest tick on any line, a clock line included', async () => {
    const { result, store } = await replay([header(['raft']), ...run('raft', 1, 29), { tick: 60 }]);
    // Ticks 30..59 have no line: 30 timeouts of 30.
    expect(result.ticks).toBe(60);
    expect(store).toEqual([1, 2]);
  });

  it('ticks: N replays exactly N ticks, past the end of the trace as timeouts', async () => {
    const short = await replay([header(['raft']), ...run('raft', 1, 90)], {}, 45);
    expect(short.result.ticks).toBe(45);
    expect(short.store).toEqual([1]);
    const long = await replay([header(['raft']), ...run('raft', 1, 30)], {}, 60);
    expect(long.result.ticks).toBe(60);
    expect(long.store).toEqual([1, 2]);
  });
});

describe('parameters', () => {
  it("the header's parameters are read back; a timeout equal to the interval follows the interval", () => {
    expect(paramsOfHeader({ slowdisk_trace: 1, interval_ms: 200, round_ticks: 10, timeout_ms: 200, min_ttr_ms: 60_000 })).toEqual({
      intervalMs: 200,
      roundTicks: 10,
      minTtrMs: 60_000,
    });
    expect(paramsOfHeader({ slowdisk_trace: 1, timeout_ms: 50 })).toEqual({ timeoutMs: 50 });
    expect(paramsOfHeader({ slowdisk_trace: 1, timeout_ms: 100 })).toEqual({});
  });

  it('a longer interval turns a slow inspection into a counted one', async () => {
    const lines = [header(['raft']), ...run('raft', 1, 60, (tick) => (tick % 10 === 0 ? 150 : 1))];
    // Round 1: ticks 10 and 20 of 29; round 2: ticks 30, 40 and 50 of 30, which doubles.
    expect((await replay(lines)).store).toEqual([1 + 2 / 29 / 0.1, (1 + 2 / 29 / 0.1) * 2]);
    expect((await replay(lines, { intervalMs: 200, timeoutMs: 200 })).store).toEqual([1, 1]);
  });
});

describe('two disks', () => {
  it('scores each disk on its own; the store takes the worst', async () => {
    const { updates } = await replay([header(['raft', 'kv']), ...run('raft', 1, 60), { tick: 60 }]);
    expect(updates.map((u) => [...u.scores])).toEqual([
      [
        ['raft', 1],
        ['kv', 2],
      ],
      [
        ['raft', 1],
        ['kv', 4],
      ],
    ]);
    expect(updates.map((u) => u.storeScore)).toEqual([2, 4]);
  });

  it('without a header, the disks are those named in the lines, in order of first appearance', async () => {
    const { result, updates } = await replay([...run('kv', 1, 2), ...run('raft', 1, 30, (tick) => (tick === 3 ? null : 1)), ...run('kv', 3, 30)]);
    expect(result.disks).toEqual(['kv', 'raft']);
    expect([...updates[0].scores]).toEqual([
      ['kv', 1],
      ['raft', 1 + 1 / 29 / 0.1],
    ]);
  });

  it('lines of one disk may come after later ticks of another, as the recorder writes them', async () => {
    const raft = run('raft', 1, 90, (tick) => (tick % 7 === 0 ? 120 : 1));
    const kv = run('kv', 1, 90, (tick) => (tick % 11 === 0 ? 150 : 2));
    const inOrder = [header(['raft', 'kv']), ...raft.flatMap((line, i) => [line, kv[i]])];
    // Each kv line comes after raft's lines of the next three ticks.
    const kvLate = [header(['raft', 'kv']), ...raft.flatMap((line, i) => (i >= 3 ? [line, kv[i - 3]] : [line])), ...kv.slice(-3)];
    expect(kvLate).toHaveLength(inOrder.length);
    const expected = await replay(inOrder);
    expect(expected.store.length).toBe(3);
    expect((await replay(kvLate)).updates).toEqual(expected.updates);
  });
});

describe('the settle window', () => {
  it('a disk hung for longer than the window: replay goes on, and its late line is charged', async () => {
    const hangTicks = SETTLE_WINDOW_TICKS + 3000;
    const lines: object[] = [header(['raft', 'kv']), { tick: 1, disk: 'kv', ms: 1 }];
    for (let tick = 1; tick <= hangTicks + 10; tick += 1) {
      lines.push({ tick, disk: 'raft', ms: 1 });
      // kv's inspection of tick 2 returns after the hang, when raft is far ahead.
      if (tick === hangTicks) lines.push({ tick: 2, disk: 'kv', ms: hangTicks * 100 });
    }
    const { store, result } = await replay(lines);
    expect(result.ticks).toBe(hangTicks + 10);
    expect(store.slice(0, 7)).toEqual([2, 4, 8, 16, 32, 64, 100]);
    expect(store.at(-1)).toBe(100);
  });

  it('a line that would count but comes after its tick was replayed is an error naming its line', async () => {
    const lines: object[] = [header(['raft', 'kv'])];
    for (let tick = 1; tick <= SETTLE_WINDOW_TICKS + 5; tick += 1) lines.push({ tick, disk: 'raft', ms: 1 });
    lines.push({ tick: 1, disk: 'kv', ms: 1 });
    const error = await replay(lines).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TraceError);
    expect((error as TraceError).line).toBe(SETTLE_WINDOW_TICKS + 7);
    expect((error as TraceError).message).toMatch(/tick 1 of disk "kv" comes after tick 36005.*would count/);
  });

  it('without a header, a disk first named after the window ran out is an error', async () => {
    const lines: object[] = [];
    for (let tick = 1; tick <= SETTLE_WINDOW_TICKS + 5; tick += 1) lines.push({ tick, disk: 'raft', ms: 1 });
    lines.push({ tick: SETTLE_WINDOW_TICKS + 5, disk: 'kv', ms: 1 });
    await expect(replay(lines)).rejects.toThrow(/line 36006: disk "kv" is first named after tick 5 was replayed; list every disk in the header/);
  });
});

/**
 * A live run on a virtual clock: the prober's records, as its threads make them (one
 * inspection in flight per disk, started at each tick its previous one had come back by,
 * a little after the tick's deadline), cut into batches a second apart, fed to the live
 * session's own feeder and disks (src/live/), which record every inspection to a trace as
 * `--record` does. Returns the rounds the live pipeline closed.
 */
async function liveRecording(file: string, ticks: number): Promise<RoundVerdict[]> {
  const p = params();
  const disks = ['raft', 'kv'];
  const pipeline = defaultPipeline(p);
  const writer = await TraceWriter.open(file, { params: p, disks, tool: 'slowdisk test' });
  const { disks: placed, told } = liveDisks(pipeline, disks, (record) => recordInspection(writer, record));
  const rounds: RoundVerdict[] = [];
  const feeder = new BatchFeeder(pipeline, placed, {
    tickBegins: () => {},
    roundDevices: () => undefined,
    round: (round) => rounds.push(round),
    resolved: () => {},
    listening: () => true,
  });
  // Any start will do: the prober's clock is CLOCK_MONOTONIC, the trace's ticks k x interval.
  const schedule = new TickSchedule(7_331.25, p.intervalMs, p.roundTicks);
  feeder.start(schedule);

  let seed = 42;
  const random = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const records: { atMs: number; record: BatchRecord }[] = [];
  const backAt = new Map(disks.map((disk) => [disk, 0]));
  for (let k = 1; k <= ticks; k += 1) {
    const deadline = schedule.deadlineMs(k);
    for (const disk of disks) {
      if (backAt.get(disk)! > deadline) continue;
      const { ms, delay, kind } = inspectionOf(random(), k > ticks / 3 && k < ticks / 2 ? 5 : 1);
      const startedMs = deadline + delay;
      const atMs = startedMs + (ms ?? 3);
      backAt.set(disk, atMs);
      const record: BatchRecord =
        kind === 'failed'
          ? { kind: 'inspected', name: disk, tick: k, atMs, error: probeError('EIO', disk) }
          : kind === 'lost'
            ? { kind: 'inspected', name: disk, tick: k, atMs, lost: probeError('ENAMETAKEN', disk) }
            : [disk, k, atMs, 0.01, ms! / 2, ms! / 3, ms! / 6, 0.01, ms!, startedMs];
      records.push({ atMs, record });
    }
  }
  records.sort((a, b) => a.atMs - b.atMs);
  // Batches as the prober flushes them: each covers what was recorded by its time.
  let next = 0;
  for (let coveredMs = schedule.nextFlushMs(schedule.startMs); next < records.length || coveredMs <= schedule.deadlineMs(ticks); coveredMs += schedule.flushPeriodMs) {
    const covered = Math.min(coveredMs, schedule.deadlineMs(ticks));
    const batch: BatchRecord[] = [];
    while (next < records.length && records[next]!.atMs <= covered) batch.push(records[next++]!.record);
    feeder.feed(covered, batch);
    if (covered === schedule.deadlineMs(ticks)) break;
  }
  expect(told.fatal).toEqual([]);
  writer.clock(pipeline.currentTick);
  await writer.close();
  return rounds;
}

/**
 * Mostly fast inspections; with a share of `trouble` times 0.2 % each: one just under the interval
 * (microsecond rounding must not push it over), one under it that started late enough to come
 * back after its tick (late), one over it, one hanging for seconds, one failing, one whose
 * probe file's name was taken (neither counted nor charged).
 */
function inspectionOf(roll: number, trouble: number): { ms: number | null; delay: number; kind?: 'failed' | 'lost' } {
  const share = 0.002 * trouble;
  const kinds: { ms: number | null; delay: number; kind?: 'failed' | 'lost' }[] = [
    { ms: 99.9996, delay: 0 },
    { ms: 90, delay: 25 },
    { ms: 150, delay: 0.2 },
    { ms: 1500, delay: 0.2 },
    { ms: null, delay: 0.2, kind: 'failed' },
    { ms: null, delay: 0.2, kind: 'lost' },
  ];
  const kind = Math.floor((1 - roll) / share);
  return kind < kinds.length ? kinds[kind]! : { ms: 0.5 + roll * 5, delay: 0.2 };
}

describe('record and replay', () => {
  it('a replay of a recorded trace gives exactly the live timeline', async () => {
    const file = path.join(work, 'live.jsonl');
    const live = await liveRecording(file, 6000);
    const replayed = await replayTrace(await openTrace(file));
    expect(replayed.updates).toEqual(live);
    // The scores moved both ways without sticking at a bound, so that every kind of line shows.
    const scores = live.flatMap((round) => [...round.scores.values()]);
    expect(scores.filter((score) => score > 1 && score < 100 && !Number.isInteger(score)).length).toBeGreaterThan(30);
    expect(Math.max(...scores)).toBeGreaterThan(10);
  });
});
