// The drives' history file as a root cron job meets it: written atomically, intact after a
// crash mid-write and after a full disk (ENOSPC on a real size-limited tmpfs), a corrupt file
// reported and set aside rather than silently reset, and two runs kept from writing at once.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DriveRun } from '../../src/commands/drive-run.js';
import { emptyHistory, recordSnapshot, type DriveHistory } from '../../src/drives/history.js';
import { DEFAULT_DRIVE_PARAMS } from '../../src/drives/drive-params.js';
import { decodeHistory, encodeHistory, FileStateStore, STATE_FILE } from '../../src/drives/state-file.js';
import { DEFAULT_PEER_PARAMS } from '../../src/drives/peer-params.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { SyntheticHost } from '../helpers/synthetic-diskstats.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-state-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
let dirs = 0;
const newDir = () => path.join(work, `state-${++dirs}`);

const T0 = Date.parse('2026-01-05T00:00:00Z');
const DEVICES = ['sda', 'sdb', 'sdc', 'sdd'];

/** A history with `minutes` minutes of four drives in it. */
function historyOf(minutes: number): DriveHistory {
  const history = emptyHistory();
  const host = new SyntheticHost({ devices: DEVICES, seed: 3, factor: () => 1 }, T0);
  for (let m = 0; m <= minutes; m += 1) {
    host.advanceTo(T0 + m * 60_000);
    const devices = Object.fromEntries([...host.diskstats().values()].map((counters) => [counters.name, { id: `wwid:${counters.name}`, counters }]));
    recordSnapshot(history, { timeMs: T0 + m * 60_000, bootId: 'b', devices }, DEFAULT_PEER_PARAMS, DEFAULT_DRIVE_PARAMS);
  }
  return history;
}

async function saved(dir: string, history: DriveHistory): Promise<void> {
  const { store } = await FileStateStore.open(dir);
  await store.save(history);
  await store.close();
}

describe('the history file', () => {
  it('reads back what was saved, with its header, and leaves no temp file', async () => {
    const dir = newDir();
    const history = historyOf(30);
    await saved(dir, history);
    const text = readFileSync(path.join(dir, STATE_FILE), 'utf8');
    expect(text).toMatch(/^slowdisk-drive-history 1 sha256:[0-9a-f]{64} \d+\n\{/);
    const opened = await FileStateStore.open(dir);
    expect(opened.problems).toEqual([]);
    expect(opened.history).toEqual(history);
    await opened.store.close();
    expect(readdirSync(dir).sort()).toEqual([STATE_FILE]);
  });

  it('keeps the previous history when a write was cut short by a crash (a leftover temp file), and clears the temp file', async () => {
    const dir = newDir();
    const history = historyOf(20);
    await saved(dir, history);
    // A run killed between writing its temp file and renaming it.
    writeFileSync(path.join(dir, `.${STATE_FILE}.tmp-99999`), encodeHistory(historyOf(40)).slice(0, 500));
    writeFileSync(path.join(dir, `.${STATE_FILE}.0123456789abcdef01234567.tmp`), encodeHistory(historyOf(40)).slice(0, 500));
    const opened = await FileStateStore.open(dir);
    expect(opened.problems).toEqual([]);
    expect(opened.history).toEqual(history);
    await opened.store.close();
    expect(readdirSync(dir)).toEqual([STATE_FILE]);
  });

  const sha = (body: string) => createHash('sha256').update(body).digest('hex');
  const corruptions: [string, (good: string) => string, RegExp][] = [
    ['a flipped byte', (good) => good.replace('"version":1', '"version":7'), /checksum mismatch/],
    ['a cut-off write', (good) => good.slice(0, good.length - 10), /bytes of body, the header says/],
    ['an unparsable body', () => `slowdisk-drive-history 1 sha256:${sha('{"version":1,')} 13\n{"version":1,`, /unparsable/],
    ['another version', (good) => good.replace(/^slowdisk-drive-history 1 /, 'slowdisk-drive-history 2 '), /version 2, this slowdisk reads version 1/],
    ['something else', () => 'hello\n', /no slowdisk drive history header/],
  ];
  for (const [what, corrupt, reason] of corruptions) {
    it(`reports ${what}, sets the file aside and starts a new history`, async () => {
      const dir = newDir();
      await saved(dir, historyOf(10));
      const file = path.join(dir, STATE_FILE);
      const bad = corrupt(readFileSync(file, 'utf8'));
      writeFileSync(file, bad);
      const opened = await FileStateStore.open(dir, () => Date.parse('2026-02-03T04:05:06.789Z'));
      const aside = `${file}.corrupt-2026-02-03T04-05-06-789Z`;
      expect(opened.problems).toHaveLength(1);
      expect(opened.problems[0]).toContain(`the drive history ${file} is corrupt (`);
      expect(opened.problems[0]).toMatch(reason);
      expect(opened.problems[0]).toContain(`set aside as ${aside}, starting a new history`);
      expect(readFileSync(aside, 'utf8')).toBe(bad);
      expect(opened.history).toEqual(emptyHistory());
      await opened.store.save(historyOf(5));
      await opened.store.close();
      expect(decodeHistory(readFileSync(file, 'utf8'))).toEqual(historyOf(5));
    });
  }

  it('is written by one run at a time; a lock left by a dead process, or naming a process that is not slowdisk, is taken over', async () => {
    const dir = newDir();
    const lock = path.join(dir, 'drives.lock');
    // A process that has exited: its pid is free.
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    mkdirSync(dir, { recursive: true });
    writeFileSync(lock, `${dead}\n`);
    const first = await FileStateStore.open(dir);
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^slowdisk-lock ${process.pid} \\d+\n$`));
    // This test's process is alive but is not a slowdisk run: its lock is taken over.
    const second = await FileStateStore.open(dir);
    expect(readFileSync(lock, 'utf8')).toMatch(new RegExp(`^slowdisk-lock ${process.pid} \\d+\n$`));
    await second.store.close();
    expect(existsSync(lock)).toBe(false);
    await first.store.close();
  });
});

const gate = requireRootFacilities(['root']);

describe.skipIf(gate.skip)('a full disk', () => {
  it('leaves the previous history intact, reports ENOSPC with the path, and saves again once there is room', async () => {
    const mount = newDir();
    mkdirSync(mount, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'slowdisk-test', mount]);
    try {
      const stateDir = path.join(mount, 'state');
      const host = new SyntheticHost({ devices: DEVICES, seed: 5, factor: () => 1 }, T0);
      let clock = T0;
      const source = { diskstats: () => host.diskstats(), bootId: () => 'b', identity: (name: string) => `wwid:${name}`, deviceClass: () => 'sata-hdd' };
      const warnings: string[] = [];
      const run = await DriveRun.start({ devices: DEVICES, stateDir }, { json: true, source, clock: () => clock, write: () => {}, warn: (line) => warnings.push(line) });
      for (let m = 1; m <= 30; m += 1) {
        clock = T0 + m * 60_000;
        host.advanceTo(clock);
        run.sample();
        await run.settled();
      }
      const file = path.join(stateDir, STATE_FILE);
      const before = readFileSync(file, 'utf8');
      // Fill the filesystem but for a few blocks: the next history does not fit.
      const filler = path.join(mount, 'filler');
      spawnSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=4k'], { stdio: 'ignore' });
      for (let m = 31; m <= 40; m += 1) {
        clock = T0 + m * 60_000;
        host.advanceTo(clock);
        run.sample();
        await run.settled();
      }
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(new RegExp(`^cannot save the drive history ${file}, the previous one is kept: ENOSPC \\((write|fsync|close) ${path.join(stateDir, `.${STATE_FILE}.`)}[0-9a-f]{24}\\.tmp\\)$`));
      expect(readFileSync(file, 'utf8')).toBe(before);
      expect(readdirSync(stateDir).sort()).toEqual(['drives.lock', STATE_FILE]);
      expect(run.exitCode(run.judge())).toBe(3);
      rmSync(filler);
      clock += 60_000;
      host.advanceTo(clock);
      run.sample();
      await run.settled();
      expect(run.saveError).toBeNull();
      const judgement = await run.finish();
      expect(run.exitCode(judgement)).toBe(0);
      expect(warnings).toHaveLength(1);
      const after = decodeHistory(readFileSync(file, 'utf8'));
      expect(after.last?.timeMs).toBe(clock);
      // The minutes sampled while the disk was full were kept in memory and saved with the rest.
      expect(Object.keys(after.open['2026-01-05']!['wwid:sda']!)).toHaveLength(41);
    } finally {
      execFileSync('umount', [mount]);
    }
  });
});
