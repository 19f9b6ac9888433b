// stdout and stderr as cron and systemd give them: a write that fails keeps the verdict's exit
// code with one line on stderr, never a stack trace; too few file descriptors is one line and
// exit 3 at start, never a crash; and a log file on a frozen filesystem never holds the command
// past its duration nor makes it unkillable.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN, childPids, probeFiles, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze']);
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-stdio-faults-'));
afterEach(() => removeAllTestDisks());
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Any disk evicts at the first round (0.5 s): a timeout no inspection beats, threshold 2.
const EVICT_AT_FIRST_ROUND = ['--timeout', '0.001ms', '--round-ticks', '5', '--evict-threshold', '2', '--slow-threshold', '2'];

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  /** From spawn to the process's exit (not its pipes' close). */
  elapsedMs: number;
}

/** Runs `command` with stdout on `stdoutFd` (stderr piped unless `stderrFd`), resolving at its exit. */
function runWith(command: string[], stdoutFd: number | 'pipe-closed', stderrFd?: number): { pid: number; ended: Promise<Ended> } {
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), { stdio: ['ignore', stdoutFd === 'pipe-closed' ? 'pipe' : stdoutFd, stderrFd ?? 'pipe'] });
  // The reader goes away before anything is written: the write at the end meets EPIPE.
  if (stdoutFd === 'pipe-closed') child.stdout!.destroy();
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const ended = new Promise<Ended>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, stderr, elapsedMs: performance.now() - started })));
  return { pid: child.pid!, ended };
}

const cli = (...args: string[]) => [process.execPath, BIN, ...args];

describe.skipIf(gate.skip)('stdout that cannot be written', () => {
  it('a CRITICAL check with stdout on /dev/full exits 2, with one line on stderr', async () => {
    const disk = await makeTestDisk();
    const full = openSync('/dev/full', 'w');
    try {
      const { ended } = runWith(cli('check', '--duration', '2s', '--path', `a=${disk.dir}`, ...EVICT_AT_FIRST_ROUND), full);
      const result = await ended;
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('slowdisk: cannot write to stdout: ENOSPC: no space left on device, write; the run goes on without it\n');
    } finally {
      closeSync(full);
    }
    expect(probeFiles(disk.dir)).toEqual([]);
  });

  it('a CRITICAL check whose reader went away exits 2, silently', async () => {
    const disk = await makeTestDisk();
    const result = await runWith(cli('check', '--duration', '2s', '--path', `a=${disk.dir}`, ...EVICT_AT_FIRST_ROUND), 'pipe-closed').ended;
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('');
  });

  it('watch with stdout on /dev/full goes on monitoring, and ends on SIGTERM as usual', async () => {
    const disk = await makeTestDisk();
    const full = openSync('/dev/full', 'w');
    try {
      const { pid, ended } = runWith(cli('watch', '--path', `a=${disk.dir}`), full);
      let exited = false;
      void ended.then(() => (exited = true));
      // Its first round (3 s) failed to be written; it goes on.
      await new Promise((resolve) => setTimeout(resolve, 6000));
      expect(exited).toBe(false);
      process.kill(pid, 'SIGTERM');
      const result = await ended;
      expect(result.code).toBe(143);
      expect(result.stderr).toBe('slowdisk: cannot write to stdout: ENOSPC: no space left on device, write; the run goes on without it\n');
    } finally {
      closeSync(full);
    }
    expect(probeFiles(disk.dir)).toEqual([]);
  });

  it.each([64, 15, 10])('ulimit -n %i is one line and exit 3 at start, whether run as a program or by node', async (limit) => {
    const dir = mkdtempSync(path.join(work, 'probed-'));
    const args = ['check', '--duration', '1s', '--allow-short', '--path', `a=${dir}`];
    for (const command of [[BIN, ...args], cli(...args)]) {
      const result = await runWith(['bash', '-c', `ulimit -n ${limit} && exec "$@"`, 'bash', ...command], 'pipe-closed').ended;
      // Below about 20, node itself crashes before any JS runs: only the program's own start can refuse.
      if (command[0] !== BIN && limit < 20) {
        expect(result.signal ?? result.code).not.toBe(0);
        continue;
      }
      expect(result.code).toBe(3);
      expect(result.stderr).toBe(`slowdisk: ulimit -n is ${limit}: slowdisk needs at least 256 file descriptors (raise it: ulimit -n 1024, or LimitNOFILE= in a unit)\n`);
    }
    expect(probeFiles(dir)).toEqual([]);
  });
});

describe.skipIf(gate.skip)('stdout and stderr in a log on a frozen filesystem', () => {
  it('check ends in about its duration, watch dies on SIGKILL at once, and the log gets its lines at the thaw', async () => {
    const disk = await makeTestDisk();
    const logs = await makeTestDisk();
    const log = path.join(logs.dir, 'log');
    // `>> F/log 2>&1`, opened before the freeze as a shell would have.
    const fd = openSync(log, 'a');
    try {
      await logs.hang();
      const check = await runWith(cli('check', '--duration', '2s', '--allow-short', '--path', `a=${disk.dir}`), fd, fd).ended;
      expect(check.code).toBe(0);
      // 2 s, and node's start on a loaded machine: not the thaw.
      expect(check.elapsedMs).toBeLessThan(8000);

      const watch = runWith(cli('watch', '--path', `a=${disk.dir}`), fd, fd);
      // Its first round went to the log's writer, which is stuck in the frozen filesystem.
      const writerStuck = () =>
        childPids(watch.pid).some((pid) => {
          try {
            return readFileSync(`/proc/${pid}/stat`, 'utf8').includes('(cat) D');
          } catch {
            return false;
          }
        });
      await waitFor(writerStuck, 20_000, "the log's writer stuck on its first round");
      const killedAt = performance.now();
      process.kill(watch.pid, 'SIGKILL');
      const killed = await watch.ended;
      expect(killed.signal).toBe('SIGKILL');
      expect(performance.now() - killedAt).toBeLessThan(2000);

      await logs.thaw();
      await waitFor(() => /^OK: store score 1\.00 after 2\.\ds /m.test(readFileSync(log, 'utf8')), 10_000, "check's line in the log after the thaw");
      await waitFor(() => /^\S+ 3\.0s tick 30 store 1 /m.test(readFileSync(log, 'utf8')), 10_000, "watch's first round in the log after the thaw");
    } finally {
      closeSync(fd);
    }
    // The killed watch's prober removes its probe file once it sees the CLI gone.
    await waitFor(() => probeFiles(disk.dir).length === 0, 10_000, 'the probe files removed');
    expect(existsSync(log)).toBe(true);
  });
});
