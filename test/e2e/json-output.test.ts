// --json on check, watch and replay: JSON Lines a script can rely on, and nothing else on stdout.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { JsonLines } from '../../src/formats/json-lines.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { probeFiles, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-json-'));
afterAll(async () => {
  await removeAllTestDisks();
  rmSync(work, { recursive: true, force: true });
});

type Line = Record<string, unknown>;

/** Every line of stdout, parsed: one that is not JSON fails the test. */
function parseLines(stdout: string): Line[] {
  expect(stdout.endsWith('\n')).toBe(true);
  return stdout
    .slice(0, -1)
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
}

const ofType = (lines: Line[], type: string) => lines.filter((line) => line.type === type);

/** Every inspection a timeout, rounds of 3 ticks of 20 ms: 100 (CRITICAL) in well under a second. */
const ALWAYS_TIMING_OUT = ['--timeout', '0.001ms', '--interval', '20ms', '--round-ticks', '3'];

const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('check --json', () => {
  it('a healthy directory: disk and store lines every round, then a summary; exit 0', async () => {
    // A disk whose image is in memory: the machine's disk, busy with the rest of the suite,
    // can take past the timeout.
    const { dir } = await makeTestDisk();
    const result = await runCli(['check', '--raft', dir, '--duration', '3.5s', '--allow-short', '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const lines = parseLines(result.stdout);
    expect(lines.every((line) => ['disk', 'device', 'store', 'event', 'summary'].includes(line.type as string))).toBe(true);
    expect(lines.every((line) => ISO_TIME.test(line.time as string))).toBe(true);
    const [disk] = ofType(lines, 'disk');
    expect(disk).toMatchObject({ tick: 30, elapsed_seconds: 3, disk: 'raft', score: 1, path: dir, state: 'up', inspected: true, memory_backed: false, buffered: false, errors: 0 });
    expect(disk.fstype).toEqual(expect.any(String));
    expect(disk.mountpoint).toEqual(expect.any(String));
    expect(disk.major_minor).toMatch(/^\d+:\d+$/);
    expect(disk.inspections).toBeGreaterThan(20);
    for (const timing of ['last_open_ms', 'last_write_ms', 'last_sync_ms', 'last_read_ms', 'last_total_ms']) {
      expect(disk[timing], timing).toBeGreaterThan(0);
      expect(disk[timing], timing).toBeLessThan(100);
    }
    expect(ofType(lines, 'store')).toEqual([
      { type: 'store', time: expect.stringMatching(ISO_TIME), tick: 30, elapsed_seconds: 3, store_score: 1, reported_score: 1, evict: false, severity: 'ok' },
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', status: 'OK', exit_code: 0, severity: 'ok', store_score: 1, reported_score: 1, max_reported_score: 1, slow_threshold: 80, evict_threshold: 100 });
    expect(lines.at(-1)!.elapsed_seconds).toBeCloseTo(3.5, 0);
    expect(ofType(lines, 'summary')).toHaveLength(1);
  });

  it('CRITICAL: the thresholds reached are events of the store naming the disk, the summary says CRITICAL; exit 2', async () => {
    const dir = mkdtempSync(path.join(work, 'critical-'));
    const result = await runCli(['check', '--raft', dir, ...ALWAYS_TIMING_OUT, '--json']);
    expect(result.code).toBe(2);
    const lines = parseLines(result.stdout);
    expect(ofType(lines, 'store').map((line) => line.reported_score)).toEqual([2, 4, 8, 16, 32, 64, 100]);
    expect(ofType(lines, 'event')).toEqual([
      { type: 'event', time: expect.any(String), tick: 21, elapsed_seconds: 0.42, event: 'slow', scope: 'store', disk: 'raft', threshold: 'slow', threshold_score: 80, clear_score: 72, reported_score: 100 },
      { type: 'event', time: expect.any(String), tick: 21, elapsed_seconds: 0.42, event: 'evict', scope: 'store', disk: 'raft', threshold: 'evict', threshold_score: 100, clear_score: 90, reported_score: 100 },
    ]);
    expect(lines.at(-1)).toMatchObject({ type: 'summary', status: 'CRITICAL', exit_code: 2, severity: 'evict', max_reported_score: 100 });
  });

  it('--json with --format nagios is refused: one line, exit 3 (and, as --format nagios asks, one status line on stdout)', async () => {
    const result = await runCli(['check', '--json', '--format', 'nagios']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('SLOWDISK UNKNOWN - --json and --format nagios both say how to print the result: choose one\n');
    expect(result.stderr).toBe('slowdisk: --json and --format nagios both say how to print the result: choose one\n');
  });
});

describe('watch --json', () => {
  it('prints rounds until a signal, then stops with no summary: exit 143', async () => {
    const dir = mkdtempSync(path.join(work, 'watch-'));
    const cli = startCli(['watch', '--raft', dir, '--json', '--interval', '20ms', '--round-ticks', '5']);
    await waitFor(() => (cli.stdout().match(/"type":"store"/g) ?? []).length >= 3, 10_000, 'three rounds');
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toBe('');
    const lines = parseLines(result.stdout);
    expect(ofType(lines, 'summary')).toEqual([]);
    const stores = ofType(lines, 'store');
    expect(stores.slice(0, 3).map((line) => line.tick)).toEqual([5, 10, 15]);
    expect(stores[0].elapsed_seconds).toBe(0.1);
    // One disk line before each store line, and the block devices behind the disk between them.
    const firstRound = lines.slice(0, lines.findIndex((line) => line.type === 'store') + 1);
    expect(firstRound[0].type).toBe('disk');
    expect(firstRound.slice(1, -1).map((line) => line.type)).toEqual((firstRound[0].block_devices as string[]).map(() => 'device'));
    expect(firstRound.slice(1, -1).map((line) => line.device)).toEqual(firstRound[0].block_devices);
  });

  it('a reader that goes away (| head) ends the run quietly: exit 3, no stack trace, no probe file left', async () => {
    const dir = mkdtempSync(path.join(work, 'epipe-'));
    const cli = startCli(['watch', '--raft', dir, '--json', '--interval', '20ms', '--round-ticks', '3']);
    await waitFor(() => cli.stdout().includes('"type":"store"'), 10_000, 'the first round');
    cli.child.stdout!.destroy();
    const result = await cli.done;
    expect(result.code).toBe(3);
    expect(result.stderr).toBe('');
    expect(probeFiles(dir)).toEqual([]);
  });

  it('a fatal error is one line on stderr, and stdout holds only JSON', async () => {
    const result = await runCli(['watch', '--raft', path.join(work, 'missing'), '--json']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^slowdisk: cannot probe raft=.*ENOENT.*\n$/);
  });
});

const rootGate = requireRootFacilities(['root']);

describe.skipIf(rootGate.skip)('watch --json events', () => {
  it('a filesystem mounted over the path, filled and freed: layout, down and back events', async () => {
    const dir = mkdtempSync(path.join(work, 'events-'));
    const cli = startCli(['watch', '--raft', dir, '--json', '--keep-going']);
    try {
      await waitFor(() => cli.stdout().includes('"type":"store"'), 10_000, 'the first round');
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', dir]);
      await waitFor(() => cli.stdout().includes('"event":"layout"'), 10_000, 'the layout event');
      // Fill the filesystem: the next inspection that needs a new block fails with ENOSPC.
      execFileSync('sh', ['-c', `dd if=/dev/zero of=${dir}/fill bs=4k 2>/dev/null; true`]);
      await waitFor(() => cli.stdout().includes('"event":"down"'), 10_000, 'the down event');
      rmSync(path.join(dir, 'fill'));
      await waitFor(() => cli.stdout().includes('"event":"back"'), 10_000, 'the back event');
    } finally {
      cli.child.kill('SIGTERM');
      await cli.done;
      execFileSync('umount', ['-l', dir]);
    }
    const events = ofType(parseLines(cli.stdout()), 'event');
    expect(events.map((event) => event.event)).toEqual(['layout', 'down', 'back']);
    const [layout, down, back] = events;
    expect(layout).toMatchObject({ disks: [{ disk: 'raft', path: dir, inspected: true, fstype: 'tmpfs', mountpoint: dir, memory_backed: true }] });
    expect(down).toMatchObject({ disk: 'raft', error: { code: 'ENOSPC', syscall: 'pwrite', message: expect.stringMatching(/^ENOSPC: pwrite /) } });
    expect(back).toMatchObject({ disk: 'raft' });
    for (const event of events) expect(event.tick).toEqual(expect.any(Number));
  });
});

describe('replay --json', () => {
  it('types every line, keeps the trace format keys, and marks the thresholds reached and, a tenth under them, cleared', async () => {
    const trace = path.join(work, 'hang.jsonl');
    // raft hangs until tick 211, then answers in 1 ms: 100 at tick 210, then 1 a round lower.
    const lines = [{ slowdisk_trace: 1, interval_ms: 100, disks: ['raft'] }, { tick: 1, disk: 'raft', ms: 21_050 }];
    for (let tick = 212; tick <= 1200; tick += 1) lines.push({ tick, disk: 'raft', ms: 1 } as never);
    writeFileSync(trace, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
    const result = await runCli(['replay', trace, '--json']);
    expect(result.code).toBe(2);
    const out = parseLines(result.stdout);
    expect(out.slice(0, 2)).toEqual([
      // No verdict of the detectors yet, as live: the predictor needs 4 samples of 15 s.
      {
        type: 'disk',
        tick: 30,
        elapsed_seconds: 3,
        disk: 'raft',
        score: 2,
        statistical: null,
        tail: null,
        // Slow (a tick charged as a timeout), and a trace without device lines cannot say why.
        cause: 'unknown',
        predicted_breach_probability: null,
        warning: false,
        warning_cleared: null,
        statistical_reason: 'warming up: no step judged against a baseline yet',
        tail_reason: 'warming up: no baseline of its inspections yet',
        early_warning_reason: 'warming up: too few samples for a prediction yet',
      },
      { type: 'store', tick: 30, elapsed_seconds: 3, store_score: 2, reported_score: 2, evict: false, severity: 'ok' },
    ]);
    expect(ofType(out, 'event')).toEqual([
      { type: 'event', tick: 210, elapsed_seconds: 21, event: 'slow', scope: 'store', disk: 'raft', threshold: 'slow', threshold_score: 80, clear_score: 72, reported_score: 100 },
      { type: 'event', tick: 210, elapsed_seconds: 21, event: 'evict', scope: 'store', disk: 'raft', threshold: 'evict', threshold_score: 100, clear_score: 90, reported_score: 100 },
      { type: 'event', tick: 540, elapsed_seconds: 54, event: 'evict-cleared', scope: 'store', disk: 'raft', threshold: 'evict', threshold_score: 100, clear_score: 90, reported_score: 90 },
      { type: 'event', tick: 1080, elapsed_seconds: 108, event: 'slow-cleared', scope: 'store', disk: 'raft', threshold: 'slow', threshold_score: 80, clear_score: 72, reported_score: 72 },
    ]);
  });
});

describe('the JSON Lines formatter', () => {
  it('writes the events no test disk makes easily: stale probe files removed, a prober restarted', () => {
    const written: string[] = [];
    const live = new JsonLines(DEFAULT_SCORE_PARAMS, (lines) => written.push(lines), { now: () => 0, currentTick: () => 42, buffered: false });
    live.event({ kind: 'stale-removed', disk: 'kv', paths: ['/data/kv/.slowdisk-probe-17-0a1b2c3d'] });
    live.event({ kind: 'prober-restarted', reason: 'the prober (pid 17) was killed by SIGKILL', pid: 18 });
    expect(written.map((line) => JSON.parse(line))).toEqual([
      { type: 'event', time: '1970-01-01T00:00:00.000Z', tick: 42, event: 'stale-removed', scope: 'disk', disk: 'kv', paths: ['/data/kv/.slowdisk-probe-17-0a1b2c3d'] },
      { type: 'event', time: '1970-01-01T00:00:00.000Z', tick: 42, event: 'prober-restarted', scope: 'store', reason: 'the prober (pid 17) was killed by SIGKILL', pid: 18 },
    ]);
  });

  it('is the same for a live round and a replayed one, the live one adding what only it knows', () => {
    const written: string[] = [];
    const replayed = new JsonLines(DEFAULT_SCORE_PARAMS, (lines) => written.push(lines));
    const prediction = { atMs: 6000, probability: 0.82, warning: true, model: 'network', samples: 4, p99Ms: 120, missing: [], ignored: [] } as const;
    replayed.round({ tick: 60, elapsedMs: 6000, storeScore: 4.5, disks: [{ name: 'kv', score: 4.5, prediction }] });
    // A round's lines in one write.
    expect(written).toEqual([
      '{"type":"disk","tick":60,"elapsed_seconds":6,"disk":"kv","score":4.5,"predicted_breach_probability":0.82,"warning":true,"predictor_model":"network"}\n' +
        '{"type":"store","tick":60,"elapsed_seconds":6,"store_score":4.5,"reported_score":4,"evict":false,"severity":"ok"}\n',
    ]);
  });
});
