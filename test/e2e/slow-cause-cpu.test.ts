// A prober starved of CPU, on a real disk: watch runs in a cgroup whose CPU quota a busy
// neighbour in the same cgroup uses up (a container at its CPU limit), so that for most of
// each second no thread of slowdisk runs. The disk answers fast whenever asked; the ticks time
// out waiting for the prober. The cause is `cpu`, never `device`, and at the eviction
// threshold the disk is held: WARNING, no evict hook.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { causesOf, diskLines, events, storeLines, waitForRounds } from '../helpers/cause-rounds.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN, startCommand, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

// 1 s rounds, as in slow-cause.test.ts.
const FLAGS = ['--keep-going', '--json', '--round-ticks', '10', '--stat-min-baseline', '5', '--stat-suspect-after', '2s'];
const HEALTHY_ROUNDS = 6;
const CPU_ROOT = '/sys/fs/cgroup/cpu';

/** `command` run inside `cgroup`: the shell moves itself in, then becomes the command. */
const inCgroup = (cgroup: string, command: string[]) => ['sh', '-c', `echo $$ > ${cgroup}/cgroup.procs && exec "$@"`, 'sh', ...command];

describe.skipIf(requireRootFacilities(['root', 'loop', 'cpu-quota']).skip)('the cause of a slow disk whose prober waits for a CPU', () => {
  const cgroup = path.join(CPU_ROOT, `slowdisk-test-cpu-${process.pid}`);
  const hookDir = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-cpu-hook-'));
  let watch: RunningCli | undefined;
  let hog: ChildProcess | undefined;

  afterAll(async () => {
    // The quota lifted first, so that what is left in the cgroup ends at once when told.
    if (existsSync(cgroup)) writeFileSync(path.join(cgroup, 'cpu.cfs_quota_us'), '-1');
    if (hog && hog.exitCode === null && hog.signalCode === null) {
      const gone = new Promise((resolve) => hog!.once('close', resolve));
      hog.kill('SIGKILL');
      await gone;
    }
    if (watch && watch.child.exitCode === null && watch.child.signalCode === null) watch.child.kill('SIGTERM');
    await watch?.done;
    if (existsSync(cgroup)) {
      await waitFor(() => readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8').trim() === '', 10_000, 'the cgroup to empty');
      rmdirSync(cgroup);
    }
    await removeAllTestDisks();
    rmSync(hookDir, { recursive: true, force: true });
  }, 60_000);

  it('a cgroup at its CPU quota: cpu, never device; at the threshold held, WARNING, no evict hook', async () => {
    const disk = await makeTestDisk({ backingTmpfs: true, sizeMiB: 64 });
    mkdirSync(cgroup);
    const evicted = path.join(hookDir, 'evicted');
    watch = startCommand(inCgroup(cgroup, [process.execPath, BIN, 'watch', '--path', `a=${disk.dir}`, ...FLAGS, '--on-evict', `touch ${evicted}`]));
    await waitForRounds(watch, () => causesOf(watch!).filter((cause) => cause === undefined).length >= HEALTHY_ROUNDS, 60_000, 'the healthy rounds');
    const from = diskLines(watch).length;
    // 50 ms of CPU a second for the whole cgroup, and a neighbour that takes it all whenever
    // it can: slowdisk's threads wait up to 950 ms to run.
    writeFileSync(path.join(cgroup, 'cpu.cfs_period_us'), '1000000');
    writeFileSync(path.join(cgroup, 'cpu.cfs_quota_us'), '50000');
    hog = spawn('sh', inCgroup(cgroup, ['sh', '-c', 'while :; do :; done']).slice(1), { stdio: 'ignore' });
    await waitForRounds(watch, () => causesOf(watch!, from).includes('cpu'), 30_000, 'a round whose cause is cpu');
    await waitForRounds(watch, () => diskLines(watch!).some((line) => line.held === 'cpu'), 60_000, 'a round that holds the disk');
    await waitFor(() => storeLines(watch!).length > 0 && storeLines(watch!).at(-1)!.reported_score === 100, 10_000, 'the round after');
    expect(causesOf(watch, from).filter((cause) => cause === 'device' || cause === 'shared')).toEqual([]);
    // TiKV's score and its evict event as TiKV has them, but held: WARNING.
    expect(events(watch)).toContain('evict');
    const atThreshold = storeLines(watch).filter((line) => line.reported_score === 100);
    expect(atThreshold.map((line) => [line.severity, line.evict])).toEqual(atThreshold.map(() => ['slow', false]));
    // The neighbour gone and the quota lifted, watch stops as asked, and no hook ever ran.
    hog.kill('SIGKILL');
    writeFileSync(path.join(cgroup, 'cpu.cfs_quota_us'), '-1');
    watch.child.kill('SIGTERM');
    await watch.done;
    expect(existsSync(evicted)).toBe(false);
  }, 150_000);
});
