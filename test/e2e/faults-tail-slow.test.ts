// A disk whose tail slows under watch: the fault kit's write throttle on a loop disk makes a
// few inspections in every hundred wait for the throttle while the median holds. The tail
// detector confirms it (tail-slow), and lets go once the throttle is lifted.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeFaultDisk, startWatch, stopWatch } from '../helpers/fault-cycle.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { removeAllTestDisks } from '../helpers/test-disk.js';

// The default baseline (10 minutes, judged once it holds 2): a disk is judged some 2.5 minutes
// after it is first seen.
const JUDGED_WITHIN_MS = 240_000;
// The baseline grows on the healthy disk for this much more before the throttle. A loop disk's
// healthy P99 wanders between about 2 and 20 ms from minute to minute (the journal's commits,
// the host's scheduling): a baseline of 2 minutes can catch a quiet stretch, and the disk's
// ordinary minutes then stand above its line. With 4 minutes or more, the throttle's waits (40
// to 80 ms, once every few seconds) are the disk's only inspections far above it.
const HEALTHY_AFTER_JUDGED_MS = 90_000;
// The kit's throttle at 30 write IOPS: the probe writes some 20 times a second, so most writes
// pass, and those that meet the journal's commit wait for the throttle's next slots: the
// inspections' median holds and their P99 goes from about 10 to about 75 ms. At 25 IOPS the
// median itself moves (a slowdown of the whole disk, which the other detectors judge).
const LIMITS = { writeIops: 30 };
// Confirmed some 25 s after the throttle on an idle 2-core machine; room for a busy one.
const CONFIRMED_WITHIN_MS = 150_000;
// Let go --tail-release after the window shows no rise, once it has emptied of the tail (30
// s): 5 s rather than the default 30 s, as the release is the rule's and not the disk's.
const RELEASE = '5s';
const RELEASED_WITHIN_MS = 150_000;
// A healthy disk made suspect by a stall of the host is let go like a throttled one.
const SETTLED_WITHIN_MS = 150_000;

const gate = requireRootFacilities(['root', 'loop', 'blkio']);

describe.skipIf(gate.skip)('a disk whose tail slows under watch', () => {
  afterEach(removeAllTestDisks);
  afterAll(removeAllTestDisks);

  it("the kit's write throttle is confirmed tail-slow, and let go after the throttle is lifted", async () => {
    const disk = await makeFaultDisk();
    const watch = startWatch(['--kv', disk.dir, '--json', '--tail-release', RELEASE]);
    const kvTail = (state: string) => new RegExp(`"type":"disk".*"disk":"kv".*"tail":"${state}"`);
    // Healthy until it is judged, and for a while after: its baseline forms on the healthy disk.
    const judged = await watch.next(kvTail('ok'), JUDGED_WITHIN_MS, 0);
    await new Promise((resolve) => setTimeout(resolve, HEALTHY_AFTER_JUDGED_MS));
    // The throttle meets a disk whose tail reads ok: a stall of the host's own can make the
    // healthy disk suspect for a few seconds (the statistical detector then doubts it too), and
    // a throttle injected then would be confirmed without the suspicion it must go through.
    const settled = await watch.next(kvTail('ok'), SETTLED_WITHIN_MS, watch.lines.length);
    const beforeThrottle = settled.index;
    // Suspect is doubt, not a verdict: the healthy disk is never confirmed.
    expect(watch.lines.slice(judged.index).filter((line) => kvTail('confirmed').test(line.text))).toEqual([]);

    await disk.throttle(LIMITS);
    const throttledAt = performance.now();
    const confirmed = await watch.next(kvTail('confirmed'), CONFIRMED_WITHIN_MS, beforeThrottle);

    await disk.unthrottle();
    const liftedAt = performance.now();
    const released = await watch.next(kvTail('ok'), RELEASED_WITHIN_MS, confirmed.index);
    console.log(
      `tail: confirmed ${((confirmed.atMs - throttledAt) / 1000).toFixed(0)} s after the throttle (${LIMITS.writeIops} write IOPS), ok again ${((released.atMs - liftedAt) / 1000).toFixed(0)} s after it was lifted`,
    );
    // Confirmed through suspect.
    const suspect = watch.lines.findIndex((line, i) => i >= beforeThrottle && kvTail('suspect').test(line.text));
    expect(suspect).toBeGreaterThanOrEqual(beforeThrottle);
    expect(suspect).toBeLessThan(confirmed.index);
    await stopWatch(watch, [disk.dir]);
  }, JUDGED_WITHIN_MS + HEALTHY_AFTER_JUDGED_MS + SETTLED_WITHIN_MS + CONFIRMED_WITHIN_MS + RELEASED_WITHIN_MS + 30_000);
});
