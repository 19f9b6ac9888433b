// SIGUSR1, which log rotations send out of habit, opens Node's inspector, where any local user
// runs JavaScript as root. Sent with kill to each process of a running watch (the CLI, its
// prober, the output writer of a drives-only run), it opens nothing: no "Debugger listening"
// line, no listening TCP socket, and the run goes on.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { childPids, isAlive, startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-debug-signal-'));

/** The inodes of the TCP sockets listening on this machine (state 0A), IPv4 and IPv6. */
function listeningTcpInodes(): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/** The listening TCP sockets process `pid` holds. */
function listeningSocketsOf(pid: number): string[] {
  const listening = listeningTcpInodes();
  return readdirSync(`/proc/${pid}/fd`).flatMap((fd) => {
    try {
      const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1];
      return inode !== undefined && listening.has(inode) ? [inode] : [];
    } catch {
      return [];
    }
  });
}

/** Sends SIGUSR1 to each of `pids` and gives an inspector time to open: none does, and each still runs. */
async function expectNoInspector(cli: RunningCli, pids: number[]): Promise<void> {
  try {
    for (const pid of pids) process.kill(pid, 'SIGUSR1');
    // Node's inspector listens within milliseconds of the signal.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (const pid of pids) {
      expect(isAlive(pid)).toBe(true);
      expect(listeningSocketsOf(pid)).toEqual([]);
    }
  } finally {
    cli.child.kill('SIGTERM');
  }
  const result = await cli.done;
  expect(result.stderr).not.toMatch(/Debugger|inspector/);
  expect(result.stdout).not.toMatch(/Debugger|inspector/);
}

describe.skipIf(requireRootFacilities(['root', 'loop']).skip)('SIGUSR1 to a running watch', () => {
  // A drive is judged against 3 peers: a drives-only run needs 4.
  const disks: TestDisk[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 4; i += 1) disks.push(await makeTestDisk());
  }, 120_000);
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  }, 60_000);

  it('opens no inspector in the CLI or its prober', async () => {
    const cli = startCli(['watch', '--path', `a=${disks[0]!.dir}`]);
    await waitFor(() => / tick \d+ /.test(cli.stdout()) && childPids(cli.child.pid!).length === 1, 20_000, 'the first line of the watch, from its prober');
    const [prober] = childPids(cli.child.pid!);
    await expectNoInspector(cli, [cli.child.pid!, prober!]);
  }, 60_000);

  it('opens no inspector in the output writer of a drives-only run', async () => {
    const textfileDir = path.join(work, 'textfile');
    mkdirSync(textfileDir);
    const cli = startCli(['watch', '--devices', disks.map((disk) => path.basename(disk.device)).join(','), '--state-dir', path.join(work, 'state'), '--textfile', textfileDir]);
    // Once the writer has written, it runs slowdisk's code (Node's own start-up, before any, is not covered).
    await waitFor(() => existsSync(path.join(textfileDir, 'slowdisk-drives.prom')), 30_000, 'the first textfile');
    expect(childPids(cli.child.pid!)).toHaveLength(1);
    const [writer] = childPids(cli.child.pid!);
    await expectNoInspector(cli, [cli.child.pid!, writer!]);
  }, 60_000);
});
