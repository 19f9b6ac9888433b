// check and watch on real loop-device filesystems, with real faults: a throttled disk, a
// frozen one, a shared filesystem, a memory-backed one.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { childPids, isAlive, probeFiles, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop', 'blkio', 'fsfreeze']);

describe.skipIf(gate.skip)('check and watch on loop-device filesystems', () => {
  afterEach(async () => {
    await removeAllTestDisks();
  });

  it('a healthy disk: OK, exit 0, latencies shown, probe file removed', async () => {
    const disk = await makeTestDisk();
    const result = await runCli(['check', '--raft', disk.dir, '--duration', '4s', '--allow-short']);
    expect(result.code).toBe(0);
    // The loop device, then the disk under its backing file (none on a tmpfs or an overlay).
    const loop = path.basename(disk.device);
    expect(result.stdout).toMatch(
      new RegExp(`^OK: store score 1\\.00 after 4\\.\\ds \\(max reported 1, slow at 80, evict at 100\\) \\| raft \\S+ score 1\\.00 up max 1\\.00 inspections \\d+ timeouts 0 errors 0 median/p99/max write [\\d.]+m?s/[\\d.]+m?s/[\\d.]+m?s sync \\S+ read \\S+ stat warming up predict warming up on ${loop}(,\\S+)?\n$`),
    );
    expect(probeFiles(disk.dir)).toEqual([]);
  });

  // 0.5 s rounds: seven doublings to 100 take 3.5 s instead of 21 s; the 21 s at TiKV's own
  // rounds is timed in faults-hung.test.ts.
  it('a disk whose device serves 2 writes a second: CRITICAL once seven rounds have doubled its score', async () => {
    const disk = await makeTestDisk({ media: true });
    await disk.slow({ writeIops: 2 });
    const cli = startCli(['check', '--raft', disk.dir, '--round-ticks', '5']);
    await waitFor(() => childPids(cli.child.pid!).length > 0, 5000, 'the prober');
    const [prober] = childPids(cli.child.pid!);
    const result = await cli.done;
    expect(result.code).toBe(2);
    expect(result.elapsedMs).toBeLessThan(10_000);
    expect(result.stdout).toMatch(/^CRITICAL: store score 100 /);
    await disk.unslow();
    await waitFor(() => !isAlive(prober), 30_000, 'the prober to finish its I/O and exit');
    expect(probeFiles(disk.dir)).toEqual([]);
  });

  it('WARNING when the reported score reaches the slow threshold and not the eviction threshold', async () => {
    const disk = await makeTestDisk();
    await disk.hang();
    // A hang doubles the score every 1 s round: 2 at 1 s, 4 at 2 s.
    const result = await runCli(['check', '--raft', disk.dir, '--duration', '2.5s', '--allow-short', '--round-ticks', '10', '--hang-after', '2s', '--slow-threshold', '4']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^WARNING: store score 4\.00 after 2\.\ds \(max reported 4, slow at 4, evict at 100; rising: raft \(a continuous run would evict it in 5\.0s\); hung: raft\) \| raft \S+ score 4\.00 hung: /);
    await disk.thaw();
  });

  it('watch keeps scoring a healthy disk while another one hangs', async () => {
    const healthy = await makeTestDisk();
    const frozen = await makeTestDisk();
    await frozen.hang();
    const cli = startCli(['watch', '--raft', healthy.dir, '--kv', frozen.dir, '--keep-going', '--round-ticks', '10', '--hang-after', '2s']);
    await waitFor(() => /tick 30 /.test(cli.stdout()), 20_000, 'three rounds');
    const lines = cli.stdout().trimEnd().split('\n');
    const round3 = lines.find((line) => / tick 30 /.test(line))!;
    expect(round3).toMatch(/store 8 \(8\.00\) \| raft \S+ score 1\.00 up write .* \| kv \S+ score 8\.00 hung: an inspection in flight for [\d.]+s since /);
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143);
    expect(probeFiles(healthy.dir)).toEqual([]);
    await frozen.thaw();
  });

  it('raft and kv on one filesystem are inspected once, including through a bind mount', async () => {
    const disk = await makeTestDisk();
    const raft = path.join(disk.dir, 'raft');
    const kvSource = path.join(disk.dir, 'db');
    mkdirSync(raft);
    mkdirSync(kvSource);
    const kv = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-bind-'));
    execFileSync('mount', ['--bind', kvSource, kv]);
    try {
      const cli = startCli(['check', '--raft', raft, '--kv', kv, '--duration', '3s', '--allow-short']);
      await waitFor(() => probeFiles(raft).length === 1, 5000, 'the raft probe file');
      expect(probeFiles(kv)).toEqual([]);
      const result = await cli.done;
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(new RegExp(`\\| raft ${raft} score 1\\.00 up .* \\| kv ${kv} skipped: same filesystem as raft`));
    } finally {
      execFileSync('umount', [kv]);
      rmSync(kv, { recursive: true });
    }
  });

  it('2,000 --path entries to one directory: resolving them costs the first round no tick', async () => {
    // A directory in memory: a loop device's first writes would cost ticks of their own, and
    // the machine's own disk is shared with whatever else runs.
    const dir = mkdtempSync(path.join('/dev/shm', 'slowdisk-many-'));
    const args = Array.from({ length: 2000 }, (_, i) => ['--path', `p${i + 1}=${dir}`]).flat();
    const trace = path.join(mkdtempSync(path.join(os.tmpdir(), 'slowdisk-many-trace-')), 'trace.jsonl');
    const cli = startCli(['watch', ...args, '--json', '--record', trace, '--round-ticks', '10']);
    await waitFor(() => /"type":"store","time":"[^"]+","tick":10,/.test(cli.stdout()), 20_000, 'the first round');
    cli.child.kill('SIGINT');
    expect((await cli.done).code).toBe(130);
    // Every tick of the round had its inspection, back within the interval and in time.
    const inTime = readFileSync(trace, 'utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((line) => JSON.parse(line) as { tick: number; disk?: string; ms?: number; late?: boolean })
      .filter((line) => line.disk === 'p1' && line.tick <= 10 && line.ms !== undefined && line.ms < 100 && !line.late)
      .map((line) => line.tick);
    expect(inTime).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    const lines = cli.stdout().trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const firstRound = lines.filter((line) => line.tick === 10);
    expect(firstRound.find((line) => line.type === 'store')).toMatchObject({ store_score: 1 });
    const disks = firstRound.filter((line) => line.type === 'disk');
    expect(disks).toHaveLength(2000);
    expect(disks.filter((line) => line.inspected).map((line) => line.disk)).toEqual(['p1']);
    expect(probeFiles(dir)).toEqual([]);
    rmSync(path.dirname(trace), { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  it('two filesystems are two disks, each with its own probe file', async () => {
    const a = await makeTestDisk();
    const b = await makeTestDisk();
    const cli = startCli(['check', '--raft', a.dir, '--path', `wal=${b.dir}`, '--duration', '2s', '--allow-short']);
    await waitFor(() => probeFiles(a.dir).length === 1 && probeFiles(b.dir).length === 1, 5000, 'both probe files');
    const result = await cli.done;
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\| raft \S+ score 1\.00 up .* \| wal \S+ score 1\.00 up /);
  });

  it('a filesystem that refuses O_DIRECT: exit 3 naming it, or --buffered, marked in the output', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-ramfs-'));
    execFileSync('mount', ['-t', 'ramfs', 'ramfs', dir]);
    try {
      const refused = await runCli(['check', '--raft', dir, '--duration', '1s', '--allow-short']);
      expect(refused.code).toBe(3);
      expect(refused.stderr).toMatch(new RegExp(`^slowdisk: cannot probe raft=${dir}: the ramfs filesystem at ${dir} refuses O_DIRECT \\(EINVAL: open ${dir}/\\.slowdisk-probe-\\d+-[0-9a-f]+\\); --buffered probes it through the page cache instead\n$`));
      expect(probeFiles(dir)).toEqual([]);
      const buffered = await runCli(['check', '--raft', dir, '--duration', '1s', '--allow-short', '--buffered']);
      expect(buffered.code).toBe(0);
      expect(buffered.stdout).toMatch(/raft \S+ score 1\.00 up .*\[not a disk: ramfs; buffered: no O_DIRECT\]/);
      expect(probeFiles(dir)).toEqual([]);
    } finally {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true });
    }
  });

  it('a memory-backed filesystem is flagged as not a disk', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', dir]);
    try {
      const result = await runCli(['check', '--raft', dir, '--duration', '1s', '--allow-short']);
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/raft \S+ score 1\.00 up .*\[not a disk: tmpfs\]/);
    } finally {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true });
    }
  });
});

afterAll(async () => {
  await removeAllTestDisks();
});
