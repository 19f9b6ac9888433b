// The tail detector judges a disk by its own time, not by the prober's waits for a CPU:
// test/fixtures/tail-cpu-hogs.jsonl.gz is `watch --record` on a fault-kit disk (ext4, its
// backing file in memory) on a 2-core machine, kept to each inspection's tick, disk, duration
// and waits. The disk was healthy throughout; from 200 s to 350 s two processes spun on the
// CPUs (`yes > /dev/null`), and the probe thread waited out their time slices: a few ms in
// every hundred inspections, a P99 of about 5 ms against a disk's own of under 1 ms. Through
// `slowdisk replay` with the default parameters the disk is judged and never doubted; the
// same trace without its waits (as a recorder that did not read them would have it) is
// doubted for the hogs' tail, which is what the waits are read for.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { replayTailChanges } from '../helpers/replay-tail-changes.js';

const FIXTURE = path.resolve(import.meta.dirname, '../fixtures/tail-cpu-hogs.jsonl.gz');
/** When the hogs started and stopped, in seconds on the trace's clock. */
const HOGS_S = 200;
const HOGS_END_S = 350;

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-tail-cpu-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const recorded = gunzipSync(readFileSync(FIXTURE)).toString('utf8');
const withWaits = path.join(work, 'with-waits.jsonl');
const withoutWaits = path.join(work, 'without-waits.jsonl');
writeFileSync(withWaits, recorded);
writeFileSync(
  withoutWaits,
  recorded
    .split('\n')
    .map((line, i) => {
      if (i === 0 || line === '') return line;
      const { wait_ms: _wait, start_wait_ms: _start, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(rest);
    })
    .join('\n'),
);

describe('a healthy disk whose prober waits for a CPU beside busy processes', () => {
  it('is judged and never doubted: its tail is the prober\'s waits, not its own', async () => {
    const { changes } = await replayTailChanges(withWaits, 'kv');
    expect(changes.map((change) => change.tail)).toEqual([null, 'ok']);
    // Judged before the hogs: the rest of the run is a verdict, not a default.
    expect(changes[1]!.s).toBeLessThan(HOGS_S);
  });

  it('read without its waits, the same inspections are doubted while the processes spin', async () => {
    const { changes } = await replayTailChanges(withoutWaits, 'kv');
    const doubted = changes.filter((change) => change.tail === 'suspect' || change.tail === 'confirmed');
    expect(doubted.length).toBeGreaterThan(0);
    expect(doubted[0]!.s).toBeGreaterThan(HOGS_S);
    expect(doubted[0]!.s).toBeLessThan(HOGS_END_S);
  });
});
