// Whoever can write to a probed directory (TiKV's belong to its own user) and takes each probe
// file's name, renaming it away and putting a file of their own there every 10 ms, never raises
// the disk's score, nor makes it down, nor a check UNKNOWN: each tick whose name was taken is
// neither counted nor charged, the directory is told contested in every output, and the
// prober makes at most one fresh file a round. Once they stop, the disk is back.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { jsonLines, runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop']);
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-name-race-'));
const attackers = new Set<ChildProcess>();

afterEach(async () => {
  for (const attacker of attackers) attacker.kill('SIGKILL');
  attackers.clear();
  await removeAllTestDisks();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const NOBODY = 65534;

// Every 10 ms, as the directory's owner: each new probe file renamed away, a file of its own put at its name.
const ATTACK = `
const fs = require('node:fs');
const dir = process.argv[1];
let n = 0;
setInterval(() => {
  for (const name of fs.readdirSync(dir)) {
    if (!name.startsWith('.slowdisk-probe-')) continue;
    try {
      if (fs.lstatSync(dir + '/' + name).uid === process.getuid()) continue;
      fs.renameSync(dir + '/' + name, dir + '/taken-' + (++n));
      fs.writeFileSync(dir + '/' + name, 'mine', { flag: 'wx' });
    } catch {}
  }
}, 10);`;

/** A directory on a real disk owned by an unprivileged user, and that user's attack on it. */
async function ownedDir(): Promise<string> {
  const disk = await makeTestDisk();
  const dir = path.join(disk.dir, 'tikv');
  mkdirSync(dir);
  chownSync(dir, NOBODY, NOBODY);
  return dir;
}

function attack(dir: string): ChildProcess {
  const attacker = spawn('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', process.execPath, '-e', ATTACK, dir], { stdio: 'ignore' });
  attackers.add(attacker);
  return attacker;
}

/** Our probe files the attacker renamed away: 65 blocks each, the plants 4 bytes. */
const ourFilesTaken = (dir: string) => readdirSync(dir).filter((name) => name.startsWith('taken-') && statSync(path.join(dir, name)).size > 4096);

describe.skipIf(gate.skip)('a probed directory whose probe file names are taken every 10 ms', () => {
  it('watch: never a charge, never down, the directory told contested, at most a fresh file a round; back once it stops', async () => {
    const dir = await ownedDir();
    const hookRan = path.join(work, 'evicted');
    const attacker = attack(dir);
    const cli = startCli(['watch', '--json', '--path', `a=${dir}`, '--on-evict', `touch ${hookRan}`]);
    const lines = () => jsonLines(cli.stdout());
    const rounds = () => lines().filter((line) => line['type'] === 'store');
    try {
      await waitFor(() => rounds().length >= 6, 40_000, 'six rounds under attack');
      attacker.kill('SIGKILL');
      await new Promise((resolve) => attacker.once('exit', resolve));
      await waitFor(() => lines().some((line) => line['type'] === 'event' && line['event'] === 'back'), 10_000, 'the disk back');
      const back = lines().findIndex((line) => line['type'] === 'event' && line['event'] === 'back');
      await waitFor(() => lines().slice(back).some((line) => line['type'] === 'disk' && line['state'] === 'up'), 10_000, 'a round with the disk up');
    } finally {
      cli.child.kill('SIGTERM');
    }
    const result = await cli.done;
    expect(result.code).toBe(143);
    const all = jsonLines(result.stdout);
    const events = all.filter((line) => line['type'] === 'event');
    expect(events.filter((line) => line['event'] === 'down')).toEqual([]);
    expect(events.filter((line) => line['event'] === 'hung')).toEqual([]);
    const contested = events.filter((line) => line['event'] === 'contested');
    expect(contested).toHaveLength(1);
    expect(contested[0]).toMatchObject({ disk: 'a', error: { code: 'ENAMETAKEN' } });
    const disks = all.filter((line) => line['type'] === 'disk');
    expect(disks.filter((line) => line['state'] === 'contested').length).toBeGreaterThanOrEqual(4);
    expect(disks.every((line) => line['errors'] === 0 && line['score'] === 1)).toBe(true);
    expect(all.filter((line) => line['type'] === 'store').every((line) => line['reported_score'] === 1)).toBe(true);
    expect(existsSync(hookRan)).toBe(false);
    // One fresh probe file a round at most (3 s rounds), not two a tick.
    expect(ourFilesTaken(dir).length).toBeLessThanOrEqual(rounds().length + 2);
  });

  it('check with the name taken from the start: the disk contested on the first line, never UNKNOWN, CRITICAL or down', async () => {
    const dir = await ownedDir();
    attack(dir);
    const result = await runCli(['check', '--duration', '5s', '--allow-short', '--path', `a=${dir}`]);
    expect(result.stderr).toBe('');
    // What it saw: OK when its first inspection beat the attacker, else WARNING, nothing seen.
    const seen = result.code === 0;
    expect(result.code).toBe(seen ? 0 : 1);
    const notes = seen ? 'contested: a' : 'contested: a; no inspection completed: a';
    expect(result.stdout).toMatch(new RegExp(`^${seen ? 'OK' : 'WARNING'}: store score 1\\.00 after 5\\.\\ds \\(.*evict at 100; ${notes}\\) \\| a \\S+ score 1\\.00 contested: each probe file's name taken by someone else, not charged `));
  });
});
