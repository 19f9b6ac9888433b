// A probe file is slowdisk's only when it is provably the one it made: a file made at its
// name on a real ext4 disk, even with its inode number, and the live files of runs in
// other PID namespaces are never written or removed; a directory swapped for a symlink is
// never probed at the new place. Needs root, loop devices and unshare.
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { bootTime, deadPid, plantAtProbeName, probeHeader } from '../helpers/probe-file-fakes.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN, childPids, jsonLines, probeFiles, startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const lines = (cli: RunningCli) => jsonLines(cli.stdout());
const events = (cli: RunningCli, kind: string) => lines(cli).filter((line) => line.type === 'event' && line.event === kind);
const diskLines = (cli: RunningCli) => lines(cli).filter((line) => line.type === 'disk');

const diskGate = requireRootFacilities(['root', 'loop']);

describe.skipIf(diskGate.skip)('a file made at the probe name after the probe file was removed, on ext4', () => {
  afterAll(removeAllTestDisks);

  it('is never written or removed, even when ext4 gives it the same inode number', async () => {
    const disk = await makeTestDisk({ fs: 'ext4' });
    const cli = startCli(['watch', '--json', '--raft', disk.dir]);
    try {
      await waitFor(() => diskLines(cli).length > 0, 10_000, 'the first round');
      const planted: { file: string; sum: string; reused: boolean }[] = [];
      // ext4 hands a freed inode number out again, mostly at once: tried until it does.
      for (let attempt = 0; attempt < 10 && !planted.some(({ reused }) => reused); attempt++) {
        const data = randomBytes(512 * 1024);
        const { name, ino } = await plantAtProbeName(disk.dir, (at) => writeFileSync(at, data, { flag: 'wx' }));
        const file = path.join(disk.dir, name);
        planted.push({ file, sum: createHash('sha256').update(data).digest('hex'), reused: statSync(file).ino === ino });
        await waitFor(() => events(cli, 'name-taken').length === planted.length, 5000, 'the name-taken event');
      }
      expect(planted.some(({ reused }) => reused)).toBe(true);
      const rounds = diskLines(cli).length;
      await waitFor(() => diskLines(cli).length > rounds, 10_000, 'another round');
      cli.child.kill('SIGTERM');
      expect((await cli.done).code).toBe(143);

      const taken = events(cli, 'name-taken');
      for (const [i, { file, sum, reused }] of planted.entries()) {
        expect(taken[i]).toMatchObject({ disk: 'raft', path: file, error: { code: 'ENAMETAKEN' } });
        if (reused) expect((taken[i]!.error as { message: string }).message).toMatch(/\(same inode number, another birth time\); left untouched$/);
        expect(existsSync(file)).toBe(true);
        expect(digest(file)).toBe(sum);
      }
      expect(events(cli, 'down')).toEqual([]);
      expect(diskLines(cli).at(-1)).toMatchObject({ state: 'up', errors: 0 });
      expect(probeFiles(disk.dir).sort()).toEqual(planted.map(({ file }) => path.basename(file)).sort());
    } finally {
      cli.child.kill('SIGKILL');
    }
  });
});

const rootGate = requireRootFacilities(['root']);

describe.skipIf(rootGate.skip)('the probed directory swapped for a symlink mid-run', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-swap-'));
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  // The old directory is found again, wherever it was renamed to, by its file handle, which
  // takes CAP_DAC_READ_SEARCH.
  it('is never probed at the new place: down with EDIRCHANGED, and the old probe file is removed at exit', async () => {
    const parent = mkdtempSync(path.join(work, 'parent-'));
    const dir = path.join(parent, 'DIR');
    mkdirSync(dir);
    const elsewhere = mkdtempSync(path.join(work, 'elsewhere-'));
    const cli = startCli(['watch', '--json', '--raft', dir]);
    await waitFor(() => diskLines(cli).length > 0, 10_000, 'the first round');
    expect(probeFiles(dir)).toHaveLength(1);

    renameSync(dir, `${dir}.orig`);
    symlinkSync(elsewhere, dir);
    await waitFor(() => events(cli, 'down').length > 0, 5000, 'the down event');
    const roundsBefore = diskLines(cli).length;
    await waitFor(() => diskLines(cli).length >= roundsBefore + 1, 10_000, 'another round');
    expect(probeFiles(elsewhere)).toEqual([]);
    cli.child.kill('SIGTERM');
    expect((await cli.done).code).toBe(143);

    const [down] = events(cli, 'down');
    expect(down).toMatchObject({ disk: 'raft', error: { code: 'EDIRCHANGED', errno: 0, path: dir } });
    expect((down!.error as { message: string }).message).toBe(
      `EDIRCHANGED: realpath ${dir} now leads to ${elsewhere}, not to ${dir} where it led at start; not probed there`,
    );
    expect(diskLines(cli).at(-1)).toMatchObject({ disk: 'raft', state: 'down', error: { code: 'EDIRCHANGED' } });
    expect(probeFiles(elsewhere)).toEqual([]);
    expect(probeFiles(`${dir}.orig`)).toEqual([]);
  });

});

const nsGate = requireRootFacilities(['root', 'unshare']);

describe.skipIf(nsGate.skip)('runs in different PID namespaces on one directory', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-pidns-'));
  const running: RunningCli[] = [];
  afterEach(() => {
    for (const cli of running.splice(0)) cli.child.kill('SIGKILL');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /**
   * `slowdisk watch --json` as pid 1 of a new PID namespace (a container), its pids counted
   * from one no process has outside it, so that a scan there that trusted the pid alone would
   * take the file for a dead run's.
   */
  function startInNamespace(dir: string): RunningCli & { firstPid: number } {
    const firstPid = deadPid() + 1000;
    const script = `echo ${firstPid - 1} > /proc/sys/kernel/ns_last_pid && exec "$0" "$@"`;
    const child = spawn(
      'unshare',
      ['--pid', '--fork', '--mount-proc', '--kill-child=SIGTERM', 'sh', '-c', script, process.execPath, BIN, 'watch', '--json', '--raft', dir],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string; elapsedMs: number }>((resolve) =>
      child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, elapsedMs: 0 })),
    );
    return { child, stdout: () => stdout, stderr: () => stderr, done, firstPid };
  }

  it("neither deletes the other's live probe file; a file of an earlier boot of this host is reclaimed", async () => {
    const dir = mkdtempSync(path.join(work, 'shared-'));
    // Left by this host in an earlier boot: provably dead whatever its pid names now.
    const earlier = `.slowdisk-probe-${process.pid}-0000e001`;
    writeFileSync(
      path.join(dir, earlier),
      probeHeader(process.pid, { bootId: '00000000-0000-4000-8000-000000000000', created: bootTime() - 3600 }),
    );
    const started = (cli: RunningCli) => waitFor(() => diskLines(cli).length > 0, 15_000, 'a first round');

    const host = startCli(['watch', '--json', '--raft', dir]);
    running.push(host);
    await started(host);
    const hostFile = probeFiles(dir).find((name) => name !== earlier)!;
    expect(events(host, 'stale-removed')).toMatchObject([{ paths: [path.join(dir, earlier)] }]);

    const contained = startInNamespace(dir);
    running.push(contained);
    await started(contained);
    const containedFile = probeFiles(dir).find((name) => name !== hostFile && name !== earlier)!;
    // Its prober's pid, from the name: up from the one asked for (the CLI's threads take some).
    const containedPid = Number(/^\.slowdisk-probe-(\d+)-/.exec(containedFile)![1]);
    expect(containedPid).toBeGreaterThanOrEqual(contained.firstPid);
    expect(existsSync(`/proc/${containedPid}`)).toBe(false);

    // A second run outside sees the contained run's file, whose pid is not alive here.
    const second = startCli(['watch', '--json', '--raft', dir]);
    running.push(second);
    await started(second);
    expect(probeFiles(dir)).toHaveLength(3);
    expect(probeFiles(dir)).toEqual(expect.arrayContaining([hostFile, containedFile]));
    for (const cli of [host, contained, second]) {
      expect(events(cli, 'stale-removed').flatMap((event) => event.paths as string[])).not.toContain(path.join(dir, hostFile));
      expect(diskLines(cli).at(-1)).toMatchObject({ state: 'up', errors: 0 });
    }

    // unshare passes no signal on: the contained CLI, its namespace's pid 1, is told itself.
    const [containedCli] = childPids(contained.child.pid!);
    for (const stop of [() => second.child.kill('SIGTERM'), () => process.kill(containedCli!, 'SIGTERM'), () => host.child.kill('SIGTERM')]) stop();
    for (const cli of [second, contained, host]) await cli.done;
    expect(probeFiles(dir)).toEqual([]);
  });
});
