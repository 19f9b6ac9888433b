// check --format nagios: a monitoring plugin's status line and perfdata, with its exit codes.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { nagiosLine } from '../../src/formats/nagios.js';
import { PhaseLatencies, LATENCY_PHASES } from '../../src/formats/phase-latencies.js';
import type { DiskSummary } from '../../src/formats/disk-summary.js';
import { RunVerdict } from '../../src/verdict/run-verdict.js';
import { checkEndSeverity, hangSeverity } from '../../src/verdict/hang-verdict.js';
import type { DiskStatus } from '../../src/live/session-events.js';
import { runInProcess } from '../helpers/in-process-cli.js';

vi.mock('node:child_process', async (importOriginal) => (await import('../helpers/stub-prober.js')).withStubProber(await importOriginal()));

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-nagios-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** 'label'=value[UOM];[warn];[crit];[min];[max], the label quoted (a quote in it doubled). */
const PERFDATA_ITEM = /^'(?:[^'=]|'')+'=(?:-?[\d.]+(?:ms|s|us|%|B|KB|MB|TB|c)?|U)(?:;[\d.]*){0,4}$/;

/** The line split at its '|': the status text and the perfdata items. */
function parse(line: string): { status: string; perfdata: Map<string, string> } {
  const at = line.indexOf(' | ');
  const items = line.slice(at + 3).split(' ');
  for (const item of items) expect(item, item).toMatch(PERFDATA_ITEM);
  return {
    status: line.slice(0, at),
    perfdata: new Map(items.map((item) => [item.slice(1, item.indexOf("'=")), item.slice(item.indexOf("'=") + 2)])),
  };
}

const healthy = (name: string, score: number, extra: Partial<DiskStatus> = {}): DiskStatus => ({
  name,
  dir: `/data/${name}`,
  inspected: true,
  memoryBacked: false,
  state: 'up',
  score,
  inspections: 300,
  errors: 0,
  ...extra,
});

function verdictOf(...scores: number[]): RunVerdict {
  const verdict = new RunVerdict(DEFAULT_SCORE_PARAMS);
  for (const score of scores) verdict.observe(score);
  return verdict;
}

/** A disk's summary over a check from its inspections' phases, its peak score and its timeouts. */
function summaryOf(disk: string, maxScore: number, timeouts: number, ...ms: [write: number, sync: number, read: number][]): Map<string, DiskSummary> {
  const latencies = new PhaseLatencies();
  ms.forEach(([writeMs, syncMs, readMs], tick) =>
    latencies.add({ tick, disk, late: false, wallMs: 0, timings: { openMs: 0.01, writeMs, syncMs, readMs, closeMs: 0.01, totalMs: writeMs + syncMs + readMs } }),
  );
  const phases: DiskSummary['phases'] = {};
  for (const phase of LATENCY_PHASES) {
    const figures = latencies.figures(disk, phase);
    if (figures) phases[phase] = figures;
  }
  return new Map([[disk, { maxScore, timeouts, phases }]]);
}

const NONE = new Map<string, DiskSummary>();

describe('the Nagios line', () => {
  it('CRITICAL: the state, the score against the eviction threshold, the disks, and perfdata with the thresholds', () => {
    const disks = [healthy('raft', 100, { waitingMs: 2100 }), healthy('kv', 1, { inspected: false, state: 'skipped', sameAs: 'raft' })];
    const summaries = summaryOf('raft', 100, 210, [0.4, 1.2, 0.2], [0.5, 1.3, 0.3], [0.42, 900, 0.25]);
    const line = nagiosLine({ verdict: verdictOf(32, 64, 100), storeScore: 100, elapsedMs: 21_040, disks, summaries, exitCode: 2 }, DEFAULT_SCORE_PARAMS, false);
    // The disk's summary: scores, counts, and the median, P99 and maximum of each phase in seconds.
    expect(line).toBe(
      'SLOWDISK CRITICAL - store score 100 (evict at 100) after 21.0s; raft 100 waiting 2.1s for an inspection predict warming up, kv skipped: same filesystem as raft' +
        " | 'store_score'=100;80;100;1;100 'raft_score'=100;80;100;1;100 'raft_max_score'=100;80;100;1;100 'raft_inspections'=300c;;;0 'raft_timeouts'=210c;;;0 'raft_errors'=0c;;;0" +
        " 'raft_write_median'=0.00042s;;;0 'raft_write_p99'=0.0005s;;;0 'raft_write_max'=0.0005s;;;0" +
        " 'raft_sync_median'=0.0013s;;;0 'raft_sync_p99'=0.9s;;;0 'raft_sync_max'=0.9s;;;0" +
        " 'raft_read_median'=0.00025s;;;0 'raft_read_p99'=0.0003s;;;0 'raft_read_max'=0.0003s;;;0 'kv_score'=1;80;100;1;100",
    );
    parse(line);
  });

  it('WARNING and OK name both thresholds; a score that fell back shows its peak', () => {
    const params = DEFAULT_SCORE_PARAMS;
    const warning = nagiosLine({ verdict: verdictOf(85, 79.5), storeScore: 79.5, elapsedMs: 30_000, disks: [healthy('kv', 79.5, { statistical: 'ok', statisticalJudged: false })], summaries: summaryOf('kv', 85, 3), exitCode: 1 }, params, false);
    expect(parse(warning).status).toBe('SLOWDISK WARNING - store score 79, max 85 (slow at 80, evict at 100) after 30.0s; kv 79.50 up stat warming up predict warming up');
    // No inspection completed: the latencies are unknown, "U".
    expect(parse(warning).perfdata.get('kv_sync_p99')).toBe('U;;;0');
    expect(parse(warning).perfdata.get('kv_score')).toBe('79.5;80;100;1;100');
    expect(parse(warning).perfdata.get('kv_max_score')).toBe('85;80;100;1;100');
    const ok = nagiosLine({ verdict: verdictOf(1), storeScore: 1, elapsedMs: 30_000, disks: [healthy('kv', 1, { memoryBacked: true, statistical: 'ok', statisticalJudged: true })], summaries: NONE, exitCode: 0 }, params, true);
    expect(parse(ok).status).toBe('SLOWDISK OK - store score 1 (slow at 80, evict at 100) after 30.0s; kv 1.00 up stat ok predict warming up [not a disk: memory-backed; buffered: no O_DIRECT]');
  });

  it('WARNING for a disk in state warning, its predicted probability in the text and the perfdata', () => {
    const prediction = { atMs: 60_000, probability: 0.823, warning: true, cleared: null, model: 'network', samples: 4, p99Ms: 120, missing: [], ignored: [] } as const;
    const verdict = new RunVerdict(DEFAULT_SCORE_PARAMS);
    verdict.observe(1, 'slow');
    const disks = [healthy('kv', 1, { prediction }), healthy('raft', 1, { prediction: { ...prediction, probability: 0.1, warning: false } })];
    const line = nagiosLine({ verdict, storeScore: 1, elapsedMs: 60_000, disks, summaries: NONE, exitCode: 1 }, DEFAULT_SCORE_PARAMS, false, 0.8);
    const { status, perfdata } = parse(line);
    expect(status).toBe('SLOWDISK WARNING - store score 1 (slow at 80, evict at 100) after 60.0s; kv 1.00 up warning (predict 0.82), raft 1.00 up predict 0.10');
    expect(perfdata.get('kv_breach_probability')).toBe('0.823;0.8;;0;1');
    expect(perfdata.get('raft_breach_probability')).toBe('0.1;0.8;;0;1');
  });

  it('WARNING for a hung disk at a score far below the slow threshold, and for one that completed no inspection', () => {
    const hungSinceMs = Date.parse('2026-12-01T08:27:55.135Z');
    const disks = [
      healthy('kv', 8, { state: 'hung', waitingMs: 9900, hungSinceMs, inspections: 0 }),
      healthy('raft', 1, { state: 'starting', waitingMs: 1900, inspections: 0 }),
      healthy('wal', 1),
    ];
    expect(checkEndSeverity(disks)).toBe('slow');
    expect(checkEndSeverity([healthy('wal', 1)])).toBe('ok');
    expect(hangSeverity(disks)).toBe('slow');
    expect(hangSeverity(disks.slice(1))).toBe('ok');
    const verdict = verdictOf(8);
    verdict.note(checkEndSeverity(disks));
    const { status } = parse(nagiosLine({ verdict, storeScore: 8, elapsedMs: 10_000, disks, summaries: NONE, exitCode: 1 }, DEFAULT_SCORE_PARAMS, false));
    expect(status).toBe(
      'SLOWDISK WARNING - hung: kv; no inspection completed: raft; store score 8 (slow at 80, evict at 100) after 10.0s; ' +
        'kv 8.00 hung: an inspection in flight for 9.9s since 2026-12-01T08:27:55Z predict warming up, raft 1.00 waiting 1.9s for an inspection predict warming up, wal 1.00 up predict warming up',
    );
    // Never CRITICAL: the eviction stays the score's.
    verdict.note(hangSeverity(disks));
    expect(verdict.severity).toBe('slow');
  });

  it('UNKNOWN when interrupted; no "|" in the text, so the perfdata stays where Nagios looks for it', () => {
    const down = healthy('raft', 3, { state: 'down', error: { code: 'EIO', errno: 5, syscall: 'pwrite', path: '/data/a|b/.slowdisk-probe-1-2', message: 'EIO: pwrite /data/a|b/.slowdisk-probe-1-2' } });
    const line = nagiosLine({ verdict: verdictOf(3), storeScore: 3, elapsedMs: 4200, disks: [down], interruptedBy: 'SIGTERM', exitCode: 143, summaries: NONE }, DEFAULT_SCORE_PARAMS, false);
    expect(line.startsWith('SLOWDISK UNKNOWN - interrupted by SIGTERM after 4.2s | ')).toBe(true);
    const interruptedNot = nagiosLine({ verdict: verdictOf(3), storeScore: 3, elapsedMs: 4200, disks: [down], exitCode: 0, summaries: NONE }, DEFAULT_SCORE_PARAMS, false);
    expect(interruptedNot.split('|')).toHaveLength(2);
    expect(interruptedNot).toContain('raft 3.00 down EIO: pwrite /data/a¦b/');
  });

  it('names the block devices behind each disk, and marks one that stalled in the last round', () => {
    const raft = healthy('raft', 2, { waitingMs: 2100, blockDevices: ['loop3', 'nvme0n1'], stalledDevices: ['nvme0n1'] });
    const line = nagiosLine({ verdict: verdictOf(2), storeScore: 2, elapsedMs: 6000, disks: [raft], exitCode: 0, summaries: NONE }, DEFAULT_SCORE_PARAMS, false);
    expect(parse(line).status).toBe('SLOWDISK OK - store score 2 (slow at 80, evict at 100) after 6.0s; raft 2.00 waiting 2.1s for an inspection predict warming up on loop3,nvme0n1 STALLED nvme0n1');
  });

  it("quotes labels, doubling a quote in one, as the plugin guidelines ask", () => {
    const line = nagiosLine({ verdict: verdictOf(1), storeScore: 1, elapsedMs: 1000, disks: [healthy("o'brien", 1)], exitCode: 0, summaries: NONE }, DEFAULT_SCORE_PARAMS, false);
    expect(line).toContain(" 'o''brien_score'=1;80;100;1;100 ");
  });
});

// Probed by the stub prober, 1 ms an inspection, on the run's own clock.
describe('check --format nagios', () => {
  it('OK on a healthy directory: exit 0, one line, latencies in seconds, no early-warning perfdata while it warms up', async () => {
    const dir = mkdtempSync(path.join(work, 'ok-'));
    const result = await runInProcess(['check', '--raft', dir, '--duration', '2s', '--allow-short', '--format', 'nagios']);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toHaveLength(2);
    const { status, perfdata } = parse(result.stdout.trimEnd());
    expect(status).toMatch(/^SLOWDISK OK - store score 1 \(slow at 80, evict at 100\) after 2\.\ds; raft 1\.00 up stat warming up predict warming up(?: on \S+)?$/);
    expect(perfdata.get('store_score')).toBe('1;80;100;1;100');
    for (const figure of ['median', 'p99', 'max']) expect(perfdata.get(`raft_sync_${figure}`)).toMatch(/^[\d.]+s;;;0$/);
    expect(perfdata.get('raft_timeouts')).toMatch(/^\d+c;;;0$/);
    expect(perfdata.has('raft_breach_probability')).toBe(false);
  });

  it('WARNING at the slow threshold: exit 1', async () => {
    const dir = mkdtempSync(path.join(work, 'warning-'));
    // Every inspection a timeout: the score doubles to 2 at the 3 s round.
    const result = await runInProcess(['check', '--raft', dir, '--duration', '4s', '--allow-short', '--timeout', '0.001ms', '--slow-threshold', '2', '--format', 'nagios']);
    expect(result.code).toBe(1);
    // Timing out on every tick: rising, 6 more doublings of 3 s to eviction.
    expect(result.stdout).toMatch(/^SLOWDISK WARNING - rising: raft \(a continuous run would evict it in 18\.0s\); store score 2 \(slow at 2, evict at 100\) after 4\.\ds; raft 2\.00 up stat warming up slow: unknown predict warming up(?: on \S+)? \| 'store_score'=2;2;100;1;100 /);
  });

  it('CRITICAL at the eviction threshold: exit 2', async () => {
    const dir = mkdtempSync(path.join(work, 'critical-'));
    const result = await runInProcess(['check', '--raft', dir, '--timeout', '0.001ms', '--interval', '20ms', '--round-ticks', '3', '--format', 'nagios']);
    expect(result.code).toBe(2);
    // At 20 ms ticks on a loaded machine the last inspection may still be out when the check ends: then the disk is up, and waiting.
    expect(result.stdout).toMatch(/^SLOWDISK CRITICAL - store score 100 \(evict at 100\) after 0\.\ds; raft 100 (?:up|waiting \d+\.\ds for an inspection) stat warming up slow: unknown predict warming up(?: on \S+)? \| 'store_score'=100;80;100;1;100 'raft_score'=100;80;100;1;100 /);
    expect(parse(result.stdout.trimEnd()).perfdata.get('raft_timeouts')).toMatch(/^2\d+c;;;0$/);
  });

  it('UNKNOWN on a path that cannot be probed: exit 3, one line on stderr and one status line on stdout', async () => {
    const result = await runInProcess(['check', '--raft', path.join(work, 'missing'), '--format', 'nagios']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: cannot probe raft=.*ENOENT/);
    expect(result.stdout).toMatch(/^SLOWDISK UNKNOWN - cannot probe raft=.*ENOENT[^\n]*\n$/);
  });

  it('an unknown format: exit 3 naming the choices', async () => {
    const result = await runInProcess(['check', '--format', 'xml']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^slowdisk: option '--format <format>' argument 'xml' is invalid\. Allowed choices are human, nagios\.\n$/);
  });
});
