// The statistical detector beside the slow score, through the CLI: replay of generated traces
// reaches the same states a live run would, shows them, and folds them into the exit code.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { scenarioTraceFiles } from '../helpers/scenario-traces.js';

const traceOf = scenarioTraceFiles('slowdisk-statistical-');

// 12 HDD-like disks, one of them x2 slower from minute 5: invisible to the slow score.
const slow = { kind: 'slow', seed: 7, disks: 12, media: 'hdd', factor: 2, onsetMs: 300_000, slowDisk: 3, durationMs: 600_000 } as const;

describe('the statistical detector in replay', () => {
  it('confirms a disk x2 slower than its peers: WARNING, with the state on its lines', async () => {
    const result = await runCli(['replay', traceOf('slow', slow), '--json']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const last = (disk: string) => lines.filter((line) => line.type === 'disk' && line.disk === disk).at(-1)!;
    expect(last('disk4')).toMatchObject({ statistical: 'confirmed' });
    expect(last('disk1')).toMatchObject({ statistical: 'ok' });
    // The slow score never gets near a verdict: the slowdown stays far under the 100 ms timeout.
    const reported = lines.filter((line) => line.type === 'store').map((line) => line.reported_score as number);
    expect(Math.max(...reported)).toBeLessThan(80);
  });

  it('--critical-on any makes the confirmation CRITICAL', async () => {
    const result = await runCli(['replay', traceOf('slow-critical', slow), '--critical-on', 'any']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/disk4 1\.00 stat confirmed/);
  });

  it('a healthy host is never confirmed: exit 0', async () => {
    const result = await runCli(['replay', traceOf('healthy', { ...slow, kind: 'healthy' })]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/disk4 1\.00 stat ok/);
    expect(result.stdout).not.toMatch(/stat confirmed/);
  });

  it('a bad detector flag: one line, exit 3', async () => {
    const result = await runCli(['replay', traceOf('flag', slow), '--stat-confirm-share', '2']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: .*--stat-confirm-share.*\n$/);
  });
});
