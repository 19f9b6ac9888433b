// check --state-dir on real loop disks: each path's filesystem is remembered from one run to
// the next, and a path found on another one (its disk unmounted, another disk mounted there)
// is WARNING in every format, naming the filesystem it was on and the one it is on now.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MountTable, deviceOf } from '../../src/mounts/mount-table.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop']);
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-fs-since-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** How a change names a filesystem: the mount the kernel shows `dir` on now. */
function filesystemAt(dir: string): string {
  const table = MountTable.read();
  let at = dir;
  while (!table.topmostAt(at)) at = path.dirname(at);
  const mount = table.topmostAt(at)!;
  return `${mount.source} (${deviceOf(mount)}) ${mount.fsType} on ${mount.mountPoint}`;
}

describe.skipIf(gate.skip)('check --state-dir remembers each path\'s filesystem', () => {
  let bound: string | null = null;
  afterEach(async () => {
    if (bound !== null) execFileSync('umount', [bound]);
    bound = null;
    await removeAllTestDisks();
  });

  it('a disk unmounted, then another disk mounted there: WARNING naming old and new, in Nagios, Prometheus, JSON and human lines', async () => {
    const diskA = await makeTestDisk();
    const diskB = await makeTestDisk();
    const dir = diskA.dir;
    const stateDir = path.join(work, 'state');
    const textfile = path.join(work, 'textfile');
    mkdirSync(textfile);
    const check = (...more: string[]) => runCli(['check', '--path', `kv=${dir}`, '--state-dir', stateDir, '--duration', '1s', '--allow-short', ...more]);
    // The metrics are those of the last round: one round (3 s) at least.
    const checkWithTextfile = (...more: string[]) => runCli(['check', '--path', `kv=${dir}`, '--state-dir', stateDir, '--duration', '4s', '--allow-short', '--textfile', textfile, ...more]);
    const onA = filesystemAt(dir);

    const first = await check();
    expect(first.stdout).toMatch(/^OK: /);
    expect(first.code).toBe(0);
    // The state file is slowdisk's own: 0600 in a 0700 directory, no temporary left.
    expect(readdirSync(stateDir)).toEqual(['filesystems.state']);
    expect(statSync(stateDir).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(stateDir, 'filesystems.state')).mode & 0o777).toBe(0o600);

    // Unmounted: the directory is on the filesystem below now.
    await diskA.vanish();
    const below = filesystemAt(dir);
    expect(below).not.toBe(onA);
    const unmounted = await checkWithTextfile('--format', 'nagios');
    expect(unmounted.stderr).toBe('');
    expect(unmounted.stdout.split('\n')[0]).toMatch(/^SLOWDISK WARNING - /);
    expect(unmounted.stdout).toContain(`filesystem changed: kv (was ${onA}, now ${below})`);
    expect(unmounted.code).toBe(1);
    expect(readFileSync(path.join(textfile, 'slowdisk.prom'), 'utf8')).toMatch(/^slowdisk_filesystem_changed\{[^}]*disk="kv"[^}]*\} 1$/m);

    // Remembered: the next run finds it where the last one did.
    const again = await checkWithTextfile();
    expect(again.stdout).toMatch(/^OK: /);
    expect(again.code).toBe(0);
    expect(readFileSync(path.join(textfile, 'slowdisk.prom'), 'utf8')).toMatch(/^slowdisk_filesystem_changed\{[^}]*disk="kv"[^}]*\} 0$/m);

    // Another disk there (bound onto the directory).
    execFileSync('mount', ['--bind', diskB.dir, dir]);
    bound = dir;
    const onB = filesystemAt(dir);
    const other = await check('--json');
    expect(other.code).toBe(1);
    const lines = other.stdout.trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const event = lines.find((line) => line.event === 'filesystem-changed');
    expect(event).toMatchObject({ scope: 'disk', disk: 'kv', path: dir, was: { mountpoint: below.split(' on ')[1] }, now: { source: diskB.device, mountpoint: dir } });
    const summary = lines.at(-1)!;
    expect(summary).toMatchObject({ status: 'WARNING' });
    expect(summary.disks).toEqual([expect.objectContaining({ disk: 'kv', filesystem_changed: true, filesystem_was: below, mountpoint: dir })]);
    expect(onB).toContain(diskB.device);

    // And gone again: the human line.
    execFileSync('umount', [dir]);
    bound = null;
    const human = await check();
    expect(human.stdout).toMatch(/^WARNING: /);
    expect(human.stdout).toContain(`filesystem changed: kv (was ${onB}, now ${below})`);
    expect(human.code).toBe(1);
  }, 60_000);

  it.skipIf(requireRootFacilities(['fsfreeze']).skip)('a state directory on a frozen disk costs the comparison, one line, never the check\'s time', async () => {
    // A 2 s check ends before the writer's 3 s deadline: it says so at its end.
    const states = await makeTestDisk();
    const stateDir = path.join(states.dir, 'state');
    const dir = mkdtempSync(path.join(work, 'data-'));
    await states.hang();
    try {
      const result = await runCli(['check', '--path', `kv=${dir}`, '--state-dir', stateDir, '--duration', '2s', '--allow-short']);
      expect(result.stderr).toBe(
        `slowdisk: ${stateDir}/filesystems.state was not read before the run ended, its disk may hang: the paths' filesystems are not compared with the last run's\n`,
      );
      expect(result.stdout).toMatch(/^OK: store score \S+ after 2\.\ds /);
      expect(result.elapsedMs).toBeLessThan(10_000);
      expect(result.code).toBe(0);
    } finally {
      await states.thaw();
    }
  }, 30_000);
});
