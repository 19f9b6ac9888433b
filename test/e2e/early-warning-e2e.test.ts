// The early warning live, on a real loop disk that is really throttled: watch shows the
// probability and the warning, and its recorded trace replays to exactly the same
// predictions, round by round; check exits WARNING for a disk in warning. The two run side by
// side, each on a disk of its own: each waits a minute for the predictor's first 4 samples of
// 15 s, and neither times the other's disk.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { jsonLines, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop', 'blkio']);

type Line = Record<string, unknown>;

/** The whole JSON lines printed so far (the last one may still be on its way). */
function wholeLines(stdout: string): Line[] {
  return stdout
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Line);
}

/** tick -> the disk's probability and warning, from its disk lines. */
function predictions(lines: Line[], disk: string): Map<number, string> {
  const byTick = new Map<number, string>();
  for (const line of lines) {
    if (line.type === 'disk' && line.disk === disk) byTick.set(line.tick as number, `${String(line.predicted_breach_probability)} ${String(line.warning)}`);
  }
  return byTick;
}

describe.skipIf(gate.skip).concurrent('early warning in watch', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-early-warning-e2e-'));
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  });

  it('warns of a throttled disk, and its trace replays to the same predictions', { timeout: 180_000 }, async ({ expect }) => {
    const disk = await makeTestDisk();
    const trace = path.join(work, 'live.jsonl');
    const cli = startCli(['watch', '--kv', disk.dir, '--json', '--keep-going', '--record', trace]);
    let live: Line[];
    try {
      const kv = () => wholeLines(cli.stdout()).filter((line) => line.type === 'disk' && line.disk === 'kv');
      // The first probability comes with the 4th sample of 15 s, after a minute.
      await waitFor(() => kv().some((line) => typeof line.predicted_breach_probability === 'number'), 75_000, 'a first probability');
      expect(kv().every((line) => line.warning === false)).toBe(true);
      const throttledAfter = kv().at(-1)!.tick as number;
      await disk.throttle({ writeIops: 2 });
      // The next sample (15 s at most) has inspections far over the 200 ms SLA.
      await waitFor(() => kv().some((line) => line.warning === true), 40_000, 'a warning');
      const warned = kv().find((line) => line.warning === true)!;
      expect(warned.tick as number).toBeGreaterThan(throttledAfter);
      expect(warned).toMatchObject({ predictor_model: 'network' });
      console.log(`early warning live: throttled after tick ${throttledAfter}, warned at tick ${warned.tick as number} (probability ${String(warned.predicted_breach_probability)}, score ${String(warned.score)})`);
    } finally {
      await disk.unthrottle();
      cli.child.kill('SIGINT');
    }
    const result = await cli.done;
    expect(result.code).toBe(130);
    live = jsonLines(result.stdout);

    const replay = await runCli(['replay', trace, '--json']);
    expect(replay.stderr).toBe('');
    expect([1, 2]).toContain(replay.code);
    const replayed = predictions(jsonLines(replay.stdout), 'kv');
    const liveByTick = predictions(live, 'kv');
    expect(liveByTick.size).toBeGreaterThan(20);
    for (const [tick, prediction] of liveByTick) expect(`${tick}: ${replayed.get(tick)}`).toBe(`${tick}: ${prediction}`);
  });

  it('check exits WARNING for a disk in state warning whose score stays 1, and says so in the Nagios line', { timeout: 120_000 }, async ({ expect }) => {
    const disk = await makeTestDisk();
    // Every real inspection takes longer than 0.1 ms: the disk is past this SLA from the start,
    // a breach under way, so its probability is 1 once the predictor has its 4 samples. A
    // timeout of 1 s keeps a busy host's stalls (writes of 170 ms beside the other test) from
    // doubling the score: the warning alone makes this run WARNING.
    const result = await runCli(['check', '--kv', disk.dir, '--duration', '70s', '--sla', '0.1ms', '--warn-probability', '0.5', '--timeout', '1s', '--format', 'nagios']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^SLOWDISK WARNING - store score 1 \(slow at 80, evict at 100\) after 70\.\ds; kv 1\.00 up stat (warming up|confirmed \((?:fast|rules), \d+\.\ds\)|\S+)(?: (?:busy|slow): \w+)? warning \(predict 1\.00, of \w+\) on \S+ \| /);
    expect(result.stdout).toMatch(/ 'kv_breach_probability'=1;0\.5;;0;1\n$/);
  });
});
