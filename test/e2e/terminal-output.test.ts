// Cron mail, pipes and logs get plain lines with no escape code; a terminal gets the live
// view, without colour when NO_COLOR is set, and plain lines when it cannot be redrawn.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-terminal-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const ESCAPE = /\x1b/;

describe('off a terminal: no spinner, no escape code', () => {
  it('watch prints plain round lines', async () => {
    const dir = mkdtempSync(path.join(work, 'watch-'));
    const cli = startCli(['watch', '--raft', dir, '--round-ticks', '5']);
    await waitFor(() => /tick 10 /.test(cli.stdout()), 10_000, 'two rounds');
    cli.child.kill('SIGINT');
    const result = await cli.done;
    expect(result.stdout).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d) 0\.5s tick 5 store \d+ \([\d.]+\) \| raft /);
    expect(result.stdout).not.toMatch(ESCAPE);
    expect(result.stderr).toBe('');
  });

  it.each([['human'], ['nagios']])('check --format %s prints its one line', async (format) => {
    const dir = mkdtempSync(path.join(work, 'check-'));
    const result = await runCli(['check', '--raft', dir, '--duration', '1s', '--allow-short', '--format', format]);
    expect(result.stdout.split('\n')).toHaveLength(2);
    expect(result.stdout).not.toMatch(ESCAPE);
  });

  it('replay prints its timeline', async () => {
    const trace = path.join(work, 'trace.jsonl');
    writeFileSync(trace, Array.from({ length: 60 }, (_, i) => `{"tick":${i + 1},"disk":"raft","ms":1}\n`).join(''));
    const result = await runCli(['replay', trace]);
    expect(result.stdout).toMatch(/^3\.0s tick 30 store 1 \(1\.00\) \| raft 1\.00 stat warming up predict warming up$/m);
    expect(result.stdout).not.toMatch(ESCAPE);
  });
});

const gate = requireRootFacilities(['tmux']);

/** The live view's header at the round of tick 10: the verdict, its reason, the store score. */
const HEADER_AT_TICK_10 = /(?:OK|WARNING \S+|CRITICAL \S+)(?:\x1b\[\d+m)? {2}store \d+ \([\d.]+\) {2}tick 10 /;
const SGR = /\x1b\[[\d;]*m/g;

/** A tmux server of this test's own, on its own socket, so that no one else's is touched. */
const SOCKET = `slowdisk-test-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Runs watch in a terminal of `columns` x 20 and returns the screen once `ready` shows on it, with its
 * colours and attributes as escape codes (capture-pane -e), then stops watch with Ctrl-C.
 */
async function screenOfWatch(dir: string, env: string[], ready: RegExp, flags: string[] = [], columns = 160): Promise<{ live: string; after: string }> {
  const session = `watch-${Math.random().toString(36).slice(2)}`;
  // CI and FORCE_COLOR from the environment of the tests would decide for the terminal.
  const command = ['env', '-u', 'CI', '-u', 'FORCE_COLOR', '-u', 'NO_COLOR', ...env, process.execPath, BIN, 'watch', '--raft', dir, '--round-ticks', '5', ...flags];
  tmux('new-session', '-d', '-x', String(columns), '-y', '20', '-s', session, command.map((word) => `'${word}'`).join(' '));
  try {
    tmux('set-option', '-t', session, 'remain-on-exit', 'on');
    let live = '';
    await waitFor(() => ready.test((live = tmux('capture-pane', '-p', '-e', '-t', session))), 15_000, `${ready} on the screen`);
    tmux('send-keys', '-t', session, 'C-c');
    await waitFor(() => tmux('display-message', '-p', '-t', session, '#{pane_dead}').trim() === '1', 10_000, 'watch to exit');
    // With the scrollback: tmux's "Pane is dead" line may have scrolled the screen.
    const after = tmux('capture-pane', '-p', '-e', '-S', '-', '-t', session);
    return { live, after };
  } finally {
    tmux('kill-session', '-t', session);
  }
}

describe.skipIf(gate.skip)('on a terminal (tmux)', () => {
  // A server kept up between the sessions: one whose last session was killed exits, and a
  // session started meanwhile (on a busy machine, likely) fails with "server exited unexpectedly".
  beforeAll(() => tmux('start-server', ';', 'set-option', '-g', 'exit-empty', 'off'));
  afterAll(() => {
    try {
      tmux('kill-server');
    } catch {
      // The server ended with its last session.
    }
  });

  it('the live view redraws in place, its spinner and its verdict in colour', async () => {
    const dir = mkdtempSync(path.join(work, 'tty-'));
    const { live, after } = await screenOfWatch(dir, [], HEADER_AT_TICK_10);
    expect(live).toMatch(/\x1b\[36m/);
    expect(live).toMatch(/\x1b\[32mOK\x1b\[39m {2}store /);
    const plain = live.replace(SGR, '');
    // Redrawn, not scrolled: one store line on the screen.
    expect(plain.match(/ store \d+ /g)).toHaveLength(1);
    // One second in, the statistical detector has judged nothing yet: it says so, never `ok`.
    // A tick past the timeout on a busy machine adds its round's cause (` busy: cpu`).
    expect(plain).toMatch(new RegExp(`^  raft +[\\d.]+ up write \\S+ sync \\S+ read \\S+ stat warming up(?: (?:busy|slow): \\S+)? on \\S+ ${dir}$`, 'm'));
    // Ctrl-C leaves the last view on the screen.
    expect(after.replace(SGR, '')).toMatch(/OK {2}store \d+ \([\d.]+\) {2}tick \d+ /);
  });

  it('60 columns: every line of the view fits, its fields shortened, none wrapped', async () => {
    const dir = mkdtempSync(path.join(work, 'narrow-'));
    const { live } = await screenOfWatch(dir, ['NO_COLOR=1'], HEADER_AT_TICK_10, [], 60);
    const lines = live.split('\n').filter((line) => line !== '');
    // The header (after the spinner) and the disk's line, nothing wrapped onto a third.
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^. OK {2}store \d+ \([\d.]+\) {2}tick 10 /);
    expect(lines[1]).toMatch(/^  raft +[\d.]+ up (write|w) /);
    for (const line of lines) expect(line.length).toBeLessThan(60);
  });

  const disks = requireRootFacilities(['tmux', 'root', 'loop']);
  it.skipIf(disks.skip)("--verbose: each block device's round under its disk, the disk's line naming them", async () => {
    const disk = await makeTestDisk();
    try {
      const loop = path.basename(disk.device);
      const { live } = await screenOfWatch(disk.dir, ['NO_COLOR=1'], /tick 10 /, ['--verbose']);
      const lines = live.split('\n');
      const diskLine = lines.findIndex((line) => /^  raft +[\d.]+ /.test(line));
      expect(lines[diskLine]).toMatch(new RegExp(` on ${loop}(,\\S+)?( ${disk.dir})?$`));
      expect(lines[diskLine + 1]).toMatch(new RegExp(`^    ${loop} \\(raft\\): read [\\d.]+/s.*, write [\\d.]+/s.*, flush [\\d.]+/s.*, in flight \\d+, util \\d+%$`));
    } finally {
      await removeAllTestDisks();
    }
  });

  it('NO_COLOR: the same view without a single escape code', async () => {
    const dir = mkdtempSync(path.join(work, 'no-color-'));
    const { live, after } = await screenOfWatch(dir, ['NO_COLOR=1'], HEADER_AT_TICK_10);
    expect(live).not.toMatch(ESCAPE);
    expect(after).not.toMatch(ESCAPE);
  });

  it('TERM=dumb: a terminal that cannot be redrawn gets the plain round lines', async () => {
    const dir = mkdtempSync(path.join(work, 'dumb-'));
    const { live } = await screenOfWatch(dir, ['TERM=dumb'], /tick 10 store /);
    expect(live).toMatch(/^\S+ 0\.5s tick 5 store \d+ \([\d.]+\) \| raft /m);
    expect(live).not.toMatch(/ {2}store /);
    expect(live).not.toMatch(ESCAPE);
  });
});
