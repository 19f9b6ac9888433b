// `slowdisk replay` as a user and a fault-injection script meet it: run in-process, and the
// built bin as a child process where a trace comes on stdin. (A day's replay, timed, is in
// test/e2e/replay-speed.test.ts.)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { BIN, type CliResult } from '../helpers/run-cli.js';
import { shownScore } from '../../src/score/store-score.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-replay-cli-'));

afterAll(() => rmSync(work, { recursive: true, force: true }));

let traces = 0;
/** Writes trace lines, given as objects or raw text, to a new file. */
function traceFile(lines: (object | string)[]): string {
  traces += 1;
  const file = path.join(work, `trace-${traces}.jsonl`);
  writeFileSync(file, lines.map((line) => `${typeof line === 'string' ? line : JSON.stringify(line)}\n`).join(''));
  return file;
}

function runWithStdin(args: string[], input: string): Promise<CliResult> {
  const started = performance.now();
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(input);
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, elapsedMs: performance.now() - started }));
  });
}

const header = (disks: string[], extra: object = {}) => ({ slowdisk_trace: 1, interval_ms: 100, disks, ...extra });

function run(disk: string, from: number, to: number, ms: (tick: number) => number = () => 1): object[] {
  return Array.from({ length: to - from + 1 }, (_, i) => ({ tick: from + i, disk, ms: ms(from + i) }));
}

/** raft's inspection of tick 1 hangs for 21.05 s; every later one takes 1 ms. */
const hangThenRecovery = () => [header(['raft']), { tick: 1, disk: 'raft', ms: 21_050 }, ...run('raft', 212, 210 + 30 * 101)];

function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const storeScores = (stdout: string) => jsonLines(stdout).filter((line) => 'store_score' in line);

describe('slowdisk replay', () => {
  it('prints the timeline: a line per round, the thresholds first reached, the recovery, the verdict', async () => {
    const file = traceFile(hangThenRecovery());
    const result = await runInProcess(['replay', file]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines[0]).toBe(`${file}: interval 100ms, timeout 100ms, 30-tick rounds, ratio 0.1, min TTR 5m, slow at 80, evict at 100`);
    expect(lines.slice(1, 11)).toEqual([
      '3.0s tick 30 store 2 (2.00) | raft 2.00 stat warming up slow: unknown predict warming up',
      '6.0s tick 60 store 4 (4.00) | raft 4.00 stat warming up slow: unknown predict warming up',
      '9.0s tick 90 store 8 (8.00) | raft 8.00 stat warming up slow: unknown predict warming up',
      '12.0s tick 120 store 16 (16.00) | raft 16.00 stat warming up slow: unknown predict warming up',
      '15.0s tick 150 store 32 (32.00) | raft 32.00 stat warming up slow: unknown predict warming up',
      '18.0s tick 180 store 64 (64.00) | raft 64.00 stat warming up slow: unknown predict warming up',
      '21.0s tick 210 store 100 (100) | raft 100 stat warming up slow: unknown predict warming up',
      '21.0s tick 210: slow threshold 80 first reached',
      '21.0s tick 210: eviction threshold 100 first reached',
      '24.0s tick 240 store 100 (100) | raft 100 stat warming up slow: unknown predict warming up',
    ]);
    expect(lines).toContain('27.0s tick 270 store 99 (99.00) | raft 99.00 stat warming up predict warming up');
    expect(lines).toContain('321.0s tick 3210: recovered to 1 (peak 100)');
    expect(lines.at(-1)).toBe('CRITICAL: max reported store score 100 over 3240 ticks (324.0s); slow at 80, evict at 100');
    // Not a terminal: no spinner, no escape codes.
    expect(result.stdout).not.toMatch(/\x1b/);
  });

  it('--json prints each disk score cut to two decimals and the store score at every update; reads stdin with -', async () => {
    // kv times out at ticks 5 and 6 of round 1 (29 samples); raft never answers after tick 30.
    const lines = [header(['raft', 'kv']), ...run('raft', 1, 30).flatMap((line, i) => [line, { tick: i + 1, disk: 'kv', ms: i === 4 || i === 5 ? 120 : 2 }]), { tick: 60 }];
    const input = lines.map((line) => `${JSON.stringify(line)}\n`).join('');
    const result = await runWithStdin(['replay', '-', '--json'], input);
    expect(result.stderr).toBe('');
    // 1 + 2 / 29 / 0.1 = 1.6896..., then twice that.
    // the trace format's keys (docs/record-and-replay.md); more may follow.
    expect(jsonLines(result.stdout)).toMatchObject([
      { tick: 30, disk: 'raft', score: 1 },
      { tick: 30, disk: 'kv', score: 1.68 },
      { tick: 30, store_score: 1.68, evict: false },
      { tick: 60, disk: 'raft', score: 2 },
      { tick: 60, disk: 'kv', score: 3.37 },
      { tick: 60, store_score: 3.37, evict: false },
    ]);
    expect(result.stdout).toContain(`"score":1.68,`);
    // raft timing out on every tick of round 2, half the trace: rising, WARNING as check says.
    expect(result.code).toBe(1);
  });

  describe('block devices a trace recorded', () => {
    const device = (tick: number, name: string, majorMinor: string, role: string, stalled: boolean, more: object = {}) => ({
      tick,
      device: name,
      major_minor: majorMinor,
      disks: ['raft'],
      role,
      r_iops: 0,
      w_iops: stalled ? 0 : 40,
      f_iops: stalled ? 0 : 10,
      r_ms: null,
      w_ms: stalled ? null : 0.25,
      f_ms: stalled ? null : 0.5,
      in_flight: stalled ? 1 : 0,
      avg_in_flight: stalled ? 1 : 0.01,
      util: stalled ? 1 : 0.01,
      stalled,
      t: 1_700_000_000_000 + tick * 100,
      ...more,
    });
    // The media under loop3 hangs in the second round: raft's inspections wait from tick 45 on.
    // As the recorder writes them: a round's devices as it closes, before later results.
    const lines = [
      header(['raft'], { block_devices: { raft: ['loop3', 'nvme0n1'] } }),
      ...run('raft', 1, 30),
      device(30, 'loop3', '7:3', 'filesystem', false),
      device(30, 'nvme0n1', '259:0', 'backing', false),
      ...run('raft', 31, 44),
      device(60, 'loop3', '7:3', 'filesystem', true),
      device(60, 'nvme0n1', '259:0', 'backing', false, { w_iops: 0, f_iops: 0, w_ms: null, f_ms: null }),
      { tick: 60 },
    ];

    it('show on the round line as watch shows them; --verbose adds a line per device', async () => {
      const file = traceFile(lines);
      const plain = await runInProcess(['replay', file]);
      expect(plain.stderr).toBe('');
      const rounds = plain.stdout.split('\n').filter((line) => /^\d+\.\ds tick/.test(line));
      expect(rounds).toEqual(['3.0s tick 30 store 1 (1.00) | raft 1.00 stat warming up predict warming up on loop3,nvme0n1', '6.0s tick 60 store 2 (2.00) | raft 2.00 stat warming up slow: device predict warming up on loop3,nvme0n1 STALLED loop3']);
      const verbose = await runInProcess(['replay', file, '--verbose']);
      expect(verbose.stdout.split('\n').slice(1, 7)).toEqual([
        rounds[0],
        '  loop3 (raft): read 0/s, write 40/s 0.25ms, flush 10/s 0.50ms, in flight 0, util 1%',
        '  nvme0n1 (raft): read 0/s, write 40/s 0.25ms, flush 10/s 0.50ms, in flight 0, util 1%',
        rounds[1],
        '  loop3 (raft): read 0/s, write 0/s, flush 0/s, in flight 1, util 100% STALLED',
        '  nvme0n1 (raft): read 0/s, write 0/s, flush 0/s, in flight 0, util 1%',
      ]);
    });

    it('--json gives a "device" line per device per update, with the keys of the trace', async () => {
      const result = await runInProcess(['replay', traceFile(lines), '--json']);
      const json = jsonLines(result.stdout);
      expect(json.filter((line) => line.type === 'disk').map((line) => [line.block_devices, line.stalled_devices])).toEqual([
        [['loop3', 'nvme0n1'], []],
        [['loop3', 'nvme0n1'], ['loop3']],
      ]);
      // Slow in the second round only, its own device stalled under it.
      expect(json.filter((line) => line.type === 'disk').map((line) => line.cause)).toEqual([undefined, 'device']);
      const { t: _, ...recorded } = lines[47] as Record<string, unknown>;
      expect(json.filter((line) => line.type === 'device')[2]).toEqual({ type: 'device', elapsed_seconds: 6, ...recorded });
      expect(json.map((line) => line.type)).toEqual(['disk', 'device', 'device', 'store', 'disk', 'device', 'device', 'store']);
    });
  });

  it('exits as check would for the same scores: 0, 1 or 2', async () => {
    const hangTo = (tick: number) => traceFile([header(['raft']), { tick }]);
    // 15 s with no result: score 16, yet hung from 5 s, as check would have said.
    expect((await runInProcess(['replay', hangTo(150)])).code).toBe(1);
    // Not hung before 20 s, but timing out on every tick: rising, WARNING all the same.
    expect((await runInProcess(['replay', hangTo(150), '--hang-after', '20s'])).code).toBe(1);
    expect((await runInProcess(['replay', hangTo(180), '--slow-threshold', '60'])).code).toBe(1);
    const critical = await runInProcess(['replay', hangTo(210), '--json']);
    expect(critical.code).toBe(2);
    expect(storeScores(critical.stdout).at(-1)).toMatchObject({ tick: 210, store_score: 100, evict: true });
  });

  it('a disk hung in the trace makes the verdict WARNING, from --hang-after, the flag or the header (as recorded)', async () => {
    // One inspection of 6 s from tick 10, then healthy ones: hung from tick 60, at score 2;
    // its 60 timeouts, 7 % of the trace's ticks, do not make it rising.
    const long = traceFile([header(['kv']), ...run('kv', 1, 9), { tick: 10, disk: 'kv', ms: 6000 }, ...run('kv', 71, 900)]);
    expect((await runInProcess(['replay', long])).code).toBe(1);
    expect((await runInProcess(['replay', long, '--hang-after', '6.5s'])).code).toBe(0);
    const recorded = traceFile([header(['kv'], { hang_after_ms: 7000 }), ...run('kv', 1, 9), { tick: 10, disk: 'kv', ms: 6000 }, ...run('kv', 71, 900)]);
    expect((await runInProcess(['replay', recorded])).code).toBe(0);
    expect((await runInProcess(['replay', recorded, '--hang-after', '2s'])).code).toBe(1);
    // Inspections of up to 4.9 s each, back to back: slow, never hung, and rising (every tick
    // a timeout): WARNING for that alone, not for a hang.
    const slow = traceFile([header(['kv']), ...[1, 51, 101].map((tick) => ({ tick, disk: 'kv', ms: 4900 })), { tick: 150 }]);
    const slowResult = await runInProcess(['replay', slow, '--slow-threshold', '90', '--json']);
    expect(slowResult.code).toBe(1);
    expect(slowResult.stdout).not.toMatch(/"event":"hung"/);
  });

  it('--ticks N replays exactly N ticks', async () => {
    const file = traceFile([header(['raft']), ...run('raft', 1, 30)]);
    const longer = await runInProcess(['replay', file, '--json', '--ticks', '90']);
    expect(storeScores(longer.stdout).map((line) => line.store_score)).toEqual([1, 2, 4]);
    const shorter = await runInProcess(['replay', traceFile(hangThenRecovery()), '--ticks', '60', '--hang-after', '10s']);
    expect(shorter.stdout).toMatch(/over 60 ticks \(6\.0s\)/);
    // Not hung yet at 6 s, but timing out on every tick: rising.
    expect(shorter.code).toBe(1);
  });

  it("a scoring flag overrides the header's value; the rest come from the header", async () => {
    // Recorded with 10-tick rounds and a 200 ms interval: 150 ms inspections made it in time.
    const file = traceFile([header(['raft'], { interval_ms: 200, round_ticks: 10, timeout_ms: 200 }), ...run('raft', 1, 30, (tick) => (tick === 5 ? 150 : 1))]);
    const recorded = await runInProcess(['replay', file, '--json']);
    expect(storeScores(recorded.stdout)).toMatchObject([
      { tick: 10, store_score: 1, evict: false },
      { tick: 20, store_score: 1, evict: false },
      { tick: 30, store_score: 1, evict: false },
    ]);
    // At 100 ms the same inspection missed its tick, and the timeout follows the interval.
    const faster = await runInProcess(['replay', file, '--json', '--interval', '100ms']);
    // 1 timeout of 9 samples doubles the score; each clean 1 s round then takes 100 x 1000 / 300000 off.
    const fall = (100 * 1000) / 300_000;
    expect(storeScores(faster.stdout).map((line) => line.store_score)).toEqual([2, 2 - fall, 2 - fall - fall].map(shownScore));
    const longRounds = await runInProcess(['replay', file, '--json', '--round-ticks', '30']);
    expect(storeScores(longRounds.stdout)).toMatchObject([{ tick: 30, store_score: 1, evict: false }]);
    // A recorded timeout unlike the interval was set on purpose: it stays unless --timeout.
    const withTimeout = traceFile([header(['raft'], { timeout_ms: 50 }), ...run('raft', 1, 30, (tick) => (tick === 5 ? 70 : 1))]);
    expect(storeScores((await runInProcess(['replay', withTimeout, '--json', '--interval', '200ms'])).stdout)[0].store_score).toBe(shownScore(1 + 1 / 29 / 0.1));
    expect(storeScores((await runInProcess(['replay', withTimeout, '--json', '--timeout', '80ms'])).stdout)[0].store_score).toBe(1);
  });

  it('--plot writes an SVG chart next to the timeline', async () => {
    const plot = path.join(work, 'hang.svg');
    const result = await runInProcess(['replay', traceFile(hangThenRecovery()), '--plot', plot]);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^CRITICAL: /m);
    const svg = readFileSync(plot, 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toMatch(/<polyline data-series="score" data-disk="raft" points="[\d., ]+"/);
  });
});

describe('a bad trace: one line on stderr naming the line, exit 3', () => {
  const ok = (tick: number) => JSON.stringify({ tick, disk: 'raft', ms: 1 });
  const body = [1, 2, 3, 4, 5].map(ok);
  it.each([
    ['not JSON', [...body, ok(6), '{"tick":7,"disk":"raft","ms":1'], /line 7: not JSON: /],
    ['a line without a tick', [...body, '{"disk":"raft","ms":1}'], /line 6: no "tick": every line but the header has one$/],
    ['an inspection without a disk', [...body, '{"tick":6,"ms":1}'], /line 6: no "disk": an inspection line names its disk$/],
    ['a negative duration', [...body, '{"tick":6,"disk":"raft","ms":-3}'], /line 6: "ms" must be a duration in milliseconds, 0 or more, got -3$/],
    ['a duration that is not a number', [...body, '{"tick":6,"disk":"raft","ms":"slow"}'], /line 6: "ms" must be .* got "slow"$/],
    ['ticks out of order for one disk', [...body, ok(4)], /line 6: tick 4 of disk "raft" comes after its tick 5: each disk's lines must be in tick order$/],
    ['an unknown header version', ['{"slowdisk_trace":7}', ...body], /line 1: unknown trace version 7: this slowdisk reads version 1$/],
    ['a header not on the first line', [...body, '{"slowdisk_trace":1}'], /line 6: a header \("slowdisk_trace"\) is allowed on the first line only$/],
  ])('%s', async (_what, lines, pattern) => {
    const file = traceFile(lines);
    const result = await runInProcess(['replay', file]);
    expect(result.code).toBe(3);
    const stderr = result.stderr.trimEnd().split('\n');
    expect(stderr).toHaveLength(1);
    expect(stderr[0].startsWith(`slowdisk: ${file} line `)).toBe(true);
    expect(stderr[0]).toMatch(pattern);
  });

  it('a trace jumping from tick 1 to tick 1e15: exit 3 at once, naming the line', async () => {
    const file = traceFile([ok(1), '{"tick":1000000000000000,"disk":"raft","ms":1}', '{"tick":1000000000000001,"disk":"raft","ms":1}']);
    const result = await runInProcess(['replay', file]);
    expect(result.code).toBe(3);
    expect(result.elapsedMs).toBeLessThan(5000);
    expect(result.stderr).toMatch(new RegExp(`^slowdisk: ${file} line 2: tick 1000000000000000 is more than 864000 ticks after tick 1, .*\n$`));
  });

  it('--ticks more than a day of ticks past the last line: exit 3 at once', async () => {
    const file = traceFile([ok(1), ok(2)]);
    const result = await runInProcess(['replay', file, '--ticks', '1000000000000000', '--json']);
    expect(result.code).toBe(3);
    expect(result.elapsedMs).toBeLessThan(5000);
    expect(result.stderr).toBe(`slowdisk: ${file} ends at tick 2: --ticks 1000000000000000 would replay more than 864000 ticks past it\n`);
  });

  it('an empty trace, or a header with no tick line: exit 3 naming the file, nothing on stdout', async () => {
    const empty = traceFile([]);
    const headerOnly = traceFile([header(['raft'])]);
    for (const [file, why] of [[empty, 'is empty: no header and no tick line'], [headerOnly, 'has a header but no tick line: nothing to replay']]) {
      const result = await runInProcess(['replay', file]);
      expect(result.code).toBe(3);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`slowdisk: ${file} ${why}\n`);
    }
    const stdin = await runWithStdin(['replay', '-', '--json'], '');
    expect(stdin.code).toBe(3);
    expect(stdin.stderr).toBe('slowdisk: stdin is empty: no header and no tick line\n');
  });

  it('from stdin, the trace is named stdin', async () => {
    const result = await runWithStdin(['replay', '-'], `${ok(1)}\nnonsense\n`);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: stdin line 2: not JSON: .*\n$/);
  });

  it('a missing file: one line, exit 3', async () => {
    const missing = path.join(work, 'missing.jsonl');
    const result = await runInProcess(['replay', missing]);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`slowdisk: cannot read ${missing}: ENOENT: no such file or directory, open '${missing}'\n`);
  });

  it('thresholds from the header that contradict each other: one line, exit 3, the trace let go', async () => {
    const file = traceFile([header(['raft'], { slow_threshold: 90, evict_threshold: 80 }), ok(1)]);
    // The process's descriptors open on the trace (other files' work in this worker may hold others).
    const onTrace = () => readdirSync('/proc/self/fd').filter((fd) => readlinkOrNull(`/proc/self/fd/${fd}`) === file);
    const result = await runInProcess(['replay', file]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: --slow-threshold \(90\) is above --evict-threshold \(80\)\n$/);
    // Closed by the reader's teardown, which may finish just after the run's exit code.
    await vi.waitFor(() => expect(onTrace()).toEqual([]), { timeout: 5000 });
  });

  it('a bad flag: one line, exit 3', async () => {
    const result = await runInProcess(['replay', traceFile([header(['raft']), ok(1)]), '--ticks', '0']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: .*--ticks.*expected an integer from 1 to \d+, got '0'\n$/);
  });
});

/** Where a descriptor points, or null once it is closed. */
function readlinkOrNull(link: string): string | null {
  try {
    return readlinkSync(link);
  } catch {
    return null;
  }
}
