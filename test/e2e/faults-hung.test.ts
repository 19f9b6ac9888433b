// A frozen disk is hung from the clock, in every output, as soon as an inspection has been in
// flight for --hang-after: a check far shorter than the score's 21 s to eviction is not OK
// about it, and a check left to run is CRITICAL at those 21 s of TiKV's rounds. What a stuck
// prober leaves to later runs is in stuck-prober-registry.test.ts.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { FrozenDiskLeftovers } from '../helpers/frozen-disk-leftovers.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { childPids, isAlive, jsonLines, probeFiles, proberOf, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk } from '../helpers/test-disk.js';

/** --hang-after of the watch below: shorter than the default 5 s, which the checks keep. */
const HANG_AFTER_MS = 2000;
const INTERVAL_MS = 100;
/** What a busy two-core machine adds to a deadline. */
const SLACK_MS = 700;

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-hung-'));

/** One metric's value in a textfile, or undefined. */
function sample(text: string, name: string, disk: string): number | undefined {
  const match = new RegExp(`^${name}\\{disk="${disk}",[^}]*\\} (\\S+)$`, 'm').exec(text);
  return match ? Number(match[1]) : undefined;
}

const gate = requireRootFacilities(['root', 'loop', 'fsfreeze']);

describe.skipIf(gate.skip)('a frozen disk is hung, whatever the score says yet', () => {
  const left = new FrozenDiskLeftovers();
  afterEach(() => left.cleanUp());
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  // The promise at TiKV's own parameters (3 s rounds, eviction at 100), timed: the score
  // doubles once a round, so 100 is reached in the 7th round.
  it('check with the defaults: CRITICAL at 21-25 s, and the command returns without waiting for the disk', async () => {
    const disk = await makeTestDisk();
    let prober = 0;
    try {
      await disk.hang();
      const cli = startCli(['check', '--kv', disk.dir]);
      prober = await proberOf(cli);
      left.stuck.add(prober);
      const result = await cli.done;
      expect(result.code).toBe(2);
      expect(result.elapsedMs).toBeGreaterThanOrEqual(21_000);
      expect(result.elapsedMs).toBeLessThan(25_000);
      expect(result.stdout).toMatch(/^CRITICAL: store score 100 .*; hung: kv\) \| kv \S+ score 100 hung: an inspection in flight for 2\d\.\ds since /);
      // The prober is still stuck in the kernel; after the thaw it cleans up and exits by itself.
      expect(isAlive(prober)).toBe(true);
    } finally {
      await disk.thaw();
    }
    await waitFor(() => !isAlive(prober), 15_000, 'the prober to exit after the thaw');
    expect(probeFiles(disk.dir)).toEqual([]);
  });

  it('check --duration 7s: WARNING, exit 1, the disk named hung since its inspection started; after the thaw, OK again', async () => {
    const disk = await makeTestDisk();
    try {
      await disk.hang();
      const cli = startCli(['check', '--kv', disk.dir, '--duration', '7s', '--allow-short']);
      left.stuck.add(await proberOf(cli));
      const result = await cli.done;
      expect(result.code).toBe(1);
      // Score 4 after two rounds, far below the slow threshold: the hang alone (past the default
      // --hang-after, 5 s) makes it WARNING.
      expect(result.stdout).toMatch(
        /^WARNING: store score 4\.00 after 7\.\ds \(max reported 4, slow at 80, evict at 100; rising: kv \(a continuous run would evict it in 15\.0s\); hung: kv\) \| kv \S+ score 4\.00 hung: an inspection in flight for [67]\.\ds since \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ max 4\.00 inspections 0 timeouts \d+ errors 0 median\/p99\/max write - sync - read - stat warming up slow: unknown predict warming up on loop\d+/,
      );
    } finally {
      await disk.thaw();
    }
    await waitFor(() => [...left.stuck].every((pid) => !isAlive(pid)), 15_000, 'the stuck prober to exit after the thaw');
    const after = await runCli(['check', '--kv', disk.dir, '--duration', '2s', '--allow-short']);
    expect(after.code).toBe(0);
    expect(after.stdout).toMatch(/^OK: store score 1\.00 .* \| kv \S+ score 1\.00 up max 1\.00 inspections \d+ timeouts 0 /);
    expect(probeFiles(disk.dir)).toEqual([]);
  });

  it('check --duration 2s --format nagios: WARNING naming the disk hung (--hang-after 1s), or as having completed no inspection (the default 5s)', async () => {
    const a = await makeTestDisk();
    const b = await makeTestDisk();
    try {
      await a.hang();
      await b.hang();
      // Side by side: two disks, two runs of their own.
      const short = startCli(['check', '--kv', a.dir, '--duration', '2s', '--allow-short', '--format', 'nagios', '--hang-after', '1s']);
      const unanswered = startCli(['check', '--kv', b.dir, '--duration', '2s', '--allow-short', '--format', 'nagios']);
      left.stuck.add(await proberOf(short));
      left.stuck.add(await proberOf(unanswered));
      const hung = await short.done;
      expect(hung.code).toBe(1);
      expect(hung.stdout).toMatch(/^SLOWDISK WARNING - hung: kv; store score 1 \(slow at 80, evict at 100\) after 2\.\ds; kv 1\.00 hung: an inspection in flight for 1\.\ds since \S+ stat warming up predict warming up on loop\d+\S* \| /);

      const none = await unanswered.done;
      expect(none.code).toBe(1);
      expect(none.stdout).toMatch(/^SLOWDISK WARNING - no inspection completed: kv; store score 1 .* kv 1\.00 waiting 1\.\ds for an inspection stat warming up predict warming up on loop\d+\S* \| /);
    } finally {
      await a.thaw();
      await b.thaw();
    }
  });

  it('watch --json --textfile: hung within --hang-after and a tick of the freeze, in the events, the disk lines and the metrics; up again at the thaw', async () => {
    const disk = await makeTestDisk();
    const textfiles = mkdtempSync(path.join(work, 'textfile-'));
    const prom = path.join(textfiles, 'slowdisk.prom');
    // 1 s rounds: the disk lines that say up, hung and up again come sooner.
    const cli = startCli(['watch', '--kv', disk.dir, '--keep-going', '--json', '--textfile', textfiles, '--hang-after', `${HANG_AFTER_MS / 1000}s`, '--round-ticks', '10']);
    left.watches.add(cli);
    const lines = () => (cli.stdout().includes('\n') ? jsonLines(cli.stdout().slice(0, cli.stdout().lastIndexOf('\n') + 1)) : []);
    try {
      await waitFor(() => lines().some((line) => line.type === 'disk' && line.state === 'up'), 10_000, 'kv up');
      expect(sample(readFileSync(prom, 'utf8'), 'slowdisk_disk_up', 'kv')).toBe(1);
      expect(sample(readFileSync(prom, 'utf8'), 'slowdisk_disk_hung', 'kv')).toBe(0);
      left.stuck.add(childPids(cli.child.pid!)[0]!);

      await disk.hang();
      const frozenAt = Date.now();
      let metricsHungAt = 0;
      await waitFor(() => {
        const text = existsSync(prom) ? readFileSync(prom, 'utf8') : '';
        if (metricsHungAt === 0 && sample(text, 'slowdisk_disk_hung', 'kv') === 1) {
          metricsHungAt = Date.now();
          expect(sample(text, 'slowdisk_disk_up', 'kv')).toBe(0);
        }
        return metricsHungAt > 0;
      }, HANG_AFTER_MS + 5000, 'slowdisk_disk_hung 1');
      const event = lines().find((line) => line.type === 'event' && line.event === 'hung')!;
      expect(event).toMatchObject({ disk: 'kv', hung_since: expect.any(String), waiting_ms: expect.any(Number) });
      const since = Date.parse(event.hung_since as string);
      // The inspection that met the freeze started at most a tick before it; the event comes at the tick that passes --hang-after.
      expect(since).toBeGreaterThanOrEqual(frozenAt - INTERVAL_MS - SLACK_MS);
      expect(event.waiting_ms).toBeGreaterThanOrEqual(HANG_AFTER_MS);
      expect(event.waiting_ms).toBeLessThan(HANG_AFTER_MS + INTERVAL_MS + SLACK_MS);
      expect(Date.parse(event.time as string) - frozenAt).toBeLessThan(HANG_AFTER_MS + 2 * INTERVAL_MS + SLACK_MS);
      expect(metricsHungAt - frozenAt).toBeLessThan(HANG_AFTER_MS + 2 * INTERVAL_MS + SLACK_MS);
      // The next round's disk line says so too, with the same start.
      await waitFor(() => lines().some((line) => line.type === 'disk' && line.state === 'hung'), 4000, 'a hung disk line');
      const hungLine = lines().find((line) => line.type === 'disk' && line.state === 'hung')!;
      expect(hungLine.hung_since).toBe(event.hung_since);
      expect(hungLine.waiting_ms).toBeGreaterThanOrEqual(HANG_AFTER_MS);
    } finally {
      await disk.thaw();
    }
    const thawedAt = lines().length;
    await waitFor(() => lines().slice(thawedAt).some((line) => line.type === 'event' && line.event === 'back' && line.disk === 'kv'), 2000, 'the back event');
    // The prober writes the textfile: it follows the event printed here by a write and a rename.
    await waitFor(() => {
      const text = readFileSync(prom, 'utf8');
      return sample(text, 'slowdisk_disk_up', 'kv') === 1 && sample(text, 'slowdisk_disk_hung', 'kv') === 0;
    }, 1000, 'slowdisk_disk_up 1 and slowdisk_disk_hung 0 within a second of the back event');
    await waitFor(() => lines().slice(thawedAt).some((line) => line.type === 'disk' && line.state === 'up'), 4000, 'kv up again');
    cli.child.kill('SIGTERM');
    expect((await cli.done).code).toBe(143);
    expect(probeFiles(disk.dir)).toEqual([]);
  });
});
