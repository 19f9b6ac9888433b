// The early-warning predictor through `slowdisk replay`: a disk slowing down over minutes is
// warned of by the sample its inspection P99 crosses the SLA, on every output, before the slow
// score sees it, and the replay exits WARNING for it; a healthy host is not warned of.
import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { scenarioTraceFiles } from '../helpers/scenario-traces.js';
import { traceP99s } from '../helpers/trace-p99s.js';

const traceOf = scenarioTraceFiles('slowdisk-early-warning-');

/** When the disk's P99 over a 15 s sample first exceeds the SLA, in ms on the trace's clock. */
function firstBreachMs(file: string, disk: string, slaMs: number): number {
  return traceP99s(file, disk, 100).find(({ p99Ms }) => p99Ms > slaMs)!.atMs;
}

type Line = Record<string, unknown>;
const parse = (stdout: string): Line[] => stdout.trim().split('\n').map((line) => JSON.parse(line) as Line);

// Two SSDs; kv slows down x1000 over 5 minutes from minute 5 (its P99 passes 200 ms at minute 9),
// the trace ending 15 s later, before the slow score has seen it. Near the SLA it doubles in
// under a minute, from under half the SLA to past it: a sudden breach, which the level rule
// warns of only as it comes (gradual ones, ahead: early-warning-near-miss.test.ts).
const ramp = { kind: 'ramp', seed: 7, disks: 2, media: 'ssd', onsetMs: 300_000, factor: 1000, durationMs: 555_000 } as const;
// The statistical detector also sees the ramp: a threshold it never reaches leaves the verdict to the predictor.
const NO_DETECTOR = ['--stat-threshold', '1000'];

describe('early warning in replay', () => {
  it('warns of a ramp by the sample its P99 crosses the SLA, in the JSON lines, and exits WARNING', async () => {
    const file = traceOf('ramp', ramp);
    const result = await runInProcess(['replay', file, '--json', ...NO_DETECTOR]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    const lines = parse(result.stdout);
    const kv = lines.filter((line) => line.type === 'disk' && line.disk === 'kv');
    const warned = kv.find((line) => line.warning === true)!;
    expect(warned).toMatchObject({ predictor_model: 'network', statistical: 'ok' });
    expect(warned.predicted_breach_probability as number).toBeGreaterThan(0.7);
    const breachMs = firstBreachMs(file, 'kv', 200);
    expect((warned.elapsed_seconds as number) * 1000).toBeLessThanOrEqual(breachMs);
    // The slow score saw nothing of it yet: the WARNING is the predictor's.
    const reported = lines.filter((line) => line.type === 'store').map((line) => line.reported_score as number);
    expect(Math.max(...reported)).toBeLessThan(80);
    // No probability before 4 samples (1 minute); the healthy disk is never warned of.
    expect(kv[0]).toMatchObject({ predicted_breach_probability: null, warning: false });
    expect(lines.some((line) => line.disk === 'raft' && line.warning === true)).toBe(false);
  });

  it('shows the warning on the timeline', async () => {
    const result = await runInProcess(['replay', traceOf('ramp-timeline', ramp), ...NO_DETECTOR]);
    expect(result.code).toBe(1);
    // Of unknown: the trace has no device lines to tell load from the device.
    expect(result.stdout).toMatch(/\| kv \d+\.\d\d stat ok warning \(predict [01]\.\d\d, of unknown\)/);
    expect(result.stdout).toMatch(/\| raft 1\.00 stat ok predict 0\.\d\d/);
    expect(result.stdout.trimEnd().split('\n').at(-1)).toMatch(/^WARNING: /);
  });

  it('a higher SLA or warning probability is not reached as soon: --sla, --warn-probability, --predictor trend', async () => {
    const file = traceOf('ramp-flags', ramp);
    const firstWarningMs = async (...flags: string[]) => {
      const result = await runInProcess(['replay', file, '--json', ...NO_DETECTOR, ...flags]);
      const warned = parse(result.stdout).find((line) => line.disk === 'kv' && line.warning === true);
      return warned === undefined ? Infinity : (warned.elapsed_seconds as number) * 1000;
    };
    const byDefault = await firstWarningMs();
    expect(await firstWarningMs('--warn-probability', '0.999')).toBeGreaterThan(byDefault);
    expect(await firstWarningMs('--sla', '1s')).toBeGreaterThan(byDefault);
    const trend = await runInProcess(['replay', file, '--json', ...NO_DETECTOR, '--predictor', 'trend']);
    expect(parse(trend.stdout).find((line) => line.disk === 'kv' && line.predicted_breach_probability !== null)).toMatchObject({ predictor_model: 'trend' });
  });

  it('a healthy host is not warned of: exit 0', async () => {
    const result = await runInProcess(['replay', traceOf('healthy', { ...ramp, kind: 'healthy' }), '--json', ...NO_DETECTOR]);
    expect(result.code).toBe(0);
    const disks = parse(result.stdout).filter((line) => line.type === 'disk');
    expect(disks.some((line) => line.warning === true)).toBe(false);
    expect(disks.at(-1)!.predicted_breach_probability).toBeLessThan(0.7);
  });

  it.each([
    ['--sla', '0'],
    ['--sla', 'soon'],
    ['--warn-probability', '1'],
    ['--warn-probability', '0'],
    ['--predictor', 'oracle'],
  ])('a bad %s %s: one line, exit 3', async (flag, value) => {
    const result = await runInProcess(['replay', traceOf('flag', ramp), flag, value]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(new RegExp(`^slowdisk: .*${flag}.*\\n$`));
    expect(result.stdout).toBe('');
  });
});
