// The parts of the action hooks that need no disk: when they fire, what the report keeps,
// and that no child can hold the CLI past its deadline. The drive a report names is
// resolved by src/kernel/block-devices.ts (test/block-devices.test.ts).
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runBounded } from '../../src/hooks/bounded-child.js';
import { EvictionTracker } from '../../src/hooks/eviction-tracker.js';
import { INSPECTIONS_PER_DISK, SCORE_HISTORY_MS, SessionHistory } from '../../src/hooks/session-history.js';
import { smartHealth } from '../../src/hooks/smart-health.js';
import type { DiskStatus, RoundReport } from '../../src/live/session-events.js';
import { hasEnded, waitFor } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-hooks-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('when the hooks fire', () => {
  it('evict once at the threshold; recover once the score has stayed at 1 for the recovery duration', () => {
    const tracker = new EvictionTracker(100, 9000);
    const events = [
      [64, 18_000],
      [100, 21_000],
      [100, 24_000],
      [40, 27_000],
      [1, 30_000],
      [1, 33_000],
      [2, 36_000], // a break: the recovery duration starts again
      [1, 39_000],
      [1, 45_000],
      [1, 48_000],
      [1, 51_000],
      [100, 54_000],
    ].map(([score, ms]) => tracker.observe(score!, ms!));
    expect(events).toEqual([null, 'evict', null, null, null, null, null, null, null, 'recover', null, 'evict']);
  });

  it('no recovery without an eviction first', () => {
    const tracker = new EvictionTracker(100, 0);
    expect([1, 1, 99].map((score, round) => tracker.observe(score, round * 3000))).toEqual([null, null, null]);
  });
});

describe("the report's history", () => {
  const disk = (name: string, score: number) => ({ name, score }) as DiskStatus;
  const round = (tick: number, storeScore: number): RoundReport => ({
    tick,
    elapsedMs: tick * 100,
    storeScore,
    reportedScore: Math.trunc(storeScore),
    disks: [disk('raft', storeScore), disk('kv', 1)],
  });

  it('keeps ten minutes of rounds and the last 20 inspections of each disk', () => {
    const history = new SessionHistory();
    const start = 1_700_000_000_000;
    for (let k = 1; k <= 300; k++) history.addRound(round(30 * k, k), start + 3000 * k);
    const rounds = history.rounds();
    expect(rounds.at(-1)).toEqual({ tick: 9000, wallMs: start + 900_000, storeScore: 300, disks: { raft: 300, kv: 1 } });
    expect(rounds[0]!.wallMs).toBe(start + 900_000 - SCORE_HISTORY_MS);
    for (let tick = 1; tick <= 50; tick++) history.addInspection({ tick, disk: 'raft', late: false, wallMs: start + tick });
    expect(history.inspections().get('raft')!.map((record) => record.tick)).toEqual(
      Array.from({ length: INSPECTIONS_PER_DISK }, (_, index) => 31 + index),
    );
  });
});

describe('children with a deadline', () => {
  // The deadlines on fake timers: the children are real processes, the clock is the test's.
  afterEach(() => void vi.useRealTimers());

  /** What `promise` resolved to so far. */
  function settledOf<T>(promise: Promise<T>): { value: T | undefined } {
    const settled: { value: T | undefined } = { value: undefined };
    void promise.then((value) => (settled.value = value));
    return settled;
  }

  function script(name: string, body: string): string {
    const file = path.join(work, name);
    writeFileSync(file, `#!/bin/sh\n${body}\n`);
    chmodSync(file, 0o755);
    return file;
  }

  it('at the deadline the whole process group is killed, and the caller goes on at once', async () => {
    const pidFile = path.join(work, 'grandchild.pid');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const bounded = settledOf(runBounded('/bin/sh', ['-c', `sleep 60 & echo $! > ${pidFile}; wait`], { timeoutMs: 500, output: 'capture' }));
    // Polled on the event loop, not the faked timers (which vi.waitFor would move on).
    const started = performance.now();
    while (!(existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'))) {
      expect(performance.now() - started, 'the hook to start its sleep').toBeLessThan(10_000);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The deadline's clock is the test's: at 499 ms the caller still waits, at 500 ms it goes on.
    await vi.advanceTimersByTimeAsync(499);
    expect(bounded.value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(bounded.value).toEqual({ outcome: { kind: 'timed-out' }, output: '' });
    vi.useRealTimers();
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    await waitFor(() => hasEnded(grandchild), 10_000, 'the sleep the hook started to be killed with it');
  });

  it('stdin is written and closed; the exit code is kept', async () => {
    const result = await runBounded('/bin/sh', ['-c', 'tr a-z A-Z; exit 4'], { timeoutMs: 5000, stdin: 'hello\n', output: 'capture' });
    expect(result).toEqual({ outcome: { kind: 'exited', code: 4 }, output: 'HELLO\n' });
  });

  it('a child that ignores its stdin is no error', async () => {
    const result = await runBounded('/bin/sh', ['-c', 'exit 0'], { timeoutMs: 5000, stdin: 'x'.repeat(1 << 20), output: 'capture' });
    expect(result.outcome).toEqual({ kind: 'exited', code: 0 });
  });

  it('smartctl that does not answer (a hung device) is cut off at its timeout; its output and bit-mask exit code are kept when it does', async () => {
    const hung = script('smartctl-hung', 'sleep 60');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const health = settledOf(smartHealth('/dev/sdz', hung, 300));
    await vi.advanceTimersByTimeAsync(299);
    expect(health.value).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    vi.useRealTimers();
    expect(health.value).toEqual({ unavailable: `${hung} -H -A /dev/sdz did not answer within 0.3 s (killed)` });
    const failing = script('smartctl-failing', 'echo "SMART overall-health self-assessment test result: FAILED!"; exit 8');
    expect(await smartHealth('/dev/sdz', failing)).toEqual({
      command: `${failing} -H -A /dev/sdz`,
      exitCode: 8,
      output: 'SMART overall-health self-assessment test result: FAILED!\n',
    });
  });
});
