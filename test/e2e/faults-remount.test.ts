// The mount table is read afresh: a directory remounted onto another filesystem while watch
// runs is placed again within a round, and every output shows the new layout.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeFaultDisk, startWatch, stopWatch } from '../helpers/fault-cycle.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { probeFiles, startCli, waitFor } from '../helpers/run-cli.js';
import { removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';
import type { WatchLines } from '../helpers/watch-lines.js';

const ROUND_MS = 3000;
// Placed again within a round; the rest is room for a busy machine.
const PLACED_WITHIN_MS = ROUND_MS + 1000;

const bindMounts: string[] = [];

function bindMount(source: string, target: string): void {
  execFileSync('mount', ['--bind', source, target]);
  bindMounts.push(target);
}

function unmount(target: string): void {
  execFileSync('umount', [target]);
  bindMounts.splice(bindMounts.indexOf(target), 1);
}

/** Runs `change` and returns the layout event it brought, with the ms it took to show. */
async function layoutAfter(watch: WatchLines, change: () => unknown, layout: RegExp): Promise<{ index: number; ms: number }> {
  const from = watch.lines.length;
  await change();
  const changedAt = performance.now();
  const event = await watch.next(layout, 2 * PLACED_WITHIN_MS, from);
  return { index: event.index, ms: event.atMs - changedAt };
}

const gate = requireRootFacilities(['root', 'loop']);

describe.skipIf(gate.skip)('a directory remounted while watch runs', () => {
  afterEach(async () => {
    for (const target of [...bindMounts].reverse()) unmount(target);
    await removeAllTestDisks();
  });
  afterAll(removeAllTestDisks);

  it('kv, deduped with raft, gets a disk of its own mounted on it, then shares raft again through a bind mount', async () => {
    const raft = await makeFaultDisk();
    const kv = path.join(raft.dir, 'db');
    const raftShared = path.join(raft.dir, 'shared');
    mkdirSync(kv);
    mkdirSync(raftShared);
    const watch = startWatch(['--raft', raft.dir, '--kv', kv]);
    await watch.nextRound((round) => round.disks.get('kv')?.state === 'skipped: same filesystem as raft', ROUND_MS + 5000);

    let kvDisk: TestDisk | undefined;
    const ownDisk = await layoutAfter(
      watch,
      async () => (kvDisk = await makeFaultDisk({ dir: kv })),
      /^event: layout changed: raft on \/dev\/loop\d+, kv on \/dev\/loop\d+$/,
    );
    expect(watch.lines[ownDisk.index]!.text).toBe(`event: layout changed: raft on ${raft.device}, kv on ${kvDisk!.device}`);
    const probedOwn = await watch.nextRound((round) => round.disks.get('kv')?.state.startsWith('up ') === true, ROUND_MS + 1000, ownDisk.index);
    expect(probedOwn.round.disks.get('kv')!.score).toBe(1);
    // Its block device follows it onto the new filesystem (a loop device; its backing file on a tmpfs).
    const ownDevice = ` on ${path.basename(kvDisk!.device)}`;
    expect(probedOwn.round.disks.get('kv')!.state.endsWith(ownDevice)).toBe(true);
    expect(probeFiles(kv)).toHaveLength(1);

    const shared = await layoutAfter(
      watch,
      () => bindMount(raftShared, kv),
      new RegExp(`^event: layout changed: raft on ${raft.device}, kv skipped \\(same filesystem as raft\\)$`),
    );
    await watch.nextRound((round) => round.disks.get('kv')?.state === 'skipped: same filesystem as raft', ROUND_MS + 1000, shared.index);
    // kv's probe file stays on its own disk, under the bind mount; none is made on raft's.
    expect(probeFiles(raftShared)).toEqual([]);

    const ownAgain = await layoutAfter(watch, () => unmount(kv), new RegExp(`^event: layout changed: raft on ${raft.device}, kv on ${kvDisk!.device}$`));
    // Back on its own disk, its block device is shown again.
    await watch.nextRound((round) => round.disks.get('kv')?.state.startsWith('up ') === true && round.disks.get('kv')!.state.endsWith(ownDevice), ROUND_MS + 1000, ownAgain.index);

    console.log(
      `remount: layout shown ${ownDisk.ms.toFixed(0)} ms after kv got its own disk, ${shared.ms.toFixed(0)} ms after the bind mount of raft's directory, ${ownAgain.ms.toFixed(0)} ms after its unmount`,
    );
    for (const { ms } of [ownDisk, shared, ownAgain]) expect(ms).toBeLessThan(PLACED_WITHIN_MS);
    expect(watch.lines.filter((line) => / is down: /.test(line.text))).toEqual([]);
    // The file left under the bind mount is removed too, now that it is in reach again.
    await stopWatch(watch, [raft.dir, kv]);
  });

  it('another filesystem mounted over an inspected path mid-run: a layout event, and the run WARNING naming the path', async () => {
    const disk = await makeFaultDisk();
    const kv = path.join(disk.dir, 'db');
    mkdirSync(kv);
    const cli = startCli(['check', '--kv', kv, '--duration', '9s', '--allow-short']);
    await waitFor(() => probeFiles(kv).length === 1, 10_000, 'the first probe file');
    const over = await makeFaultDisk({ dir: kv });
    const result = await cli.done;
    expect(result.code).toBe(1);
    // Naming the filesystem it was on and the one it is on now.
    const was = `${disk.device} (${disk.majMin}) ext4 on ${disk.dir}`;
    const now = `${over.device} (${over.majMin}) ext4 on ${kv}`;
    expect(result.stdout.startsWith('WARNING: store score ')).toBe(true);
    expect(result.stdout).toMatch(/ after 9\.\ds \(max reported \d+, slow at 80, evict at 100; filesystem changed: kv \(was .*\)\) \| kv /);
    expect(result.stdout).toContain(`filesystem changed: kv (was ${was}, now ${now})) | kv `);
  });
});
