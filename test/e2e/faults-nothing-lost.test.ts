// Nothing of the user's is ever touched: through every way a run can end or lose its prober,
// with a hung disk on the way, only slowdisk's own probe files come and go.
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeFaultDisk, startWatch } from '../helpers/fault-cycle.js';
import { deadPid, probeHeader } from '../helpers/probe-file-fakes.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { childPids, isAlive, probeFiles, waitFor } from '../helpers/run-cli.js';
import { removeAllTestDisks } from '../helpers/test-disk.js';
import { digestTree } from '../helpers/tree-digest.js';
import type { WatchLines } from '../helpers/watch-lines.js';

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze']);

describe.skipIf(gate.skip)('nothing lost', () => {
  afterEach(removeAllTestDisks);
  afterAll(removeAllTestDisks);

  it("the user's files, probe-file look-alikes included, survive signals, killed probers and a hung disk", async () => {
    const raft = await makeFaultDisk();
    const kv = await makeFaultDisk();
    const dead = deadPid();
    writeFileSync(path.join(raft.dir, 'notes.txt'), 'raft notes\n');
    mkdirSync(path.join(raft.dir, 'sub'));
    writeFileSync(path.join(raft.dir, 'sub', 'data.bin'), randomBytes(65536));
    // Our name, our header, and a pid that is alive (init): a live prober's file to the scan.
    writeFileSync(path.join(raft.dir, '.slowdisk-probe-1-0badc0de'), probeHeader(1));
    // A symlink named like a stale probe file: never followed, never removed.
    symlinkSync('notes.txt', path.join(raft.dir, `.slowdisk-probe-${dead}-deadbeef`));
    // Named like a stale probe file, but without our header: the user's.
    writeFileSync(path.join(kv.dir, `.slowdisk-probe-${dead}-abcdef01`), 'named like a probe file\n');
    mkdirSync(path.join(kv.dir, 'db'));
    writeFileSync(path.join(kv.dir, 'db', '000001.sst'), randomBytes(65536));

    const dirs = [raft.dir, kv.dir];
    const before = dirs.map(digestTree);
    const lookAlikes = new Set(dirs.flatMap(probeFiles));
    /** The probe files slowdisk has made and not removed, as paths. */
    const ours = () => dirs.flatMap((dir) => probeFiles(dir).filter((name) => !lookAlikes.has(name)).map((name) => path.join(dir, name)));
    const bothUp = async (): Promise<{ watch: WatchLines; prober: number }> => {
      const watch = startWatch(['--raft', raft.dir, '--kv', kv.dir]);
      await watch.nextRound((round) => [...round.disks.values()].every((disk) => disk.state.startsWith('up ')), 10_000, 0, 'both disks up');
      return { watch, prober: childPids(watch.cli.child.pid!)[0]! };
    };
    const staleRemovedEvents = (watch: WatchLines) =>
      watch.lines.flatMap((line) => /^event: (?:raft|kv): removed probe files left by a dead slowdisk: (.*)$/.exec(line.text)?.[1]!.split(', ') ?? []).sort();

    for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
      const { watch } = await bothUp();
      watch.cli.child.kill(signal);
      expect((await watch.cli.done).code).toBe(code);
      expect(ours()).toEqual([]);
    }

    // The CLI killed outright: its prober sees the channel close, cleans up and leaves.
    {
      const { watch, prober } = await bothUp();
      watch.cli.child.kill('SIGKILL');
      await watch.cli.done;
      await waitFor(() => !isAlive(prober), 5000, 'the prober to exit');
      expect(ours()).toEqual([]);
    }

    // The prober killed outright: watch starts another, which removes the dead one's files.
    {
      const { watch, prober } = await bothUp();
      const left = ours().sort();
      expect(left).toHaveLength(dirs.length);
      process.kill(prober, 'SIGKILL');
      await watch.next(new RegExp(`^event: the prober \\(pid ${prober}\\) was killed by SIGKILL; started a new prober \\(pid \\d+\\)$`), 5000);
      await waitFor(() => staleRemovedEvents(watch).length === left.length, 5000, 'the stale-removed events');
      expect(staleRemovedEvents(watch)).toEqual(left);
      const restarted = watch.lines.length;
      await watch.nextRound((round) => [...round.disks.values()].every((disk) => disk.state.startsWith('up ')), 5000, restarted, 'both disks up again');
      watch.cli.child.kill('SIGTERM');
      expect((await watch.cli.done).code).toBe(143);
      expect(ours()).toEqual([]);
    }

    // A disk hung when watch is stopped: it exits at once; its prober cleans up after the thaw.
    {
      const { watch, prober } = await bothUp();
      await kv.hang();
      await watch.nextRound((round) => round.disks.get('kv')!.state.startsWith('waiting '), 5000, watch.lines.length, 'kv waiting');
      watch.cli.child.kill('SIGTERM');
      expect((await watch.cli.done).code).toBe(143);
      expect(isAlive(prober)).toBe(true);
      await kv.thaw();
      await waitFor(() => !isAlive(prober), 10_000, 'the prober to exit after the thaw');
      expect(ours()).toEqual([]);
    }

    // CLI and prober both killed, the prober before it could clean up: its files stay, and
    // the next run recognises them (name, header, dead pid) and removes them, and only them.
    {
      const { watch, prober } = await bothUp();
      const left = ours().sort();
      expect(left).toHaveLength(dirs.length);
      process.kill(prober, 'SIGSTOP');
      watch.cli.child.kill('SIGKILL');
      await watch.cli.done;
      process.kill(prober, 'SIGKILL');
      await waitFor(() => !isAlive(prober), 5000, 'the prober to die');
      expect(ours().sort()).toEqual(left);

      const next = await bothUp();
      expect(staleRemovedEvents(next.watch)).toEqual(left);
      next.watch.cli.child.kill('SIGTERM');
      expect((await next.watch.cli.done).code).toBe(143);
      expect(ours()).toEqual([]);
    }

    expect(dirs.map(digestTree)).toEqual(before);
  }, 90_000);
});
