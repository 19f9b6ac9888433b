// A disk whose tail slows under watch: the fault kit's write throttle on a loop disk makes a
// few inspections in every hundred wait for the throttle while the median holds. The tail
// detector confirms it (tail-slow), and lets go once the throttle is lifted.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeFaultDisk, startWatch, stopWatch } from '../helpers/fault-cycle.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { removeAllTestDisks } from '../helpers/test-disk.js';

// The shortest baseline the registry takes: the disk is judged 1.5 minutes after it is first
// seen (the baseline, then a full window), on its healthy inspections only.
const BASELINE = ['--tail-baseline', '1m'];
const JUDGED_WITHIN_MS = 150_000;
// The kit's throttle at 30 write IOPS: the probe writes some 20 times a second, so most
// writes pass and a few in every hundred wait for the throttle's next slot (30 ms and more):
// the inspections' median holds and their P99 goes x15 on an idle machine. At 25 the median
// itself moves (a slowdown of the whole disk, which the other detectors judge). The baseline
// forms on the healthy disk first, so that the throttle's tail is judged against it.
const LIMITS = { writeIops: 30 };
// Confirmed within 60 s of a grown tail on a quiet host; a busy 2-core host may take longer
// for the window to fill with enough slow seconds.
const CONFIRMED_WITHIN_MS = 150_000;
// Let go 30 s after the window shows no rise, once it has emptied of the tail (30 s).
const RELEASED_WITHIN_MS = 150_000;

const gate = requireRootFacilities(['root', 'loop', 'blkio']);

describe.skipIf(gate.skip)('a disk whose tail slows under watch', () => {
  afterEach(removeAllTestDisks);
  afterAll(removeAllTestDisks);

  it('the kit\'s write throttle is confirmed tail-slow, and let go after the throttle is lifted', async () => {
    const disk = await makeFaultDisk();
    const watch = startWatch(['--kv', disk.dir, ...BASELINE, '--json']);
    // Healthy until it is judged: its baseline formed on the healthy disk.
    const judged = await watch.next(/"type":"disk".*"disk":"kv".*"tail":"ok"/, JUDGED_WITHIN_MS, 0);
    expect(watch.lines.slice(0, judged.index).filter((line) => /"tail":"(suspect|confirmed)"/.test(line.text))).toEqual([]);

    await disk.slow(LIMITS);
    const throttledAt = performance.now();
    const confirmed = await watch.next(/"type":"disk".*"disk":"kv".*"tail":"confirmed"/, CONFIRMED_WITHIN_MS, judged.index);

    await disk.unslow();
    const liftedAt = performance.now();
    const released = await watch.next(/"type":"disk".*"disk":"kv".*"tail":"ok"/, RELEASED_WITHIN_MS, confirmed.index);
    console.log(
      `tail: confirmed ${((confirmed.atMs - throttledAt) / 1000).toFixed(0)} s after the throttle (${LIMITS.writeIops} write IOPS), ok again ${((released.atMs - liftedAt) / 1000).toFixed(0)} s after it was lifted`,
    );
    // Confirmed through suspect, never before the throttle.
    const suspect = watch.lines.findIndex((line, i) => i > judged.index && /"disk":"kv".*"tail":"suspect"/.test(line.text));
    expect(suspect).toBeGreaterThan(judged.index);
    expect(suspect).toBeLessThan(confirmed.index);
    await stopWatch(watch, [disk.dir]);
  }, JUDGED_WITHIN_MS + CONFIRMED_WITHIN_MS + RELEASED_WITHIN_MS + 30_000);
});
