// The tail detector's minutes on a real loop disk, replayed: test/fixtures/tail-throttle-30-write-iops.jsonl.gz
// is `watch --record` on a fault-kit disk (ext4, its backing file in memory) on a busy 2-core
// machine, kept to each inspection's tick, disk and duration. The disk was healthy for 270 s,
// under the kit's `slow --write-iops 30` until 360 s, then healthy again. Through `slowdisk
// replay` with the default parameters (a baseline of up to 10 minutes, judged once it holds
// 2): the healthy disk is judged and never doubted, the throttle's waits at the journal's
// commits are suspect and then confirmed, and the disk is let go after the lift. A live run of
// a tail, the disk's filesystem frozen now and then, is test/e2e/faults-tail-slow.test.ts.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { replayTailChanges } from '../helpers/replay-tail-changes.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/tail-throttle-30-write-iops.jsonl.gz');
/** When the throttle was set and lifted, in seconds on the trace's clock. */
const THROTTLED_S = 270;
const LIFTED_S = 360;

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-tail-recorded-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const trace = path.join(work, 'trace.jsonl');
writeFileSync(trace, gunzipSync(readFileSync(FIXTURE)));

describe("a loop disk's recorded tail under the fault kit's write throttle", () => {
  it('is judged after its baseline holds 2 minutes, confirmed through suspect under the throttle, and let go after it', async () => {
    const { code, changes } = await replayTailChanges(trace, 'kv');
    // Not judged (null) until the baseline holds 2 minutes and the window 30 s.
    expect(changes[0]).toEqual({ tail: null, s: 3 });
    const judged = changes[1]!;
    expect(judged.tail).toBe('ok');
    expect(judged.s).toBeGreaterThanOrEqual(150);
    // Healthy for 90 s and more once judged: never doubted before the throttle.
    expect(changes.filter((change) => change.s <= THROTTLED_S).map((change) => change.tail)).toEqual([null, 'ok']);
    // The throttle: suspect, confirmed, ok again after the lift, and nothing else.
    const [suspect, confirmed, released, ...after] = changes.slice(2);
    expect([suspect?.tail, confirmed?.tail, released?.tail]).toEqual(['suspect', 'confirmed', 'ok']);
    expect(after).toEqual([]);
    expect(confirmed!.s - THROTTLED_S).toBeLessThanOrEqual(150);
    expect(confirmed!.s).toBeLessThan(LIFTED_S);
    // The window empties of the tail (30 s), then 30 s without any rise.
    expect(released!.s).toBeGreaterThan(LIFTED_S + 30);
    expect(released!.s - LIFTED_S).toBeLessThanOrEqual(90);
    // The confirmation makes the run WARNING; the slow score never neared 80.
    expect(code).toBe(1);
  });
});
