// The one-line answers an operator meets on a first try: a mistyped flag, JSON asked of
// --format, a package without its addon. Each is one line that says what to do.
import { cpSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DiskStatus } from '../../src/live/session-events.js';
import { checkSummary, type CheckOutcome } from '../../src/formats/check-summary.js';
import type { DiskSummary } from '../../src/formats/disk-summary.js';
import { formatDiskLine } from '../../src/formats/format.js';
import { nagiosLine } from '../../src/formats/nagios.js';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { BIN, runCli, runCommand } from '../helpers/run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const work = mkdtempSync(path.join(tmpdir(), 'slowdisk-messages-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a mistyped flag', () => {
  it('is one line with its suggestion, on stderr and on the Nagios status line, with no "\\n" in it', async () => {
    const result = await runCli(['check', '--format', 'nagios', '--kv', work, '--duraton', '3s']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("slowdisk: unknown option '--duraton' (Did you mean --duration?)\n");
    expect(result.stdout).toBe("SLOWDISK UNKNOWN - unknown option '--duraton' (Did you mean --duration?)\n");
  });
});

describe('--format json', () => {
  it.each([['check', '--kv', work], ['status']])('%s: names --json', async (...args) => {
    const result = await runCli([...args, '--format', 'json']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe("slowdisk: option '--format <format>' argument 'json' is invalid. Allowed choices are human, nagios; for JSON, use --json.\n");
  });
});

describe('a package with no addon for this machine', () => {
  it('says how to build one, and not with `npm run build`, which builds none', async () => {
    // The package's JavaScript alone: no build/, no prebuilds/.
    const root = path.join(work, 'package');
    for (const entry of ['bin', 'dist', 'package.json']) cpSync(path.join(ROOT, entry), path.join(root, entry), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
    const result = await runCommand([process.execPath, path.join(root, path.relative(ROOT, BIN)), 'check', '--kv', work, '--duration', '3s', '--allow-short']);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/^slowdisk: no native addon for linux-\w+ in \S+ or \S+: install slowdisk again \(npm rebuild -g slowdisk\), which builds one from source when no prebuilt one fits; in a clone, `node scripts\/install\/install\.mjs` builds one for this machine\n$/);
  });
});

describe("a check's last line", () => {
  // The check ended while the disk's inspection had missed its tick by a little: not a state.
  const disk: DiskStatus = { name: 'kv', dir: '/data/kv', inspected: true, memoryBacked: false, state: 'up', score: 1, inspections: 29, errors: 0, waitingMs: 100 };
  const summary: DiskSummary = { maxScore: 1, timeouts: 0, phases: {} };
  const outcome: CheckOutcome = { verdict: { severity: 'ok', maxReported: 1 }, storeScore: 1, elapsedMs: 3000, disks: [disk], summaries: new Map([['kv', summary]]), exitCode: 0 };

  it("says the disk's state, not that it is waiting 0.1s for the inspection it did not wait for, in the human and the Nagios line", () => {
    expect(checkSummary(outcome, DEFAULT_SCORE_PARAMS, false)).toMatch(/ \| kv \/data\/kv score 1\.00 up /);
    expect(nagiosLine(outcome, DEFAULT_SCORE_PARAMS, false)).toMatch(/; kv 1\.00 up /);
    expect(checkSummary(outcome, DEFAULT_SCORE_PARAMS, false) + nagiosLine(outcome, DEFAULT_SCORE_PARAMS, false)).not.toContain('waiting');
  });

  it('a wait past the last ticks is shown: the disk is not answering', () => {
    const waiting = { ...outcome, disks: [{ ...disk, waitingMs: 2100 }] };
    expect(checkSummary(waiting, DEFAULT_SCORE_PARAMS, false)).toContain(' kv /data/kv score 1.00 waiting 2.1s for an inspection ');
  });

  it('a live line still shows the wait as it happens', () => {
    expect(formatDiskLine(disk, false)).toContain('score 1.00 waiting 0.1s for an inspection');
  });
});
