// The statistical detector beside the slow score, through the CLI: replay of generated traces
// reaches the same states a live run would, shows them, and folds them into the exit code.
import { readFileSync, writeFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { scenarioTraceFiles } from '../helpers/scenario-traces.js';

const traceOf = scenarioTraceFiles('slowdisk-statistical-');

// 6 HDD-like disks, one of them x2 slower from 120 s on: invisible to the slow score. The
// onset comes after a full baseline (1000 inspections, 100 s at one a tick); the fast path
// confirms it some 15 s later (the article's rules alone, some 75 s: a 5 s statistic, suspect
// after 10 s, observed for 60 s), so the last 45 s of the 240 s show it confirmed either way.
const slow = { kind: 'slow', seed: 7, disks: 6, media: 'hdd', factor: 2, onsetMs: 120_000, slowDisk: 3, durationMs: 240_000 } as const;

// Each trace is read, never changed, by the cases that replay it.
let slowTrace: string;
let healthyTrace: string;
beforeAll(() => {
  slowTrace = traceOf('slow', slow);
  // The same seed's host without the fault: the same disks and draws, only no slow disk.
  healthyTrace = traceOf('healthy', { ...slow, kind: 'healthy' });
});

describe('the statistical detector in replay', () => {
  it('confirms a disk x2 slower than its peers: WARNING, with the state on its lines', async () => {
    const result = await runInProcess(['replay', slowTrace, '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const last = (disk: string) => lines.filter((line) => line.type === 'disk' && line.disk === disk).at(-1)!;
    expect(last('disk4')).toMatchObject({ statistical: 'confirmed', statistical_by: 'fast' });
    expect(last('disk4').statistical_after_seconds).toBeGreaterThanOrEqual(11);
    expect(last('disk4').statistical_after_seconds).toBeLessThanOrEqual(20);
    expect(last('disk1')).toMatchObject({ statistical: 'ok' });
    expect(last('disk1')).not.toHaveProperty('statistical_by');
    // The slow score never gets near a verdict: the slowdown stays far under the 100 ms timeout.
    const reported = lines.filter((line) => line.type === 'store').map((line) => line.reported_score as number);
    expect(Math.max(...reported)).toBeLessThan(80);
  });

  it('--critical-on any makes the confirmation CRITICAL', async () => {
    const result = await runInProcess(['replay', slowTrace, '--critical-on', 'any']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/disk4 1\.00 stat confirmed \(fast, 1\d\.\ds\)/);
  });

  it('--stat-fast-budget 0: the article\'s rules alone confirm it, a minute later, and say so', async () => {
    const result = await runInProcess(['replay', slowTrace, '--json', '--stat-fast-budget', '0']);
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const confirmed = lines.filter((line) => line.type === 'disk' && line.disk === 'disk4' && line.statistical === 'confirmed');
    expect(confirmed.at(-1)).toMatchObject({ statistical_by: 'rules' });
    expect(confirmed.at(-1)!.statistical_after_seconds).toBeGreaterThanOrEqual(70);
  });

  it('a healthy host is never confirmed: exit 0', async () => {
    const result = await runInProcess(['replay', healthyTrace]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/disk4 1\.00 stat ok/);
    expect(result.stdout).not.toMatch(/stat confirmed/);
  });

  it("replays with the header's detector parameters, unless a flag overrides them, which it says", async () => {
    const [first, ...rest] = readFileSync(slowTrace, 'utf8').split('\n');
    const header = JSON.parse(first) as Record<string, unknown>;
    // The generator's header, like a trace of an older slowdisk, has none: the tests above replayed it with the defaults.
    expect(Object.keys(header).filter((key) => key.startsWith('stat_') || key === 'critical_on')).toEqual([]);
    const recorded = (extra: object) => {
      const copy = slowTrace.replace(/\.jsonl$/, `-${Object.entries(extra).flat().join('-')}.jsonl`);
      writeFileSync(copy, [JSON.stringify({ ...header, ...extra }), ...rest].join('\n'));
      return copy;
    };
    // Confirmed, and with --critical-on any as recorded, CRITICAL.
    expect((await runInProcess(['replay', recorded({ critical_on: 'any' })])).code).toBe(2);
    // A threshold of 1000 MADs confirms nothing: no longer CRITICAL.
    const lenient = await runInProcess(['replay', recorded({ critical_on: 'any', stat_threshold: 1000 })]);
    expect(lenient.stderr).toBe('');
    expect(lenient.code).toBeLessThan(2);
    expect(lenient.stdout).toMatch(/disk4 1\.00 stat ok/);
    expect(lenient.stdout).not.toMatch(/stat confirmed/);
    const overridden = await runInProcess(['replay', recorded({ critical_on: 'any', stat_threshold: 1000 }), '--stat-threshold', '3']);
    expect(overridden.code).toBe(2);
    expect(overridden.stderr).toBe("slowdisk: replay: --stat-threshold 3 overrides the trace's 1000\n");
    // A run that wanted a baseline of a million steps before judging judged nothing.
    const unjudged = await runInProcess(['replay', recorded({ critical_on: 'any', stat_min_baseline_steps: 1_000_000 })]);
    expect(unjudged.code).toBeLessThan(2);
    expect(unjudged.stdout).toMatch(/disk4 1\.00 stat warming up/);
  });

  it('a bad detector flag: one line, exit 3', async () => {
    const result = await runInProcess(['replay', slowTrace, '--stat-confirm-share', '2']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: .*--stat-confirm-share.*\n$/);
  });
});
