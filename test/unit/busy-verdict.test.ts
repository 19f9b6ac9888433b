// A disk slow because others' I/O keeps its device busy, or because its prober waited for a
// CPU, reaches TiKV's eviction threshold as TiKV would, and is held there: the verdict is WARNING, the store's acted score leaves it out,
// the evict event is still told. A hang, a device of its own serving slowly, or --busy critical
// make the same score CRITICAL.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import type { DeviceFigures } from '../../src/kernel/device-counters.js';
import { deviceRound } from '../helpers/device-round.js';
import { predictorParams } from '../../src/early-warning/predictor-params.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { statisticalParams } from '../../src/detectors/statistical-params.js';
import { EXIT_CRITICAL, EXIT_WARNING } from '../../src/verdict/exit-codes.js';
import { VerdictPipeline, type PipelineParams, type RoundVerdict } from '../../src/verdict/verdict-pipeline.js';
import { busyNotes } from '../../src/verdict/busy-verdict.js';
import { RunVerdict } from '../../src/verdict/run-verdict.js';
import { checkSummary } from '../../src/formats/check-summary.js';
import { nagiosLine } from '../../src/formats/nagios.js';
import type { DiskStatus } from '../../src/live/session-events.js';

const score = DEFAULT_SCORE_PARAMS;
const I = score.intervalMs;

/** A loop device's round under one disk. */
const device = (name: string, disk: string, more: Partial<DeviceFigures> = {}) => deviceRound(name, [disk], more);

const LOADED: Partial<DeviceFigures> = { writeIops: 1000, writeLatencyMs: 6, averageQueueDepth: 7, utilisation: 0.97 };
const SLOW: Partial<DeviceFigures> = { writeIops: 13, flushIops: 3, writeLatencyMs: 200, flushLatencyMs: 250, utilisation: 1 };

/**
 * raft healthy throughout; kv healthy for 10 s, then to the last of `ticks` (400: 30 s) every
 * inspection takes 150 ms (a timeout at 100 ms ticks) while its loop device looks `kvDevice`,
 * or no inspection of it comes back at all (`hang`); of the 150 ms (or `kvMs`), the probe
 * thread waited `kvWaitMs` for a CPU, and `kvStartWaitMs` before it; `kvLate`: each came
 * back after its tick ended; `kvSilentEvery`: every so many rounds, none of kv's came back
 * in the round.
 */
function run(
  kvDevice: Partial<DeviceFigures>,
  options: Partial<PipelineParams> & { hang?: boolean; kvError?: string; kvMs?: number; kvWaitMs?: number; kvStartWaitMs?: number; kvLate?: boolean; kvSilentEvery?: number; ticks?: number } = {},
) {
  const { kvMs = 150, kvWaitMs = 0, kvStartWaitMs = 0.01, kvLate = false, kvSilentEvery = 0, ticks = 400, hang, kvError, ...params } = options;
  const pipeline = new VerdictPipeline({
    score,
    statistical: statisticalParams({ failureLatencyMs: score.timeoutMs }),
    predictor: predictorParams({ timeoutMs: score.timeoutMs }),
    criticalOn: 'evict',
    hangAfterMs: 5000,
    busy: 'warning',
    ...params,
  });
  pipeline.disks(['raft', 'kv']);
  const rounds: RoundVerdict[] = [];
  const slowFrom = 100;
  // The prober reads the waits for a CPU before and after every inspection.
  const waitsRead = (waitMs: number, startWaitMs: number) => ({ waitMs, startWaitMs });
  for (let tick = 1; tick <= ticks; tick += 1) {
    const slow = tick > slowFrom;
    pipeline.tick({ tick, atMs: tick * I });
    const round = pipeline.devices({ tick, devices: [device('loop0', 'raft'), device('loop1', 'kv', slow ? kvDevice : {})] });
    if (round) rounds.push(round);
    pipeline.inspection({ tick, disk: 'raft', ms: 0.1, ...waitsRead(0.01, 0.01), atMs: tick * I + 1 });
    if (slow && hang) continue;
    if (slow && kvError) {
      pipeline.inspection({ tick, disk: 'kv', ms: null, error: kvError, atMs: tick * I + 1 });
      continue;
    }
    // Every kvSilentEvery-th round of the slow stretch, nothing of kv comes back in it.
    if (slow && kvSilentEvery > 0 && Math.floor(tick / score.roundTicks) % kvSilentEvery === 0) continue;
    const ms = slow ? kvMs : 0.1;
    const waits = slow ? waitsRead(kvWaitMs, kvStartWaitMs) : waitsRead(0.01, 0.01);
    pipeline.inspection({ tick, disk: 'kv', ms, ...waits, late: slow && kvLate, atMs: tick * I + ms });
  }
  const last = rounds.at(-1)!;
  return { rounds, last, exitCode: pipeline.exitCode(), kv: pipeline.disk('kv', ticks * I)! };
}

describe('a busy disk at the eviction threshold', () => {
  it("others' I/O on its device: score 100 and the evict event as in TiKV, but WARNING, held, its acted score 1", () => {
    const { rounds, last, exitCode, kv } = run(LOADED);
    expect(last.storeScore).toBe(100);
    expect(rounds.flatMap((round) => round.crossings.map((crossing) => crossing.event))).toContain('evict');
    expect(last.causes.get('kv')).toBe('load');
    expect(last.held).toEqual(new Map([['kv', 'load']]));
    expect(last.actedScore).toBe(1);
    expect(last.severity).toBe('slow');
    expect(rounds.every((round) => round.severity !== 'evict')).toBe(true);
    expect(exitCode).toBe(EXIT_WARNING);
    expect(kv.held).toBe('load');
    expect(busyNotes([{ name: 'raft' }, { name: 'kv', held: kv.held }])).toBe('busy, not evicted: kv (load)');
  });

  it('--busy critical: the score alone decides, CRITICAL as in TiKV, nothing held', () => {
    const { last, exitCode, kv } = run(LOADED, { busy: 'critical' });
    expect(last.storeScore).toBe(100);
    expect(last.causes.get('kv')).toBe('load');
    expect(last.held.size).toBe(0);
    expect(last.actedScore).toBe(100);
    expect(last.severity).toBe('evict');
    expect(exitCode).toBe(EXIT_CRITICAL);
    expect(kv.held).toBeUndefined();
  });

  it('its own device serving slowly at a third of its usual rate: CRITICAL, nothing held', () => {
    const { last, exitCode } = run(SLOW);
    expect(last.causes.get('kv')).toBe('device');
    expect(last.held.size).toBe(0);
    expect(last.severity).toBe('evict');
    expect(exitCode).toBe(EXIT_CRITICAL);
  });

  it('its prober waiting for a CPU for most of each inspection, the devices as usual: cpu, held, WARNING', () => {
    const { rounds, last, exitCode, kv } = run({}, { kvWaitMs: 140 });
    expect(last.storeScore).toBe(100);
    expect(rounds.filter((round) => round.causes.size > 0).map((round) => round.causes.get('kv'))).toEqual(rounds.filter((round) => round.causes.size > 0).map(() => 'cpu'));
    expect(last.held).toEqual(new Map([['kv', 'cpu']]));
    expect(last.severity).toBe('slow');
    expect(exitCode).toBe(EXIT_WARNING);
    expect(busyNotes([{ name: 'kv', held: kv.held }])).toBe('busy, not evicted: kv (cpu)');
  });

  it("others' I/O on its device that keeps the CPUs busy too, its prober waiting for one: load, held", () => {
    const { last, exitCode } = run(LOADED, { kvWaitMs: 140 });
    expect(last.causes.get('kv')).toBe('load');
    expect(last.held).toEqual(new Map([['kv', 'load']]));
    expect(exitCode).toBe(EXIT_WARNING);
  });

  it('a round in which nothing of the starved disk came back says nothing new: the hold stays', () => {
    const { rounds, last, exitCode } = run({}, { kvWaitMs: 140, kvSilentEvery: 3 });
    expect(rounds.some((round) => round.causes.get('kv') === 'unknown')).toBe(true);
    expect(last.storeScore).toBe(100);
    expect(rounds.filter((round) => round.storeScore === 100).every((round) => round.held.get('kv') === 'cpu')).toBe(true);
    expect(exitCode).toBe(EXIT_WARNING);
  });

  it('ticks answered after their end because the probe thread woke late for want of a CPU: cpu, held', () => {
    const { last, exitCode } = run({}, { kvMs: 1, kvWaitMs: 0, kvStartWaitMs: 120, kvLate: true });
    expect(last.storeScore).toBe(100);
    expect(last.held).toEqual(new Map([['kv', 'cpu']]));
    expect(exitCode).toBe(EXIT_WARNING);
  });

  it("an I/O limit of slowdisk's cgroup on its device, used to its edge: throttle, held, WARNING", () => {
    const { last, exitCode } = run({ writeIops: 2, flushIops: 2, limitUse: 1 });
    expect(last.storeScore).toBe(100);
    expect(last.held).toEqual(new Map([['kv', 'throttle']]));
    expect(exitCode).toBe(EXIT_WARNING);
  });

  it('a timeout no inspection can beat, the thread waiting a few ms to wake: each tick slow of itself, not cpu', () => {
    const { last, exitCode } = run({}, { score: { ...score, timeoutMs: 0.001 }, kvMs: 0.3, kvWaitMs: 0.01, kvStartWaitMs: 3 });
    expect(last.storeScore).toBe(100);
    expect(last.causes.get('kv')).toBe('unknown');
    expect(last.held.size).toBe(0);
    expect(exitCode).toBe(EXIT_CRITICAL);
  });

  it('a wait for a CPU that is a small part of each inspection on a slow device: device, CRITICAL', () => {
    const { last, exitCode } = run(SLOW, { kvWaitMs: 20 });
    expect(last.causes.get('kv')).toBe('device');
    expect(last.held.size).toBe(0);
    expect(exitCode).toBe(EXIT_CRITICAL);
  });

  it('an early warning says what it is of: load on a loaded device, the device on a slow one', () => {
    // An SLA under the disk's 150 ms inspections: the predictor warns within the slow stretch.
    const predictor = predictorParams({ timeoutMs: score.timeoutMs, slaMs: 20 });
    // Two minutes of it: a probability needs four samples of 15 s.
    const loaded = run(LOADED, { predictor, ticks: 1300 });
    const warned = loaded.rounds.filter((round) => round.predictions.get('kv')?.warning);
    expect(warned.length).toBeGreaterThan(0);
    expect(warned.map((round) => round.warningOf.get('kv'))).toEqual(warned.map(() => 'load'));
    expect(loaded.kv.warningOf).toBe('load');
    const slow = run(SLOW, { predictor, ticks: 1300 });
    expect(slow.kv.prediction?.warning).toBe(true);
    expect(slow.kv.warningOf).toBe('device');
    // Never for a disk not in state warning.
    expect(loaded.rounds.filter((round) => !round.predictions.get('raft')?.warning).every((round) => !round.warningOf.has('raft'))).toBe(true);
  });

  it('hung on a loaded device, no inspection coming back: CRITICAL whatever the cause', () => {
    const { last, exitCode } = run(LOADED, { hang: true });
    expect(last.storeScore).toBe(100);
    expect(last.causes.get('kv')).toBe('load');
    expect(last.held.size).toBe(0);
    expect(last.severity).toBe('evict');
    expect(exitCode).toBe(EXIT_CRITICAL);
  });

  it('cannot be written on a loaded device: down, not slow, no cause and nothing held; CRITICAL', () => {
    const { rounds, last, exitCode } = run(LOADED, { kvError: 'EROFS' });
    expect(rounds.filter((round) => round.tick > 100).every((round) => !round.causes.has('kv'))).toBe(true);
    expect(last.held.size).toBe(0);
    expect(last.severity).toBe('evict');
    expect(exitCode).toBe(EXIT_CRITICAL);
  });
});

describe('a busy disk in replay, from a trace with its device lines', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-busy-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /**
   * 60 s of raft and kv, kv timing out from 10 s on while its loop device is loaded; a device
   * line a round (3 s). With `starved`, kv's device stays as usual and its probe thread waits
   * 140 ms of each 150 for a CPU.
   */
  function trace(starved = false): string {
    const deviceLine = (tick: number, name: string, disk: string, figures: Partial<DeviceFigures>) => {
      const d = device(name, disk, figures);
      return { tick, device: name, major_minor: name === 'loop0' ? '7:0' : '7:1', disks: d.disks, role: d.role, r_iops: d.readIops, w_iops: d.writeIops, f_iops: d.flushIops, r_ms: d.readLatencyMs, w_ms: d.writeLatencyMs, f_ms: d.flushLatencyMs, in_flight: d.inFlight, avg_in_flight: d.averageQueueDepth, util: d.utilisation, stalled: d.stalled, t: tick * I };
    };
    const lines: object[] = [{ slowdisk_trace: 1, interval_ms: I, disks: ['raft', 'kv'] }];
    for (let tick = 1; tick <= 600; tick += 1) {
      const slow = tick > 100;
      const waits = (wait: number) => ({ wait_ms: wait, start_wait_ms: 0.01 });
      lines.push({ tick, disk: 'raft', ms: 1, ...waits(0.01) }, { tick, disk: 'kv', ms: slow ? 150 : 1, ...waits(slow && starved ? 140 : 0.01) });
      if (tick % score.roundTicks === 0) lines.push(deviceLine(tick, 'loop0', 'raft', {}), deviceLine(tick, 'loop1', 'kv', slow && !starved ? LOADED : {}));
    }
    const file = path.join(work, starved ? 'starved.jsonl' : 'busy.jsonl');
    writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    return file;
  }

  it('WARNING, exit 1, the disk held in its JSON lines and the store not evicted; --busy critical: CRITICAL, exit 2', async () => {
    const file = trace();
    const held = await runInProcess(['replay', '--json', file]);
    expect(held.stderr).toBe('');
    expect(held.code).toBe(EXIT_WARNING);
    const lines = held.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const lastKv = lines.filter((line) => line.type === 'disk' && line.disk === 'kv').at(-1)!;
    expect(lastKv).toMatchObject({ score: 100, cause: 'load', held: 'load' });
    expect(lines.filter((line) => line.type === 'store').at(-1)).toMatchObject({ reported_score: 100, evict: false, severity: 'slow' });
    expect(lines.some((line) => line.type === 'event' && line.event === 'evict')).toBe(true);

    const critical = await runInProcess(['replay', '--json', '--busy', 'critical', file]);
    expect(critical.code).toBe(EXIT_CRITICAL);
    const criticalLines = critical.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(criticalLines.filter((line) => line.type === 'disk' && line.disk === 'kv').at(-1)).not.toHaveProperty('held');
    expect(criticalLines.filter((line) => line.type === 'store').at(-1)).toMatchObject({ reported_score: 100, evict: true, severity: 'evict' });
  });

  it('a prober starved of CPU, told by the wait_ms of its inspection lines: cpu, held, exit 1', async () => {
    const held = await runInProcess(['replay', '--json', trace(true)]);
    expect(held.stderr).toBe('');
    expect(held.code).toBe(EXIT_WARNING);
    const lines = held.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const kvCauses = new Set(lines.filter((line) => line.type === 'disk' && line.disk === 'kv' && line.cause !== undefined).map((line) => line.cause));
    expect(kvCauses).toEqual(new Set(['cpu']));
    expect(lines.filter((line) => line.type === 'disk' && line.disk === 'kv').at(-1)).toMatchObject({ score: 100, cause: 'cpu', held: 'cpu' });
  });
});

describe("a busy disk in check's line", () => {
  it('WARNING, the disk busy, and why the store is not evicted; the same in the Nagios line', () => {
    const verdict = new RunVerdict(score);
    verdict.observe(100, 'slow', 1);
    const kv: DiskStatus = { name: 'kv', dir: '/data/kv', inspected: true, device: '7:1', memoryBacked: false, state: 'up', score: 100, inspections: 300, errors: 0, cause: 'load', held: 'load' };
    const outcome = { verdict, storeScore: 100, elapsedMs: 30_000, disks: [kv], summaries: new Map(), exitCode: EXIT_WARNING };
    expect(checkSummary(outcome, score, false)).toMatch(/^WARNING: store score 100 after 30\.0s \(max reported 100, slow at 80, evict at 100; busy, not evicted: kv \(load\)\) \| kv \/data\/kv score 100 busy \(load\) /);
    expect(nagiosLine(outcome, score, false)).toMatch(/^SLOWDISK WARNING - busy, not evicted: kv \(load\); store score 100 .* kv 100 busy \(load\) /);
  });

  it('a disk slow in the last round and not held says why, busy or slow, in the check line and the Nagios line', () => {
    const verdict = new RunVerdict(score);
    verdict.observe(8, 'ok', 8);
    const disk = (name: string, cause: DiskStatus['cause']): DiskStatus => ({ name, dir: `/data/${name}`, inspected: true, device: '7:1', memoryBacked: false, state: 'up', score: 8, inspections: 300, errors: 0, cause });
    const outcome = { verdict, storeScore: 8, elapsedMs: 30_000, disks: [disk('raft', 'cpu'), disk('kv', 'device')], summaries: new Map(), exitCode: 0 };
    expect(checkSummary(outcome, score, false)).toMatch(/\| raft \/data\/raft score 8\.00 up [^|]* busy: cpu [^|]*\| kv \/data\/kv score 8\.00 up [^|]* slow: device /);
    expect(nagiosLine(outcome, score, false)).toMatch(/; raft 8\.00 up busy: cpu [^,]*, kv 8\.00 up slow: device /);
  });
});
