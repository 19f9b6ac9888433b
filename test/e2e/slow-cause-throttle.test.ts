// A disk held by an I/O limit, on a real disk: the fault kit's throttle caps the disk's own
// device in the root blkio group, where slowdisk runs, as a cgroup's limit does. The device
// serves the few requests it gets as fast as ever; the cgroup's counters show them pinned at
// the limit. The cause is `throttle`, never `device`, and at the eviction threshold the disk
// is held: WARNING, no evict hook. Lifted, the disk comes back.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { causesOf, diskLines, events, linesOf, storeLines, waitForRounds } from '../helpers/cause-rounds.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

// 1 s rounds, as in slow-cause.test.ts.
const FLAGS = ['--keep-going', '--json', '--round-ticks', '10', '--stat-min-baseline', '5', '--stat-suspect-after', '2s'];
const HEALTHY_ROUNDS = 6;

describe.skipIf(requireRootFacilities(['root', 'loop', 'blkio']).skip)('the cause of a slow disk held by an I/O limit', () => {
  const hookDir = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-throttle-hook-'));
  let watch: RunningCli | undefined;

  afterAll(async () => {
    if (watch && watch.child.exitCode === null && watch.child.signalCode === null) watch.child.kill('SIGTERM');
    await watch?.done;
    await removeAllTestDisks();
    rmSync(hookDir, { recursive: true, force: true });
  }, 60_000);

  it('its own device capped at 5 write IOPS: throttle, never device; at the threshold held, WARNING, no evict hook', async () => {
    const disk = await makeTestDisk({ sizeMiB: 64 });
    const evicted = path.join(hookDir, 'evicted');
    watch = startCli(['watch', '--path', `a=${disk.dir}`, ...FLAGS, '--on-evict', `touch ${evicted}`]);
    await waitForRounds(watch, () => causesOf(watch!).filter((cause) => cause === undefined).length >= HEALTHY_ROUNDS, 60_000, 'the healthy rounds');
    const from = diskLines(watch).length;
    await disk.throttle({ writeIops: 5 });
    await waitForRounds(watch, () => causesOf(watch!, from).includes('throttle'), 30_000, 'a round whose cause is throttle');
    await waitForRounds(watch, () => diskLines(watch!).some((line) => line.held === 'throttle'), 60_000, 'a round that holds the disk');
    await waitFor(() => storeLines(watch!).length > 0 && storeLines(watch!).at(-1)!.reported_score === 100, 10_000, 'the round after');
    expect(causesOf(watch, from).filter((cause) => cause === 'device' || cause === 'shared')).toEqual([]);
    // The device line says why: the cgroup's I/O pinned at the limit on the disk's own device.
    const own = linesOf(watch).filter((line) => line.type === 'device' && line.major_minor === disk.majMin);
    expect(Math.max(...own.map((line) => (line.limit_use as number | undefined) ?? 0))).toBeGreaterThanOrEqual(0.5);
    expect(events(watch)).toContain('evict');
    const atThreshold = storeLines(watch).filter((line) => line.reported_score === 100);
    expect(atThreshold.map((line) => [line.severity, line.evict])).toEqual(atThreshold.map(() => ['slow', false]));
    await disk.unthrottle();
    watch.child.kill('SIGTERM');
    await watch.done;
    expect(existsSync(evicted)).toBe(false);
  }, 150_000);
});
