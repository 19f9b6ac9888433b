// The CLI as a user meets it on this machine's own filesystem (no loop device needed): the real
// prober, and what it leaves behind a run, or not.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childPids, isAlive, probeFiles, runCli, startCli, waitFor } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-cli-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.concurrent('a run on the current directory', () => {
  it('with no path given, check probes the filesystem of the current directory and leaves nothing behind', async () => {
    const dir = mkdtempSync(path.join(work, 'cwd-'));
    const result = await runCli(['check', '--duration', '2s', '--allow-short'], { cwd: dir });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^OK: store score 1\\.00 after 2\\.\\ds .*\\| cwd ${dir} score 1\\.00 up max 1\\.00 inspections \\d+ timeouts \\d+ errors 0 median/p99/max write \\d`));
    expect(probeFiles(dir)).toEqual([]);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('watch stops on %s: exit %i, probe file removed, prober gone', async (signal, code) => {
    const dir = mkdtempSync(path.join(work, `${signal}-`));
    const cli = startCli(['watch', '--raft', dir]);
    await waitFor(() => probeFiles(dir).length === 1, 10_000, 'the probe file');
    const [prober] = childPids(cli.child.pid!);
    expect(prober).toBeGreaterThan(0);
    // One round line at least, off a TTY.
    await waitFor(() => /tick 30 store \d/.test(cli.stdout()), 10_000, 'the first round line');
    cli.child.kill(signal);
    const result = await cli.done;
    expect(result.code).toBe(code);
    expect(result.stderr).toBe('');
    expect(probeFiles(dir)).toEqual([]);
    await waitFor(() => !isAlive(prober), 5000, 'the prober to exit');
  });

  it('when the CLI is killed outright, the prober removes its probe file and exits by itself', async () => {
    const dir = mkdtempSync(path.join(work, 'sigkill-'));
    const cli = startCli(['watch', '--raft', dir]);
    await waitFor(() => probeFiles(dir).length === 1, 10_000, 'the probe file');
    const [prober] = childPids(cli.child.pid!);
    cli.child.kill('SIGKILL');
    const result = await cli.done;
    expect(result.signal).toBe('SIGKILL');
    await waitFor(() => !isAlive(prober), 5000, 'the prober to exit');
    expect(probeFiles(dir)).toEqual([]);
  });

  it('a probe file name that is a symlink is refused, and its target is untouched', async () => {
    // The prober picks a random name; a planted symlink at that exact name is covered by the
    // native tests. Here: slowdisk never follows or removes a stale-looking symlink.
    const dir = mkdtempSync(path.join(work, 'symlink-'));
    const target = path.join(work, 'precious');
    const { symlinkSync, writeFileSync, readFileSync, lstatSync } = await import('node:fs');
    writeFileSync(target, 'precious data');
    symlinkSync(target, path.join(dir, '.slowdisk-probe-999999-deadbeef'));
    const result = await runCli(['check', '--raft', dir, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(0);
    expect(readFileSync(target, 'utf8')).toBe('precious data');
    expect(lstatSync(path.join(dir, '.slowdisk-probe-999999-deadbeef')).isSymbolicLink()).toBe(true);
  });
});
