// --on-evict and --on-recover as an operator meets them: the report a hook reads, hooks that
// fail or hang, and a real frozen disk evicted and recovered.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { HookReport } from '../../src/hooks/hook-report.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN, childPids, groupPids, isAlive, runCli, startCli, startCommand, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-hooks-e2e-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

// Any directory evicts fast: with a timeout no inspection can beat, every round doubles the
// score, and with 5-tick rounds and an eviction threshold of 2 the first round (0.5 s) evicts.
const EVICT_AT_FIRST_ROUND = ['--timeout', '0.001ms', '--round-ticks', '5', '--evict-threshold', '2', '--slow-threshold', '2'];

let made = 0;
const fresh = (name: string) => path.join(work, `${++made}-${name}`);

/** The report a hook wrote, once it is all there. */
function writtenReport(file: string): HookReport | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as HookReport;
  } catch {
    return undefined;
  }
}

function roundTicks(cli: RunningCli): number[] {
  return [...cli.stdout().matchAll(/ tick (\d+) store /g)].map((match) => Number(match[1]));
}

// Side by side: each test has its own directory, run and files, and mostly waits for them.
describe.concurrent('hooks on any directory', () => {
  it('check runs --on-evict with the report on stdin and waits for it before exiting CRITICAL', async () => {
    const dir = mkdtempSync(fresh('dir'));
    const out = fresh('report.json');
    const envOut = fresh('env');
    const result = await runCli(
      ['check', '--raft', dir, ...EVICT_AT_FIRST_ROUND, '--on-evict', 'echo "$SLOWDISK_EVENT $SLOWDISK_STORE_SCORE" > "$ENV_OUT"; sleep 1; cat > "$OUT"'],
      { env: { OUT: out, ENV_OUT: envOut } },
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('');
    expect(readFileSync(envOut, 'utf8')).toBe('evict 2\n');
    const report = writtenReport(out)!;
    expect(report).toMatchObject({
      event: 'evict',
      host: os.hostname(),
      store_score: 2,
      reported_score: 2,
      thresholds: { slow: 2, evict: 2 },
    });
    expect(Date.now() - Date.parse(report.time)).toBeLessThan(30_000);
    const [raft] = report.disks;
    expect(raft).toMatchObject({ name: 'raft', path: dir, score: 2, state: 'up', device: expect.stringMatching(/^\d+:\d+$/) });
    expect(raft!.mount).toEqual({ mount_point: expect.any(String), fstype: expect.any(String), source: expect.any(String) });
    // Whatever this machine's disk is, smart is either smartctl's answer or null with a reason.
    if (raft!.smart === null) expect(raft!.smart_unavailable).toEqual(expect.any(String));
    else expect(raft!.smart.command).toMatch(new RegExp(`smartctl -H -A ${raft!.whole_disk}$`));
    expect(report.score_history).toEqual([{ tick: 5, time: expect.any(String), store_score: 2, disks: { raft: 2 } }]);
    const inspections = report.latest_inspections.raft!;
    expect(inspections.length).toBeGreaterThanOrEqual(1);
    expect(inspections[0]).toEqual({
      tick: expect.any(Number),
      time: expect.any(String),
      ms: expect.any(Number),
      write_ms: expect.any(Number),
      sync_ms: expect.any(Number),
      read_ms: expect.any(Number),
    });
  });

  it('watch without --keep-going exits CRITICAL at the eviction only once its hook is done', async () => {
    const dir = mkdtempSync(fresh('dir'));
    const out = fresh('report.json');
    const result = await runCli(['watch', '--raft', dir, ...EVICT_AT_FIRST_ROUND, '--on-evict', 'sleep 1; cat > "$OUT"'], { env: { OUT: out } });
    expect(result.code).toBe(2);
    expect(writtenReport(out)).toMatchObject({ event: 'evict', reported_score: 2 });
  });

  // The hook's shell is its process group's leader: $$ is the group's id.
  const BACKGROUND_HOOK = 'sleep 300 & echo $$ > "$PGID_OUT"';

  it('a hook that leaves a child in the background: the CLI killed outright (SIGKILL), its whole group ends within seconds', async () => {
    const dir = mkdtempSync(fresh('dir'));
    const pgidOut = fresh('pgid');
    const cli = startCli(['watch', '--raft', dir, ...EVICT_AT_FIRST_ROUND, '--keep-going', '--on-evict', BACKGROUND_HOOK], { env: { PGID_OUT: pgidOut } });
    await waitFor(() => existsSync(pgidOut) && readFileSync(pgidOut, 'utf8').endsWith('\n'), 10_000, 'the hook to start its background child');
    const pgid = Number(readFileSync(pgidOut, 'utf8'));
    // The hook has exited; the sleep it left (and the guard) are still in its group while the run goes on.
    await waitFor(() => !isAlive(pgid), 5000, 'the hook itself to exit');
    const tickAtExit = Math.max(...roundTicks(cli));
    await waitFor(() => Math.max(...roundTicks(cli)) >= tickAtExit + 10, 10_000, 'two more rounds');
    expect(groupPids(pgid).length).toBeGreaterThan(0);
    const prober = childPids(cli.child.pid!);
    cli.child.kill('SIGKILL');
    expect((await cli.done).signal).toBe('SIGKILL');
    const killedAt = performance.now();
    await waitFor(() => groupPids(pgid).length === 0, 5000, `no process left in the hook's group ${pgid}`);
    expect(performance.now() - killedAt).toBeLessThan(5000);
    for (const pid of prober) await waitFor(() => !isAlive(pid), 5000, 'the prober to exit by itself');
  });

  it('a hook that leaves a child in the background: its group ends with the run (check exiting CRITICAL)', async () => {
    const dir = mkdtempSync(fresh('dir'));
    const pgidOut = fresh('pgid');
    const result = await runCli(['check', '--raft', dir, ...EVICT_AT_FIRST_ROUND, '--on-evict', BACKGROUND_HOOK], { env: { PGID_OUT: pgidOut } });
    expect(result.code).toBe(2);
    // The background sleep holds no pipe of the CLI's: `out=$(slowdisk check)` returns at once.
    expect(result.elapsedMs).toBeLessThan(10_000);
    const pgid = Number(readFileSync(pgidOut, 'utf8'));
    await waitFor(() => groupPids(pgid).length === 0, 5000, `no process left in the hook's group ${pgid}`);
  });

  it('check waits for a hanging hook only up to --hook-timeout, then kills it and says so', async () => {
    const dir = mkdtempSync(fresh('dir'));
    const result = await runCli(['check', '--raft', dir, ...EVICT_AT_FIRST_ROUND, '--hook-timeout', '1s', '--on-evict', 'sleep 60']);
    expect(result.code).toBe(2);
    expect(result.elapsedMs).toBeLessThan(10_000);
    expect(result.stderr).toBe("slowdisk: the evict hook 'sleep 60' was killed after 1s (--hook-timeout)\n");
  });

  it('watch: a hanging hook is killed with what it started after --hook-timeout, and the rounds keep coming meanwhile', async () => {
    const dir = mkdtempSync(fresh('dir'));
    const pidFile = fresh('sleep.pid');
    const hook = `sleep 60 & echo $! > ${pidFile}; wait`;
    const cli = startCli(['watch', '--raft', dir, ...EVICT_AT_FIRST_ROUND, '--keep-going', '--hook-timeout', '2s', '--on-evict', hook]);
    await waitFor(() => existsSync(pidFile), 10_000, 'the hook to start');
    const hookStarted = performance.now();
    const ticksAtStart = Math.max(...roundTicks(cli));
    await waitFor(() => cli.stderr() !== '', 10_000, 'the hook to be killed');
    expect(performance.now() - hookStarted).toBeGreaterThan(1500);
    expect(cli.stderr()).toBe(`slowdisk: the evict hook '${hook}' was killed after 2s (--hook-timeout)\n`);
    // Two seconds of 0.5 s rounds went by while the hook ran.
    expect(Math.max(...roundTicks(cli)) - ticksAtStart).toBeGreaterThanOrEqual(15);
    await waitFor(() => !isAlive(Number(readFileSync(pidFile, 'utf8'))), 2000, 'the sleep the hook started to be gone');
    cli.child.kill('SIGTERM');
    expect((await cli.done).code).toBe(143);
  });

  it('watch: a failing hook is logged with its exit code, and the rounds go on', async () => {
    const dir = mkdtempSync(fresh('dir'));
    const cli = startCli(['watch', '--raft', dir, ...EVICT_AT_FIRST_ROUND, '--keep-going', '--on-evict', 'echo "pd-ctl: connection refused" >&2; exit 3']);
    await waitFor(() => /exited with code 3/.test(cli.stderr()), 10_000, 'the failure to be logged');
    await waitFor(() => roundTicks(cli).includes(20), 10_000, 'more rounds');
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143);
    // The hook's own output goes to stderr too, never among the round lines on stdout.
    expect(result.stderr).toBe("pd-ctl: connection refused\nslowdisk: the evict hook 'echo \"pd-ctl: connection refused\" >&2; exit 3' exited with code 3\n");
    expect(result.stdout).not.toMatch(/pd-ctl/);
  });
});

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze']);

// Concurrent with the tests above and below (each has its disk, removed at the end of the file).
describe.skipIf(gate.skip).concurrent('hooks on a frozen loop disk', () => {

  // 0.5 s rounds: the hang evicts in 3-4 s, as it does in 21-24 s at TiKV's 3 s rounds
  // (faults-hung.test.ts times that). Recovery: 50 points a round at --min-ttr 1s.
  it('evict while it hangs, with the report an operator needs; recover once it has been back at 1 for --recover-after', async () => {
    const disk = await makeTestDisk();
    const evictOut = fresh('evict.json');
    const recoverOut = fresh('recover.json');
    const cli = startCli(
      [
        'watch', '--raft', disk.dir, '--keep-going', '--round-ticks', '5', '--hang-after', '1s', '--min-ttr', '1s', '--recover-after', '1s',
        '--on-evict', 'cat > "$EVICT_OUT"', '--on-recover', 'cat > "$RECOVER_OUT"',
      ],
      { env: { EVICT_OUT: evictOut, RECOVER_OUT: recoverOut } },
    );
    try {
      // Healthy rounds with more than the 20 inspections a report lists.
      await waitFor(() => / tick 25 /.test(cli.stdout()), 10_000, 'healthy first rounds');
      await disk.hang();
      await waitFor(() => writtenReport(evictOut) !== undefined, 10_000, 'the evict hook, 3-4 s after the hang');
      const evicted = writtenReport(evictOut)!;
      expect(evicted).toMatchObject({ event: 'evict', store_score: 100, reported_score: 100, thresholds: { slow: 80, evict: 100 } });
      expect(evicted.disks).toEqual([
        {
          name: 'raft',
          path: disk.dir,
          score: 100,
          // Hung since the inspection that met the freeze started, long before the score evicted.
          state: 'hung',
          waiting_ms: expect.any(Number),
          hung_since: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          device: disk.majMin,
          block_device: disk.device,
          whole_disk: disk.device,
          block_devices: expect.arrayContaining([path.basename(disk.device)]),
          // Its own filesystem frozen, the writes wait above the loop device's queue: no stall there.
          stalled_devices: [],
          // The early warning has no probability before its 4th sample of 15 s, a minute in.
          predicted_breach_probability: null,
          warning: false,
          // Frozen above its devices, which show nothing slow: the cause is not told.
          cause: 'unknown',
          mount: { mount_point: disk.dir, fstype: 'ext4', source: disk.device },
          smart: null,
          smart_unavailable: `${disk.device} is a virtual block device, not a physical disk`,
        },
      ]);
      // At most one doubling a round: the inspection in flight has been stuck for six rounds at least.
      expect(evicted.disks[0]!.waiting_ms).toBeGreaterThan(2500);
      expect(Date.parse(evicted.time) - Date.parse(evicted.disks[0]!.hung_since!)).toBeGreaterThan(2500);
      // The rounds up to the eviction, the last of them a doubling from 50 or more.
      const rise = evicted.score_history.map((round) => round.disks.raft!);
      expect(rise.length).toBeGreaterThanOrEqual(8);
      expect(rise.at(-1)).toBe(100);
      expect(rise.at(-2)).toBeGreaterThanOrEqual(50);
      // The inspections that came back before the hang: the stuck one never did.
      const before = evicted.latest_inspections.raft!;
      expect(before).toHaveLength(20);
      expect(before.every((inspection) => typeof inspection.ms === 'number' && inspection.error === undefined)).toBe(true);
      expect(Date.parse(before.at(-1)!.time)).toBeLessThan(Date.parse(evicted.time) - 2500);
      expect(existsSync(recoverOut)).toBe(false);

      await disk.thaw();
      // 100 falls to 1 in two 0.5 s rounds at --min-ttr 1s, then stays there 1 s.
      await waitFor(() => writtenReport(recoverOut) !== undefined, 10_000, 'the recover hook');
      const recovered = writtenReport(recoverOut)!;
      expect(recovered).toMatchObject({ event: 'recover', store_score: 1, reported_score: 1 });
      expect(recovered.disks[0]).toMatchObject({ name: 'raft', score: 1, state: 'up' });
      expect(recovered.score_history.map((round) => round.disks.raft).slice(-3)).toEqual([1, 1, 1]);
    } finally {
      cli.child.kill('SIGTERM');
      await cli.done;
    }
  });
});

describe.skipIf(requireRootFacilities(['root', 'loop', 'fsfreeze']).skip).concurrent('a hook whose output goes to a log on a frozen filesystem', () => {
  it('is not held up by its own writes: they are relayed, and reach the log after the thaw', async () => {
    const logs = await makeTestDisk();
    const log = path.join(logs.dir, 'slowdisk.log');
    writeFileSync(log, '');
    const dir = mkdtempSync(fresh('dir'));
    const done = fresh('done');
    await logs.hang();
    try {
      // The hook writes to its stderr and stdout first, which were the frozen log's own file
      // (the CLI's stderr), and only then says it is done.
      const hook = 'echo "the hook says so" >&2; echo "and prints this"; echo done > "$DONE"';
      const result = await startCommand([
        'sh',
        '-c',
        `exec "$0" "$@" >> "$LOG" 2>&1`,
        process.execPath,
        BIN,
        'check',
        '--raft',
        dir,
        ...EVICT_AT_FIRST_ROUND,
        '--hook-timeout',
        '10s',
        '--on-evict',
        hook,
      ], { env: { LOG: log, DONE: done } }).done;
      // Its writes waited in slowdisk's relay: the hook went on at once, and check exited
      // CRITICAL once it was done, long before --hook-timeout (10 s) would have killed it.
      expect(readFileSync(done, 'utf8')).toBe('done\n');
      expect(result.code).toBe(2);
      expect(result.elapsedMs).toBeLessThan(8_000);
    } finally {
      await logs.thaw();
    }
    // The relay writes what it held once the filesystem lets it.
    await waitFor(() => readFileSync(log, 'utf8').includes('and prints this'), 10_000, 'the hook\'s output in the log');
    expect(readFileSync(log, 'utf8')).toContain('the hook says so\n');
  }, 40_000);
});

afterAll(async () => {
  await removeAllTestDisks();
});
