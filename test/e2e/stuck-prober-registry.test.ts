// Checks run one after another on a frozen disk leave at most one prober stuck there, found
// through the registry under /run/slowdisk, which only root can write and whose planted
// symlink is not followed. The runs judge what a disk did over seconds, not to the tick, and
// run beside other files.
import { existsSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { RegistryEntry } from '../../src/prober/prober-registry.js';
import { FrozenDiskLeftovers } from '../helpers/frozen-disk-leftovers.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN, isAlive, jsonLines, probeFiles, proberOf, startCli, startCommand, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, type TestDisk } from '../helpers/test-disk.js';

const REGISTRY = '/run/slowdisk';
/** What a prober takes to exit, or a watch to see it gone, with other files' runs beside it. */
const BESIDE_MS = 5000;

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-stuck-'));

/** The registry's entries now, each with its file name. */
function registryEntries(): (RegistryEntry & { file: string })[] {
  if (!existsSync(REGISTRY)) return [];
  return readdirSync(REGISTRY)
    .filter((name) => /^prober-[0-9a-f]{32}\.json$/.test(name))
    .flatMap((name) => {
      try {
        return [{ ...(JSON.parse(readFileSync(path.join(REGISTRY, name), 'utf8')) as RegistryEntry), file: name }];
      } catch {
        return [];
      }
    });
}

const entriesOn = (disk: TestDisk) => registryEntries().filter((entry) => entry.device === disk.majMin);

/** Whether `pid` runs node now (a shell that has exec'd the CLI). */
function isCli(pid: number): boolean {
  try {
    return readlinkSync(`/proc/${pid}/exe`) === process.execPath;
  } catch {
    return false;
  }
}

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze', 'unshare']);

describe.skipIf(gate.skip)('a prober stuck on a frozen disk, and the registry that finds it', () => {
  const left = new FrozenDiskLeftovers();
  afterEach(() => left.cleanUp());
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('three checks on a frozen disk: one prober stuck there, not three; the later runs report hung since it got stuck; its entry goes with it at the thaw', async () => {
    const disk = await makeTestDisk();
    const probers: number[] = [];
    const summaries: Record<string, unknown>[] = [];
    let watch: ReturnType<typeof startCli> | undefined;
    try {
      await disk.hang();
      // Each run shorter than --hang-after: the first cannot name the hang itself.
      for (let run = 0; run < 3; run += 1) {
        const cli = startCli(['check', '--kv', disk.dir, '--duration', '1.5s', '--allow-short', '--json', '--hang-after', '2s']);
        probers.push(await proberOf(cli));
        const result = await cli.done;
        expect(result.code).toBe(1);
        summaries.push(jsonLines(result.stdout).at(-1)!);
        // The prober left behind records itself stuck once its inspection has been in flight
        // for --hang-after; a run that starts before that cannot know it is (runs from cron
        // come minutes apart). The next run starts once it has.
        if (run === 0) await waitFor(() => entriesOn(disk).some((entry) => entry.stuck_since !== null), BESIDE_MS, 'the first prober to record itself stuck');
      }
      probers.forEach((pid) => left.stuck.add(pid));
      const [first] = probers;
      // The first run's prober is the one left stuck: the others never touched the frozen disk, and have exited.
      const entries = entriesOn(disk);
      expect(entries).toHaveLength(1);
      expect(entries[0]!.pid).toBe(first);
      // A prober that touched nothing frozen exits as its run does (it says 'stopped' just before).
      await waitFor(() => probers.filter(isAlive).length === 1, BESIDE_MS, 'the later runs\' probers to exit');
      expect(probers.filter(isAlive)).toEqual([first]);
      const stuckSince = new Date(entries[0]!.stuck_since!).toISOString();
      expect(summaries.map((summary) => summary.status)).toEqual(['WARNING', 'WARNING', 'WARNING']);
      const kv = summaries.map((summary) => (summary.disks as Record<string, unknown>[])[0]!);
      // The first had been waiting under 2 s: it names no hang, but completed no inspection.
      expect(kv[0]).toMatchObject({ state: 'starting', inspections: 0 });
      for (const later of kv.slice(1)) expect(later).toMatchObject({ state: 'hung', hung_since: stuckSince, stuck_prober_pid: first, inspections: 0 });

      // A watch started now is left to that prober too, until the thaw lets it go.
      watch = startCli(['watch', '--kv', disk.dir, '--keep-going', '--json', '--hang-after', '2s', '--round-ticks', '10']);
      left.watches.add(watch);
      await waitFor(() => /"event":"hung"/.test(watch!.stdout()), 5000, 'the hung event');
      expect(jsonLines(watch.stdout()).find((line) => line.event === 'hung')).toMatchObject({ disk: 'kv', hung_since: stuckSince, stuck_prober_pid: first });
    } finally {
      await disk.thaw();
    }
    await waitFor(() => !isAlive(probers[0]!), 15_000, 'the stuck prober to exit after the thaw');
    expect(registryEntries().filter((entry) => probers.includes(entry.pid))).toEqual([]);
    // Once that prober is gone, the watch inspects the disk itself: back, and up.
    const lines = () => jsonLines(watch!.stdout().slice(0, watch!.stdout().lastIndexOf('\n') + 1));
    await waitFor(() => lines().some((line) => line.event === 'back' && line.disk === 'kv'), BESIDE_MS, 'the back event');
    await waitFor(() => lines().some((line) => line.type === 'disk' && line.state === 'up' && (line.inspections as number) > 0), 4000, 'kv up');
    // The watch's own prober probes the disk now, not stuck, and takes its entry away with it.
    // Read until it is there (a run beside other files once found none at the first read); a
    // prober that never writes it fails here, naming what the registry held.
    await waitFor(() => entriesOn(disk).length > 0, BESIDE_MS, "the watch's prober's entry", () => `the registry held ${JSON.stringify(registryEntries())}, the disk is ${disk.majMin}`);
    expect(entriesOn(disk)).toMatchObject([{ disk: 'kv', stuck_since: null }]);
    watch.child.kill('SIGTERM');
    expect((await watch.done).code).toBe(143);
    await waitFor(() => entriesOn(disk).length === 0, BESIDE_MS, 'no entry left');
    expect(probeFiles(disk.dir)).toEqual([]);
  }, 60_000);

  it('the registry directory is root-only, and a symlink planted in its place is not followed', async () => {
    const disk = await makeTestDisk();
    const cli = startCli(['check', '--kv', disk.dir, '--duration', '1s', '--allow-short']);
    await proberOf(cli);
    expect((await cli.done).code).toBe(0);
    const stat = lstatSync(REGISTRY);
    expect(stat.isDirectory()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o700);
    expect(stat.uid).toBe(0);
    // Planted in a /run of the check's own mount namespace: the runs of other tests go on
    // using the real registry meanwhile.
    const elsewhere = mkdtempSync(path.join(work, 'elsewhere-'));
    try {
      await disk.hang();
      const planted = startCommand([
        'unshare', '--mount', '--propagation', 'private',
        'sh', '-c', 'mount -t tmpfs -o mode=755 slowdisk-run /run && ln -s "$0" /run/slowdisk && exec "$@"',
        elsewhere, process.execPath, BIN, 'check', '--kv', disk.dir, '--duration', '1s', '--allow-short',
      ]);
      // Once the shell has become the CLI, its child is the prober.
      await waitFor(() => isCli(planted.child.pid!), 5000, 'the CLI in its namespace');
      left.stuck.add(await proberOf(planted));
      const result = await planted.done;
      // Still a check, with no registry, which it says: nothing is written through the link.
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        "slowdisk: the prober registry /run/slowdisk cannot be used (/run/slowdisk is not a directory of this user's alone): stuck probers of earlier runs are found by their sockets instead\n",
      );
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      await disk.thaw();
    }
  });
});
