// A score is shown one way in every output: cut to two decimals, its whole part the reported
// score. TiKV's descent of 2/3 a point per 2 s round takes 100 to 97.99999999999999 in three
// rounds, reported as 97: the text showed "store 97 (98.00)", JSON and the metrics the binary
// noise. The score itself stays TiKV's exact double.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { SlowdiskMetrics } from '../../src/prometheus/metrics.js';
import type { CheckOutcome } from '../../src/formats/check-summary.js';
import { nagiosLine } from '../../src/formats/nagios.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { updatedScore } from '../../src/score/slow-score.js';
import { shownScore } from '../../src/score/store-score.js';
import type { DiskStatus } from '../../src/live/session-events.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-shown-score-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NOISY = 97.99999999999999;

/** 20-tick rounds of 2 s: seven rounds of timeouts take the disk to 100, three clean ones to 97.99999999999999. */
function noisyTrace(): string {
  const lines: object[] = [{ slowdisk_trace: 1, interval_ms: 100, round_ticks: 20, disks: ['a'] }];
  for (let tick = 1; tick <= 200; tick += 1) lines.push({ tick, disk: 'a', ms: tick < 140 ? 200 : 1 });
  const file = path.join(work, 'noisy.jsonl');
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return file;
}

describe('a score as it is shown', () => {
  it('is TiKV\'s exact double underneath, so that the reported score is its integer part', () => {
    let score = 100;
    for (let round = 0; round < 3; round += 1) score = updatedScore(score, 0, 20, 2000, DEFAULT_SCORE_PARAMS);
    expect(score).toBe(NOISY);
    expect(Math.trunc(score)).toBe(97);
    expect(shownScore(score)).toBe(97.99);
    expect([shownScore(1), shownScore(100), shownScore(5 / 3), shownScore(92.00000000000045), shownScore(0.29)]).toEqual([1, 100, 1.66, 92, 0.29]);
  });

  it('reads "store 97 (97.99)" in replay\'s text, never 98.00 beside a reported 97', async () => {
    const result = await runCli(['replay', noisyTrace()]);
    const last = result.stdout.split('\n').find((line) => / store 97 /.test(line));
    expect(last).toMatch(/ store 97 \(97\.99\) \| a 97\.99 /);
    expect(result.stdout).not.toMatch(/98\.00/);
  });

  it('is 97.99 in --json, beside a reported 97', async () => {
    const result = await runCli(['replay', noisyTrace(), '--json']);
    expect(result.stdout).toContain('"score":97.99,');
    expect(result.stdout).toContain('"store_score":97.99,"reported_score":97,');
    expect(result.stdout).not.toMatch(/9{6}/);
  });

  it('is 97.99 in the metrics and the Nagios perfdata', async () => {
    const disk: DiskStatus = { name: 'a', dir: '/data/a', inspected: true, device: '259:3', memoryBacked: false, state: 'up', score: NOISY, inspections: 200, errors: 0 };
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    metrics.begin([disk], 0);
    metrics.round({ tick: 200, elapsedMs: 20_000, storeScore: NOISY, reportedScore: 97, disks: [disk], devices: [] }, new Map(), 0);
    const text = await metrics.registry.metrics();
    expect(text).toContain('slowdisk_slow_score{disk="a",path="/data/a"} 97.99\n');
    expect(text).toContain('slowdisk_store_score 97.99\n');
    expect(text).toContain('slowdisk_store_reported_score 97\n');
    const outcome: CheckOutcome = { verdict: { severity: 'slow', maxReported: 97 }, storeScore: NOISY, elapsedMs: 20_000, disks: [disk], summaries: new Map(), exitCode: 1 };
    const line = nagiosLine(outcome, DEFAULT_SCORE_PARAMS, false);
    expect(line).toContain("'a_score'=97.99;");
    expect(line).not.toMatch(/=98;/);
  });
});
