// Two disks slow together through what they share, on real devices, both images on one media
// disk. The media's device capped by the fault kit's slow: each disk's own device serves
// slowly and so does the other's, in the same rounds: the cause is `shared`, never `device`
// alone, and the store is CRITICAL as TiKV would have it (nothing held). The media kept busy
// by writers on one of them, at its capacity: the idle one is slow too, from its neighbour's
// load: `load` for both, never `device`.
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
    // The media given a real disk's capacity, 1000 writes a second, from the start: the
    // healthy rounds learn it serving some 40 a second in 0.2 ms. In memory and uncapped it
    // served the writers 7,000 to 12,000 a second in under a millisecond, so that on a quiet
    // machine no inspection of either disk passed even a 10 ms timeout and no round was slow.
    // Capped, the writers fill it: the media completes its 1000, and the probes' writes wait
    // behind theirs, 3 ms on a and 7 ms on b on average, some past the timeout (3 to 7 of each
    // disk's 6 to 11 rounds under the writers were slow, on a quiet machine or beside a CPU hog).
    await b.slow({ writeIops: 1000 });
    // A 10 ms timeout: the idle disks' rounds stay free of timeouts on a busy machine.
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
    await b.unslow();
  }, 150_000);
});
