// The tail detector judges each inspection by its whole time, the probe thread's waits for a
// CPU included, as the slow score does. Recordings (`watch --record`) of a healthy fault-kit
// disk (ext4, its backing file in memory) on a 2-core machine, kept to each inspection's
// tick, disk, duration and waits:
// - test/fixtures/tail-cpu-hogs.jsonl.gz: 410 s; from 200 s to 350 s two processes spun on the
//   CPUs (`yes > /dev/null`), and the probe thread waited out their time slices.
// - test/fixtures/tail-suite-load-{1,2}.jsonl.gz: 600 and 420 s beside whole runs of this
//   project's test suite and one spinning process. The suite was busiest from about 120 s to
//   300 s, where the disk's minute P99 went from 2.5 ms to as much as 15.7 and 23.3 ms.
// Through `slowdisk replay` with the default parameters none is ever confirmed. The suite's
// recordings less the probe thread's waits are doubted, and one confirmed, while the suite is
// busiest: when the thread waits for a CPU, so do the kernel's threads behind the disk's I/O,
// which no reading takes out, and the rest still rises with the host's load.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { replayTailChanges, type TailChange } from '../helpers/replay-tail-changes.js';

/** When the hogs started, in seconds on the trace's clock. */
const HOGS_S = 200;
/** The suite's busiest stretch, in seconds on the traces' clock. */
const SUITE_BUSY_S = 120;
const SUITE_BUSY_END_S = 300;

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-tail-busy-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const fixture = (name: string) => gunzipSync(readFileSync(path.resolve(import.meta.dirname, '../fixtures', name))).toString('utf8');
const written = (name: string, text: string) => {
  const file = path.join(work, name);
  writeFileSync(file, text);
  return file;
};
// Each inspection less the thread's wait during it (its own where the wait before it is known too).
const lessWaits = (trace: string) =>
  trace
    .split('\n')
    .map((line, i) => {
      if (i === 0 || line === '') return line;
      const { wait_ms: waitMs, start_wait_ms: startWaitMs, ...rest } = JSON.parse(line) as Record<string, unknown>;
      if (typeof rest.ms === 'number' && typeof waitMs === 'number' && startWaitMs != null) rest.ms = Math.max(0, rest.ms - waitMs);
      return JSON.stringify(rest);
    })
    .join('\n');

const hogs = written('hogs.jsonl', fixture('tail-cpu-hogs.jsonl.gz'));
const suites = [1, 2].map((run) => {
  const text = fixture(`tail-suite-load-${run}.jsonl.gz`);
  return { whole: written(`suite-${run}.jsonl`, text), lessWaits: written(`suite-${run}-less-waits.jsonl`, lessWaits(text)) };
});
const states = (changes: TailChange[], ...wanted: unknown[]) => changes.filter((change) => wanted.includes(change.tail));

describe('a healthy disk on a busy host', () => {
  it('beside two processes spinning on the CPUs, is judged before them and never confirmed', async () => {
    const { changes } = await replayTailChanges(hogs, 'kv');
    expect(changes[1]).toMatchObject({ tail: 'ok' });
    expect(changes[1]!.s).toBeLessThan(HOGS_S);
    expect(states(changes, 'confirmed')).toEqual([]);
  });

  it('beside the test suite, is judged while the suite is busiest and never confirmed', async () => {
    for (const suite of suites) {
      const { changes } = await replayTailChanges(suite.whole, 'kv');
      expect(changes[1]).toMatchObject({ tail: 'ok' });
      expect(changes[1]!.s).toBeLessThan(SUITE_BUSY_END_S);
      expect(states(changes, 'confirmed')).toEqual([]);
    }
  });

  it("less the probe thread's waits, the same inspections are doubted while the suite is busiest, and confirmed", async () => {
    const replays = await Promise.all(suites.map((suite) => replayTailChanges(suite.lessWaits, 'kv')));
    for (const { changes } of replays) {
      const doubted = states(changes, 'suspect', 'confirmed');
      expect(doubted.length).toBeGreaterThan(0);
      expect(doubted[0]!.s).toBeGreaterThan(SUITE_BUSY_S);
      expect(doubted[0]!.s).toBeLessThan(SUITE_BUSY_END_S);
    }
    expect(replays.flatMap(({ changes }) => states(changes, 'confirmed')).length).toBeGreaterThan(0);
  });
});
