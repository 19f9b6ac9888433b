// A CLI stopped (SIGSTOP, what a job control stop or a frozen cgroup does) or starved of CPU
// while its prober goes on inspecting must not charge a disk for its own pause: on resume the
// batches waiting in its pipe are read before any tick is charged, each record judged at the
// time it was made. The pause is told as slowdisk's own; no hung event, no eviction, no hook.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { isAlive, jsonLines, probeFiles, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-cli-held-up-'));
const gate = requireRootFacilities(['root', 'loop']);
const stopped = new Set<number>();

afterEach(async () => {
  for (const pid of stopped) if (isAlive(pid)) process.kill(pid, 'SIGCONT');
  stopped.clear();
  await removeAllTestDisks();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const events = (stdout: string, kind: string) => jsonLines(stdout).filter((line) => line['type'] === 'event' && line['event'] === kind);

describe.skipIf(gate.skip)('the CLI stopped for 25 s while its prober inspects a healthy disk', () => {
  it('charges nothing: the score stays low, no hang, no eviction, the hook never runs', async () => {
    const disk = await makeTestDisk();
    const hookRan = path.join(work, 'evicted');
    const cli = startCli(['watch', '--json', '--path', `a=${disk.dir}`, '--on-evict', `touch ${hookRan}`]);
    const pid = cli.child.pid!;
    try {
      await waitFor(() => jsonLines(cli.stdout()).some((line) => line['type'] === 'store'), 10_000, 'a first round');
      process.kill(pid, 'SIGSTOP');
      stopped.add(pid);
      await new Promise((resolve) => setTimeout(resolve, 25_000));
      process.kill(pid, 'SIGCONT');
      stopped.delete(pid);
      await waitFor(() => events(cli.stdout(), 'held-up').length > 0, 5000, 'the hold told');
      // The backlog's rounds, and a few after it.
      const roundsAfter = jsonLines(cli.stdout()).filter((line) => line['type'] === 'store').length + 3;
      await waitFor(() => jsonLines(cli.stdout()).filter((line) => line['type'] === 'store').length >= roundsAfter, 15_000, 'three rounds after the resume');
    } finally {
      cli.child.kill('SIGTERM');
    }
    const result = await cli.done;
    const lines = jsonLines(result.stdout);
    const held = events(result.stdout, 'held-up');
    expect(held).toHaveLength(1);
    expect(held[0]!['held_ms']).toBeGreaterThanOrEqual(20_000);
    expect(events(result.stdout, 'hung')).toEqual([]);
    const diskLines = lines.filter((line) => line['type'] === 'disk');
    // Every round of the pause is there (3 s rounds: 25 s is 8 of them), none hung, none scored up.
    const rounds = lines.filter((line) => line['type'] === 'store').map((line) => line['tick']);
    expect(rounds.length).toBeGreaterThanOrEqual(9);
    expect(rounds).toEqual(rounds.map((_, i) => 30 * (i + 1)));
    expect(diskLines.filter((line) => line['state'] !== 'up')).toEqual([]);
    expect(diskLines.filter((line) => (line['score'] as number) >= 2)).toEqual([]);
    expect(result.code).toBe(143);
    expect(existsSync(hookRan)).toBe(false);
    expect(probeFiles(disk.dir)).toEqual([]);
  });
});
