// The CLI as a user meets it: its flags, its help, its errors, run in-process, probing with the
// stub prober on the run's own clock. What the real prober leaves or not behind a run is in
// test/e2e/cli-live.test.ts.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';

vi.mock('node:child_process', async (importOriginal) => (await import('../helpers/stub-prober.js')).withStubProber(await importOriginal()));

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function expectOneCleanErrorLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^slowdisk: /);
  expect(lines[0]).toMatch(pattern);
  expect(stderr).not.toMatch(/\n\s+at /);
}

describe('bad input', () => {
  it.each([
    [['check', '--interval', 'soon'], /interval.*not a duration: 'soon'/],
    [['check', '--round-ticks', '0'], /round-ticks.*from 1/],
    [['check', '--path', 'no-equals-sign'], /NAME=DIR/],
    [['check', '--sync', 'fsync_range'], /fdatasync or fsync/],
    [['check', '--slow-threshold', '90', '--evict-threshold', '80'], /slow-threshold \(90\) is above --evict-threshold \(80\)/],
    [['watch', '--no-such-flag'], /unknown option '--no-such-flag'/],
    [['frobnicate'], /unknown command 'frobnicate'/],
  ])('%j: exit 3, one line on stderr', async (args, pattern) => {
    const result = await runInProcess(args);
    expect(result.code).toBe(3);
    expectOneCleanErrorLine(result.stderr, pattern);
    expect(result.stdout).toBe('');
  });

  it.each([
    [['check', '--format', 'nagios', '--no-such-flag'], /^SLOWDISK UNKNOWN - unknown option '--no-such-flag'\n$/],
    [['check', '--format=nagios', '--interval', 'soon'], /^SLOWDISK UNKNOWN - .*interval.*not a duration: 'soon'[^\n]*\n$/],
    [['check', '--format', 'nagios', '--kv', path.join(work, 'missing')], /^SLOWDISK UNKNOWN - cannot probe kv=\S+: ENOENT: statx \S+ \(No such file or directory\)\n$/],
  ])('%j with --format nagios: exit 3 and one status line on stdout', async (args, pattern) => {
    const result = await runInProcess(args);
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(pattern);
  });

  it('a --duration too short to reach CRITICAL: refused with one line naming the minimum, unless --allow-short', async () => {
    const refused = await runInProcess(['check', '--kv', work, '--duration', '10s']);
    expect(refused.code).toBe(3);
    expectOneCleanErrorLine(refused.stderr, /^slowdisk: --duration 10s cannot reach CRITICAL: a check needs at least 21s \(7 rounds of 3s, the score doubling from 1 to 100\); --allow-short runs it anyway$/);
    // From the parameters: 7 rounds of 10 ticks of 20 ms.
    const faster = await runInProcess(['check', '--kv', work, '--duration', '1s', '--interval', '20ms', '--round-ticks', '10']);
    expect(faster.stderr).toMatch(/at least 1400ms \(7 rounds of 200ms/);
    const allowed = await runInProcess(['check', '--kv', work, '--duration', '1s', '--allow-short']);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout).toMatch(/stat warming up predict warming up/);
  });

  it('a path that does not exist: exit 3 naming the errno, the syscall and the path', async () => {
    const missing = path.join(work, 'missing');
    const result = await runInProcess(['check', '--kv', missing, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(3);
    expectOneCleanErrorLine(result.stderr, new RegExp(`kv=${missing}: ENOENT: statx ${missing}`));
  });

  it('a path that is a file, not a directory: exit 3 with ENOTDIR', async () => {
    const result = await runInProcess(['check', '--raft', '/etc/hostname', '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(3);
    expectOneCleanErrorLine(result.stderr, /raft=\/etc\/hostname: ENOTDIR/);
  });
});

describe('help', () => {
  it('documents the exit codes and the TiKV defaults', async () => {
    const result = await runInProcess(['check', '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/2\s+CRITICAL/);
    expect(result.stdout).toMatch(/A check must run at least 21s \(7 rounds of 3s, the score doubling from 1 to 100\) to reach CRITICAL/);
    expect(result.stdout).toMatch(/--interval <duration>.*\(1ms to 1h\)\s+\(default: 100ms\)/s);
    expect(result.stdout).toMatch(/--min-ttr <duration>.*\(1s to 7d\)\s+\(default: 5m\)/s);
    for (const [flag, shown] of [['--stat-refresh', '10s'], ['--sla', '200ms'], ['--hook-timeout', '30s'], ['--recover-after', '30m'], ['--duration', '30s']]) {
      expect(result.stdout).toMatch(new RegExp(`${flag} <duration>[^]*?\\(default: ${shown}\\)`));
    }
  });
});

describe('help from the parameter specs', () => {
  /** Each flag's entry in the help, by flag name, and the heading it is listed under. */
  function entries(help: string): Map<string, { heading: string; text: string }> {
    const found = new Map<string, { heading: string; text: string }>();
    let heading = '';
    for (const block of help.split(/\n(?=\S|  -)/)) {
      if (/^\S.*:$/.test(block.split('\n')[0])) heading = block.split('\n')[0];
      const flag = /^ {2}(--[a-z-]+)/.exec(block);
      if (flag) found.set(flag[1], { heading, text: block.replace(/\s+/g, ' ') });
    }
    return found;
  }

  it("lists every stage's flag under its stage's heading, with its default in units", async () => {
    const { ALL_PARAM_SPECS } = await import('../../src/cli/param-registry.js');
    const { defaultText, flagName } = await import('../../src/common/param-spec.js');
    const { HELP_HEADINGS } = await import('../../src/cli/param-options.js');
    const [check, analyze] = await Promise.all([runInProcess(['check', '--help']), runInProcess(['analyze', '--help'])]);
    const shown = new Map([...entries(check.stdout), ...entries(analyze.stdout)]);
    for (const spec of ALL_PARAM_SPECS) {
      const entry = shown.get(flagName(spec));
      expect(entry?.heading, flagName(spec)).toBe(HELP_HEADINGS[spec.group]);
      if (spec.kind !== 'boolean' && spec.default !== undefined) expect(entry?.text).toContain(`(default: ${defaultText(spec)})`);
    }
    expect(shown.get('--recover-after')?.text).toContain('(default: 30m)');
    expect(shown.get('--stat-threshold')?.heading).toBe('Statistical detector:');
  });
});

describe('durations out of their range', () => {
  // Node fires a timer of more than 2^31-1 ms (597h) at once: each would have been a wrong verdict.
  it.each([
    [['check', '--duration', '597h'], '--duration', '597h', '1ms to 7d'],
    [['check', '--hook-timeout', '597h', '--on-evict', 'true'], '--hook-timeout', '597h', '1ms to 1d'],
    [['watch', '--interval', '597h'], '--interval', '597h', '1ms to 1h'],
    [['check', '--interval', '0.5ms'], '--interval', '0.5ms', '1ms to 1h'],
    [['check', '--timeout', '2h'], '--timeout', '2h', '0.001ms to 1h'],
    [['check', '--min-ttr', '8d'], '--min-ttr', '8d', '1s to 7d'],
    [['check', '--recover-after', '30d'], '--recover-after', '30d', '1ms to 7d'],
    [['check', '--stat-observe', '500ms'], '--stat-observe', '500ms', '1s to 1d'],
    [['check', '--sla', '2h'], '--sla', '2h', '0.001ms to 1h'],
    [['check', '--hang-after', '597h'], '--hang-after', '597h', '1ms to 1d'],
    [['replay', '-', '--min-ttr', '597h'], '--min-ttr', '597h', '1s to 7d'],
  ])('%j: exit 3 at once, one line naming the flag, the value and the range', async (args, flag, value, range) => {
    const result = await runInProcess(args, { cwd: work });
    expect(result.code).toBe(3);
    // At once on the run's clock: refused before any timer was due.
    expect(result.clockMs).toBe(0);
    expectOneCleanErrorLine(result.stderr, new RegExp(`${flag} <duration>.*'${value}'.*from ${range}`));
    expect(result.stdout).toBe('');
  });

  it('the largest duration of every range is one a timer can wait for', async () => {
    const { MAX_TIMER_MS } = await import('../../src/common/durations.js');
    const { ALL_PARAM_SPECS } = await import('../../src/cli/param-registry.js');
    const ranges = ALL_PARAM_SPECS.flatMap((spec) => (spec.kind === 'duration' ? [spec.range] : []));
    expect(ranges.length).toBeGreaterThan(10);
    for (const range of ranges) {
      expect(range.minMs).toBeGreaterThan(0);
      expect(range.maxMs).toBeGreaterThan(range.minMs);
      expect(range.maxMs).toBeLessThan(MAX_TIMER_MS);
    }
  });
});
