// The early warning on the lines a person reads: watch's round lines and check's summary.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import type { Prediction } from '../../src/early-warning/predictor.js';
import { checkSummary } from '../../src/formats/check-summary.js';
import { JsonLines } from '../../src/formats/json-lines.js';
import { RoundLines } from '../../src/formats/round-lines.js';
import { LineClock } from '../../src/formats/line-time.js';
import { RunVerdict } from '../../src/verdict/run-verdict.js';
import type { DiskStatus } from '../../src/live/session-events.js';

const prediction = (probability: number | null, warning = false, cleared: Prediction['cleared'] = null): Prediction => ({
  atMs: 60_000,
  probability,
  warning,
  cleared,
  model: 'network',
  samples: 4,
  p99Ms: 12,
  missing: [],
  ignored: [],
});

const disk = (name: string, extra: Partial<DiskStatus> = {}): DiskStatus => ({
  name,
  dir: `/data/${name}`,
  inspected: true,
  memoryBacked: false,
  state: 'up',
  score: 1,
  inspections: 600,
  errors: 0,
  statistical: 'ok',
  last: { openMs: 0.01, writeMs: 0.2, syncMs: 0.5, readMs: 0.1, closeMs: 0.01, totalMs: 0.82 },
  ...extra,
});

describe('the early warning on the lines', () => {
  it("follows each disk's state on watch's round lines: warming up before a probability, predict, then warn", () => {
    const written: string[] = [];
    const lines = new RoundLines(false, false, (line) => written.push(line), new LineClock(true, () => Date.UTC(2026, 11, 1, 8, 27, 55)));
    const round = (disks: DiskStatus[]) => ({ tick: 600, elapsedMs: 60_000, storeScore: 1, reportedScore: 1, disks, devices: [], crossings: [] });
    lines.round(round([disk('raft'), disk('kv', { prediction: prediction(null) })]));
    lines.round(round([disk('raft', { prediction: prediction(0.123) }), disk('kv', { prediction: prediction(0.8251, true), blockDevices: ['loop3'] })]));
    expect(written[0]).toBe(
      '2026-12-01T08:27:55Z 60.0s tick 600 store 1 (1.00) | raft /data/raft score 1.00 up write 0.20ms sync 0.50ms read 0.10ms stat ok predict warming up | kv /data/kv score 1.00 up write 0.20ms sync 0.50ms read 0.10ms stat ok predict warming up',
    );
    expect(written[1]).toBe(
      '2026-12-01T08:27:55Z 60.0s tick 600 store 1 (1.00) | raft /data/raft score 1.00 up write 0.20ms sync 0.50ms read 0.10ms stat ok predict 0.12 | kv /data/kv score 1.00 up write 0.20ms sync 0.50ms read 0.10ms stat ok warning (predict 0.83) on loop3',
    );
  });

  it('says on the round line and in the JSON line why a warning cleared, at the sample it did', () => {
    const written: string[] = [];
    const lines = new RoundLines(false, false, (line) => written.push(line));
    lines.round({ tick: 600, elapsedMs: 60_000, storeScore: 1, reportedScore: 1, disks: [disk('kv', { prediction: prediction(0.78, false, 'steady') })], devices: [], crossings: [] });
    // No figure beside the warning that ended: it would read as the warning's.
    expect(written[0]).toMatch(/\| kv \/data\/kv score 1\.00 up .* stat ok warning cleared: steady$/);
    const json: string[] = [];
    new JsonLines(DEFAULT_SCORE_PARAMS, (text) => json.push(text)).round({ tick: 600, elapsedMs: 60_000, storeScore: 1, disks: [disk('kv', { prediction: prediction(0.78, false, 'steady') }), disk('raft', { prediction: prediction(0.1) })] });
    const [kv, raft] = json.join('').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(kv).toMatchObject({ disk: 'kv', warning: false, predicted_breach_probability: 0.78, warning_cleared: 'steady' });
    expect(raft).toMatchObject({ disk: 'raft', warning: false, warning_cleared: null });
  });

  it("shows the warning in check's summary, whose verdict it raised to WARNING", () => {
    const verdict = new RunVerdict(DEFAULT_SCORE_PARAMS);
    verdict.observe(1, 'slow');
    const phases = { write: { medianMs: 0.2, p99Ms: 1.5, maxMs: 3 }, sync: { medianMs: 0.5, p99Ms: 2, maxMs: 2.5 } };
    const summaries = new Map([['kv', { maxScore: 1.5, timeouts: 2, phases }]]);
    const disks = [disk('kv', { prediction: prediction(0.91, true) })];
    const line = checkSummary({ verdict, storeScore: 1, elapsedMs: 90_000, disks, summaries, exitCode: 1 }, DEFAULT_SCORE_PARAMS, false);
    // The disk's summary over the check in place of its last inspection.
    expect(line).toBe(
      'WARNING: store score 1.00 after 90.0s (max reported 1, slow at 80, evict at 100) | kv /data/kv score 1.00 up max 1.50 inspections 600 timeouts 2 errors 0 median/p99/max write 0.20ms/1.50ms/3.00ms sync 0.50ms/2.00ms/2.50ms read - stat ok warning (predict 0.91)',
    );
  });
});
