// Two disks slow together through what they share, on real devices, both images on one media
// disk. The media's device capped by the fault kit's slow: each disk's own device serves
// slowly and so does the other's, in the same rounds: the cause is `shared`, never `device`
// alone, and the store is CRITICAL as TiKV would have it (nothing held). The media kept busy
// by writers on one of them: the idle one is slow too, from its neighbour's load: `load` for
// both, never `device`.
import { afterAll, describe, expect, it } from 'vitest';
import { diskLines, storeLines, waitForRounds } from '../helpers/cause-rounds.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

// 1 s rounds, as in slow-cause.test.ts.
const FLAGS = ['--keep-going', '--json', '--round-ticks', '10', '--stat-min-baseline', '5', '--stat-suspect-after', '2s'];
const HEALTHY_ROUNDS = 6;

describe.skipIf(requireRootFacilities(['root', 'loop', 'blkio']).skip)('the cause of two disks slow through what they share', () => {
  let watch: RunningCli | undefined;

  afterAll(async () => {
    if (watch && watch.child.exitCode === null && watch.child.signalCode === null) watch.child.kill('SIGTERM');
    await watch?.done;
    await removeAllTestDisks();
  }, 60_000);

  it('both images on one slowed media: shared for both, never device; CRITICAL, nothing held', async () => {
    const media = await makeTestDisk({ backingTmpfs: true, sizeMiB: 300 });
    const a = await makeTestDisk({ backingDir: media.dir, sizeMiB: 100 });
    const b = await makeTestDisk({ backingDir: media.dir, sizeMiB: 100 });
    watch = startCli(['watch', '--path', `a=${a.dir}`, '--path', `b=${b.dir}`, ...FLAGS]);
    const healthy = (disk: string) => diskLines(watch!, disk).filter((line) => line.cause === undefined).length >= HEALTHY_ROUNDS;
    await waitForRounds(watch, () => healthy('a') && healthy('b'), 60_000, 'the healthy rounds');
    const from = { a: diskLines(watch, 'a').length, b: diskLines(watch, 'b').length };
    // Slowing a slows its media, and so b too.
    await a.slow({ writeIops: 15 });
    const causes = (disk: 'a' | 'b') => diskLines(watch!, disk).slice(from[disk]).map((line) => line.cause as string | undefined);
    await waitForRounds(watch, () => causes('a').includes('shared') && causes('b').includes('shared'), 30_000, 'rounds whose cause is shared for both');
    await waitForRounds(watch, () => storeLines(watch!).some((line) => line.severity === 'evict'), 60_000, 'a CRITICAL round');
    expect([...causes('a'), ...causes('b')].filter((cause) => cause === 'device' || cause === 'load' || cause === 'throttle')).toEqual([]);
    expect([...diskLines(watch, 'a'), ...diskLines(watch, 'b')].filter((line) => line.held !== undefined)).toEqual([]);
    await waitFor(() => storeLines(watch!).at(-1)!.evict === true, 10_000, 'the store at the eviction threshold');
    await a.unslow();
  }, 150_000);

  it("one disk busy with direct writers, the other idle on the same media: load for both, never device", async () => {
    if (watch && watch.child.exitCode === null && watch.child.signalCode === null) watch.child.kill('SIGTERM');
    await watch?.done;
    await removeAllTestDisks();
    // b holds the load's four 32 MiB files with room to spare: a full b would go down.
    const media = await makeTestDisk({ backingTmpfs: true, sizeMiB: 400 });
    const a = await makeTestDisk({ backingDir: media.dir, sizeMiB: 100 });
    const b = await makeTestDisk({ backingDir: media.dir, sizeMiB: 200 });
    // A 10 ms timeout: the writers put some of each round's inspections of both disks past it
    // (17 to 19 rounds in 19 were slow, on a quiet machine or a busy one). Idle, the two disks
    // on one media answer in 0.5 to 3 ms, slower with another file's disk loaded beside: at
    // 2 ms, that left 0 to 6 rounds in 25 free of timeouts, too few to learn the devices' usual
    // figures; at 10 ms, 24.
    watch = startCli(['watch', '--path', `a=${a.dir}`, '--path', `b=${b.dir}`, ...FLAGS, '--timeout', '10ms']);
    const healthy = (disk: string) => diskLines(watch!, disk).filter((line) => line.cause === undefined).length >= HEALTHY_ROUNDS;
    await waitForRounds(watch, () => healthy('a') && healthy('b'), 60_000, 'the healthy rounds');
    const from = { a: diskLines(watch, 'a').length, b: diskLines(watch, 'b').length };
    await b.load(4);
    const causes = (disk: 'a' | 'b') => diskLines(watch!, disk).slice(from[disk]).map((line) => line.cause as string | undefined);
    await waitForRounds(watch, () => causes('a').includes('load') && causes('b').includes('load'), 30_000, 'rounds whose cause is load for both');
    const seen = diskLines(watch, 'a').length;
    await waitFor(() => diskLines(watch!, 'a').length >= seen + 5, 15_000, 'five more rounds');
    expect([...causes('a'), ...causes('b')].filter((cause) => cause === 'device' || cause === 'shared')).toEqual([]);
    await b.unload();
  }, 150_000);
});
