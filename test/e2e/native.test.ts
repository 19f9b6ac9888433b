// The native probe layer against real filesystems: /tmp (ext4), a tmpfs and a
// loop-mounted ext4 that the tests freeze. Needs root. Each directory's thread is driven as the
// prober drives it (scheduled, placed), and seen through its batch records and its files.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MONOTONIC_CLOCK } from '../../src/common/monotonic-clock.js';
import { MEMORY_FS_MAGICS, ProbeError, ProbeWorker } from '../../src/native/addon.js';
import os from 'node:os';
import { bootTime, deadPid, probeHeader as header, thisOrigin } from '../helpers/probe-file-fakes.js';
import { ScheduledWorker, type Inspection, type ScheduleOptions } from '../helpers/scheduled-worker.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';

const ADDON = fileURLToPath(new URL('../../build/Release/slowdisk_probe.node', import.meta.url));
const TMPFS_MAGIC = 0x01021994;
const EXT4_MAGIC = 0xef53;

const base = fs.mkdtempSync('/tmp/slowdisk-native-test-');
const mounts: string[] = [];
const frozen = new Set<string>();
const workers: ProbeWorker[] = [];
let dirCount = 0;

function tempDir(): string {
  const dir = path.join(base, `d${dirCount++}`);
  fs.mkdirSync(dir);
  return dir;
}

function worker(name = 'test'): ProbeWorker {
  const w = new ProbeWorker(name);
  workers.push(w);
  return w;
}

function mount(args: string[], dir: string): void {
  execFileSync('mount', [...args, dir]);
  mounts.push(dir);
}

function freeze(dir: string): void {
  execFileSync('fsfreeze', ['-f', dir]);
  frozen.add(dir);
}

function thaw(dir: string): void {
  if (!frozen.delete(dir)) return;
  execFileSync('fsfreeze', ['-u', dir]);
}

const scheduledWorkers: ScheduledWorker[] = [];

function scheduled(dir: string, options: ScheduleOptions = {}): ScheduledWorker {
  const w = new ScheduledWorker(dir, options);
  scheduledWorkers.push(w);
  return w;
}

afterEach(async () => {
  // Each stopped (its files removed) unless a test stopped it: a second stop throws.
  for (const w of workers.splice(0)) void w.stop().catch(() => {});
  await Promise.all(scheduledWorkers.splice(0).map((w) => (frozen.size > 0 ? undefined : Promise.resolve().then(() => w.worker.stop()).catch(() => {}))));
});

afterAll(() => {
  // Thawed first: a frozen filesystem cannot be unmounted, and would hang
  // whatever touches it after the tests.
  for (const dir of frozen) thaw(dir);
  for (const dir of mounts.reverse()) execFileSync('umount', [dir]);
  fs.rmSync(base, { recursive: true, force: true });
});

async function probeError(promise: Promise<unknown>): Promise<ProbeError> {
  const error = await promise.then(
    () => {
      throw new Error('expected a ProbeError');
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProbeError);
  return error as ProbeError;
}

const gate = requireRootFacilities(['root']);

/** The probe files in `dir`. */
const probeNames = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir) : []).filter((name) => name.startsWith('.slowdisk-probe-'));

/** A worker placed on `dir`, and its first inspection, which made its probe file. */
async function placed(dir: string, options: ScheduleOptions = {}): Promise<{ w: ScheduledWorker; first: Inspection; file: string }> {
  const w = scheduled(dir, options);
  const first = await w.next();
  const [name] = probeNames(dir);
  return { w, first, file: path.join(dir, name ?? 'none') };
}

function readBlock(file: string, ioSize: number, index: number): Buffer {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(ioSize);
    expect(fs.readSync(fd, buf, 0, ioSize, index * ioSize)).toBe(ioSize);
    return buf;
  } finally {
    fs.closeSync(fd);
  }
}

describe.skipIf(gate.skip)('the probe file the thread makes at its first tick', () => {
  for (const direct of [true, false]) {
    it(`is one file: header, mode 0600, 65 written blocks (direct=${direct})`, async () => {
      const dir = tempDir();
      const { first, file } = await placed(dir, { direct });
      expect(first).toMatchObject({ created: false, timings: expect.objectContaining({ totalMs: expect.any(Number) }) });
      expect(first.staleRemoved).toBeUndefined();

      const names = fs.readdirSync(dir);
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(new RegExp(`^\\.slowdisk-probe-${process.pid}-[0-9a-f]{8}$`));

      const st = fs.statSync(file);
      expect(st.isFile()).toBe(true);
      expect(st.mode & 0o777).toBe(0o600);
      expect(st.size).toBe(65 * 4096);
      expect(st.blocks * 512).toBeGreaterThanOrEqual(65 * 4096);

      const origin = thisOrigin();
      const text = readBlock(file, 4096, 0).toString('latin1').replace(/\0+$/, '');
      expect(text).toMatch(
        new RegExp(
          `^slowdisk probe file\nversion=2\npid=${process.pid}\ncreated=\\d+\nhost=${os.hostname()}\n` +
            `boot_id=${origin.bootId}\npid_ns=${origin.pidNs}\ntoken=[0-9a-f]{32}\n.*slowdisk prober.*\n$`,
        ),
      );
      const created = Number(/created=(\d+)/.exec(text)![1]);
      expect(Math.abs(created - Date.now() / 1000)).toBeLessThan(60);
      for (let block = 1; block <= 64; block++) {
        expect(readBlock(file, 4096, block).some((byte) => byte !== 0)).toBe(true);
      }
    });
  }

  it('rounds ioSize up to the alignment', async () => {
    const dir = tempDir();
    const { file } = await placed(dir, { ioSize: 1000 });
    const { size } = fs.statSync(file);
    const ioSize = size / 65;
    expect(Number.isInteger(ioSize)).toBe(true);
    expect(ioSize).toBeGreaterThanOrEqual(1000);
    expect(ioSize % 512).toBe(0);
  });

  it('fails the tick with the errno, syscall and path when the directory is missing', async () => {
    const dir = path.join(base, 'missing');
    const { first } = await placed(dir);
    expect(first.error).toMatchObject({ code: 'ENOENT', errno: 2, syscall: 'realpath', path: dir, message: `ENOENT: realpath ${dir} (No such file or directory)` });
  });

  it('is made only on the filesystem the directory is placed on (EOTHERFS)', async () => {
    const dir = tempDir();
    const { first } = await placed(dir, { device: '0:1' });
    const dev = fs.statSync(dir);
    expect(first.error).toMatchObject({ code: 'EOTHERFS', errno: 0, syscall: 'statx', path: dir });
    expect(first.error!.message).toBe(`EOTHERFS: statx ${dir} is on another filesystem (${Math.floor(dev.dev / 256)}:${dev.dev % 256}) than the one it is placed on (0:1); no probe file made there`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it('is removed when the directory is let go, and stop() removes nothing else', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    fs.writeFileSync(path.join(dir, 'other'), 'x');
    await w.worker.release();
    expect(fs.existsSync(file)).toBe(false);
    await w.worker.stop();
    expect(fs.readdirSync(dir)).toEqual(['other']);
  });
});

describe.skipIf(gate.skip)('each tick', () => {
  for (const [direct, sync] of [
    [true, 'fdatasync'],
    [true, 'fsync'],
    [false, 'fdatasync'],
    [false, 'fsync'],
  ] as const) {
    it(`times each phase and writes new data every time (direct=${direct}, ${sync})`, async () => {
      const dir = tempDir();
      const { w, file } = await placed(dir, { direct, sync });
      const before = fs.readFileSync(file);
      const { timings, tick } = await w.next();
      const phases = [timings!.openMs, timings!.writeMs, timings!.syncMs, timings!.readMs, timings!.closeMs];
      for (const ms of phases) expect(ms).toBeGreaterThan(0);
      expect(timings!.totalMs).toBeGreaterThanOrEqual(phases.reduce((a, b) => a + b) - 1e-9);

      // Tick k writes data block k % 64, after the header; nothing else changed.
      const after = fs.readFileSync(file);
      const at = (1 + (tick % 64)) * 4096;
      expect(after.subarray(at, at + 4096).equals(before.subarray(at, at + 4096))).toBe(false);
      const outside = (buf: Buffer) => Buffer.concat([buf.subarray(0, at), buf.subarray(at + 4096)]);
      expect(outside(after).equals(outside(before))).toBe(true);
    });
  }

  it('fails with ENOENT from open, with the path, when the directory is gone', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    fs.renameSync(dir, `${dir}-moved`);

    const { error } = await w.next((each) => each.error !== undefined);
    expect(error).toMatchObject({ code: 'ENOENT', errno: 2, syscall: 'open', path: file });
    expect(error!.offset).toBeUndefined();
    expect(error!.message).toBe(`ENOENT: open ${file} (No such file or directory)`);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('is lost (ENAMETAKEN) on a symlink planted at the probe name, naming it, leaving its target untouched; a fresh file is made', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    const target = path.join(tempDir(), 'precious');
    fs.writeFileSync(target, 'precious data');
    fs.unlinkSync(file);
    fs.symlinkSync(target, file);

    const { lost, contested } = await w.next((each) => each.lost !== undefined);
    expect(lost).toMatchObject({ code: 'ENAMETAKEN', errno: 0, syscall: 'open', path: file });
    expect(lost!.message).toBe(`ENAMETAKEN: open ${file} is taken by someone else: a symbolic link to ${target}; left untouched`);
    expect(contested).toBeUndefined();
    expect(fs.readFileSync(target, 'utf8')).toBe('precious data');
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
    // Inspected from the next tick on: a fresh file under a new name.
    await w.next((each) => each.timings !== undefined);
    expect(probeNames(dir)).toHaveLength(2);
    await w.worker.stop();
    expect(probeNames(dir)).toEqual([path.basename(file)]);
  });

  it('is lost and writes nothing when another file took the probe name', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    const other = path.join(dir, 'other');
    fs.writeFileSync(other, Buffer.alloc(65 * 4096, 7));
    fs.renameSync(other, file);

    const { lost } = await w.next((each) => each.lost !== undefined);
    expect(lost).toMatchObject({ code: 'ENAMETAKEN', errno: 0, syscall: 'open', path: file });
    expect(lost!.message).toMatch(/is taken by someone else: a regular file of 266240 bytes, inode \d+, owner uid 0; left untouched$/);
    await w.worker.stop();
    expect(fs.readFileSync(file).every((byte) => byte === 7)).toBe(true);
  });

  it('never writes into a file made at the probe name after ours was removed, even with its inode number', async () => {
    const dir = tempDir();
    // A fresh file every tick while the name is taken: one round a tick.
    const { w } = await placed(dir, { roundTicks: 1 });
    let reused = false;
    const planted: string[] = [];
    // ext4 hands a freed inode number out again, mostly at once: tried until it does.
    for (let attempt = 0; attempt < 20 && !reused; attempt++) {
      const mine = Buffer.alloc(65 * 4096, 9);
      const [name] = probeNames(dir).filter((each) => !planted.includes(path.join(dir, each)));
      const at = path.join(dir, name!);
      const { ino } = fs.statSync(at);
      fs.unlinkSync(at);
      fs.writeFileSync(at, mine, { flag: 'wx' });
      planted.push(at);
      reused = fs.statSync(at).ino === ino;
      const { lost } = await w.next((each) => each.lost?.path === at);
      if (reused) expect(lost!.message).toMatch(/\(same inode number, another birth time\); left untouched$/);
      expect(fs.readFileSync(at).equals(mine)).toBe(true);
      // The fresh file, made at once, is inspected before the next attempt.
      await w.next((each) => each.timings !== undefined);
    }
    expect(reused).toBe(true);
    await w.worker.stop();
    for (const at of planted) expect(fs.readFileSync(at).every((byte) => byte === 9)).toBe(true);
    expect(probeNames(dir).sort()).toEqual(planted.map((at) => path.basename(at)).sort());
  });

  it('never writes into a file with our inode number and birth time whose header is not ours', async () => {
    // The header's token is the last check: a file rewritten in place by someone else.
    const dir = tempDir();
    const { w, file } = await placed(dir);
    const fd = fs.openSync(file, 'r+');
    fs.writeSync(fd, header(process.pid), 0, 4096, 0);
    fs.closeSync(fd);
    const before = fs.readFileSync(file);

    const { lost } = await w.next((each) => each.lost !== undefined);
    expect(lost!.message).toMatch(/\(same inode number, not this prober's header\); left untouched$/);
    await w.worker.stop();
    expect(fs.readFileSync(file).equals(before)).toBe(true);
  });

  it('fails with ECORRUPT and the offset when a block reads back different data', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir, { direct: false, intervalMs: 2 });
    // Another writer keeps zeroing every data block, so some read-back differs.
    const clobber = spawn(
      process.execPath,
      ['-e', `const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'r+');
              const zeros = Buffer.alloc(4096); for (let b = 0;; b = (b + 1) % 64) fs.writeSync(fd, zeros, 0, 4096, (b + 1) * 4096);`, file],
      { stdio: 'ignore' },
    );
    try {
      const { error, tick } = await w.next((each) => each.error !== undefined, 60_000);
      const start = (1 + (tick % 64)) * 4096;
      expect(error).toMatchObject({ code: 'ECORRUPT', errno: 0, syscall: 'pread', path: file });
      expect(error!.offset).toBeGreaterThanOrEqual(start);
      expect(error!.offset).toBeLessThan(start + 4096);
      expect(error!.message).toBe(`ECORRUPT: pread ${file} read back different data at byte ${error!.offset}`);
    } finally {
      clobber.kill('SIGKILL');
    }
  });

  it('makes a deleted probe file again under the same path', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    fs.unlinkSync(file);

    const made = await w.next();
    expect(made).toMatchObject({ created: true, timings: expect.any(Object) });
    const st = fs.statSync(file);
    expect(st.size).toBe(65 * 4096);
    expect(st.mode & 0o777).toBe(0o600);
    expect(readBlock(file, 4096, 0).toString('latin1')).toContain(`\npid=${process.pid}\n`);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
    expect((await w.next()).created).toBeUndefined();
  });

  it('never probes where the directory leads through a symlink put in its place (EDIRCHANGED), and removes its file where it went', async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const { w } = await placed(dir);
    const resolvedDir = fs.realpathSync(dir);
    fs.renameSync(dir, `${dir}.orig`);
    fs.symlinkSync(elsewhere, dir);

    const { error } = await w.next((each) => each.error !== undefined);
    expect(error).toMatchObject({ code: 'EDIRCHANGED', errno: 0, syscall: 'realpath', path: dir });
    await expect(w.worker.resolve(dir, resolvedDir)).rejects.toMatchObject({ code: 'EDIRCHANGED' });
    expect(fs.readdirSync(elsewhere)).toEqual([]);

    await w.worker.release();
    expect(fs.readdirSync(`${dir}.orig`)).toEqual([]);
  });

  it('a directory put in the place of the renamed one gets a new file; the old one is still removed where it went', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    fs.renameSync(dir, `${dir}.orig`);
    fs.mkdirSync(dir);

    expect(await w.next()).toMatchObject({ created: true });
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
    await w.worker.release();
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(fs.readdirSync(`${dir}.orig`)).toEqual([]);
  });

  it('makes no probe file on another filesystem mounted over its directory (EOTHERFS)', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    const { dev } = fs.statSync(file);
    mount(['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs'], dir);

    const { error } = await w.next((each) => each.error !== undefined);
    expect(error).toMatchObject({ code: 'EOTHERFS', errno: 0, syscall: 'open', path: file });
    expect(error!.message).toMatch(
      new RegExp(`^EOTHERFS: open ${file} is missing, and ${dir} is now on another filesystem \\(0:\\d+\\) than the file was made on \\(${Math.floor(dev / 256)}:${dev % 256}\\); no probe file made there$`),
    );
    expect(fs.readdirSync(dir)).toEqual([]);

    execFileSync('umount', [dir]);
    mounts.splice(mounts.indexOf(dir), 1);
    await expect(w.next((each) => each.error === undefined)).resolves.toMatchObject({ timings: expect.any(Object) });
    expect(fs.existsSync(file)).toBe(true);
  });

  it('a fresh block, once a round, fails on a full filesystem, where rewrites of the probe file still pass, and leaves nothing', async () => {
    const dir = tempDir();
    mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs'], dir);
    // A round of 3 ticks: a block is allocated at ticks 4, 7, ... (tick 1's file was made whole).
    const { w, file } = await placed(dir, { roundTicks: 3 });
    // dd runs until the filesystem is full, then fails with ENOSPC.
    spawnSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'filler')}`, 'bs=4k', 'status=none']);

    const failed = await w.next((each) => each.error !== undefined);
    expect(failed.error).toMatchObject({ code: 'ENOSPC', syscall: 'pwrite', path: dir });
    expect(failed.tick % 3).toBe(1);
    expect(w.all().filter((each) => each.tick > 1 && each.tick < failed.tick).every((each) => each.error === undefined)).toBe(true);

    fs.unlinkSync(path.join(dir, 'filler'));
    const free = () => fs.statfsSync(dir).bfree;
    const before = free();
    await w.next((each) => each.error === undefined);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
    expect(free()).toBe(before);
  });
});

describe.skipIf(gate.skip)('resolve', () => {
  it('reports the mount id, device and filesystem of a directory', async () => {
    const dir = tempDir();
    const result = await worker().resolve(dir);
    const dev = fs.statSync(dir, { bigint: true }).dev;
    expect(result.devMajor).toBe(Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn)));
    expect(result.devMinor).toBe(Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn)));
    expect(result.mntId).toBeGreaterThan(0);
    expect(result.fsMagic).toBe(EXT4_MAGIC);
    expect(MEMORY_FS_MAGICS.has(result.fsMagic)).toBe(false);
  });

  it('fails with ENOTDIR on a file', async () => {
    const file = path.join(tempDir(), 'file');
    fs.writeFileSync(file, '');
    const error = await probeError(worker().resolve(file));
    expect(error).toMatchObject({ code: 'ENOTDIR', errno: 20, syscall: 'statx', path: file });
  });

  it('reports a memory filesystem on tmpfs', async () => {
    const dir = tempDir();
    mount(['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs'], dir);
    const w = worker();
    const [tmpfs, parent] = await Promise.all([w.resolve(dir), w.resolve(base)]);
    expect(tmpfs.fsMagic).toBe(TMPFS_MAGIC);
    expect(MEMORY_FS_MAGICS.has(tmpfs.fsMagic)).toBe(true);
    expect(tmpfs.mntId).not.toBe(parent.mntId);

    // Buffered probing still works there, with the default alignment.
    const { w: probing } = await placed(dir, { direct: false });
    await expect(probing.next()).resolves.toMatchObject({ timings: expect.objectContaining({ totalMs: expect.any(Number) }) });
  });
});

describe.skipIf(gate.skip)('on ramfs, which has no O_DIRECT', () => {
  it('reports a memory filesystem, and a direct probe file fails with EINVAL leaving no file', async () => {
    const dir = tempDir();
    mount(['-t', 'ramfs', 'ramfs'], dir);
    const resolved = await worker().resolve(dir);
    expect(MEMORY_FS_MAGICS.has(resolved.fsMagic)).toBe(true);

    const { first } = await placed(dir, { direct: true });
    expect(first.error).toMatchObject({ code: 'EINVAL', syscall: 'open' });
    expect(first.error!.path).toMatch(new RegExp(`^${dir}/\\.slowdisk-probe-${process.pid}-[0-9a-f]{8}$`));
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe.skipIf(gate.skip)('removal', () => {
  it('leaves a file with another inode, and a symlink, at the probe name', async () => {
    const dir = tempDir();
    const { w, file } = await placed(dir);
    const other = path.join(dir, 'other');
    fs.writeFileSync(other, 'not yours');
    fs.renameSync(other, file);
    await w.next((each) => each.lost !== undefined);
    await w.worker.release();
    expect(fs.readdirSync(dir)).toEqual([path.basename(file)]);
    expect(fs.readFileSync(file, 'utf8')).toBe('not yours');

    fs.unlinkSync(file);
    fs.symlinkSync(other, file);
    await w.worker.stop();
    expect(fs.lstatSync(file).isSymbolicLink()).toBe(true);
  });
});

describe.skipIf(gate.skip)('stale probe files, removed before a file is made', () => {
  it('are only those of dead processes that carry our header', async () => {
    const dir = tempDir();
    const dead = deadPid();
    const outside = tempDir();
    const name = (hex: string, pid = dead) => `.slowdisk-probe-${pid}-${hex}`;
    const put = (file: string, data: Buffer | string) => fs.writeFileSync(path.join(dir, file), data);

    put(name('0000abcd'), header(dead));
    put(name('0000abce', process.pid), header(process.pid)); // alive
    put(name('0000abcf'), 'not a probe file\n'); // bad header
    put(name('0000abd0'), header(process.pid)); // header names someone else
    const targetData = header(dead);
    fs.writeFileSync(path.join(outside, 'target'), targetData);
    fs.symlinkSync(path.join(outside, 'target'), path.join(dir, name('0000abd1')));
    execFileSync('mkfifo', [path.join(dir, name('0000abd2'))]); // must not hang the scan
    fs.mkdirSync(path.join(dir, name('0000abd3')));
    put(name('0000ABCD'), header(dead)); // not a name we create
    put(`${name('0000abd4')}.bak`, header(dead));
    put('unrelated', header(dead));
    const kept = fs.readdirSync(dir).filter((n) => n !== name('0000abcd')).sort();

    const { w, first } = await placed(dir);
    expect(first.staleRemoved).toEqual([path.join(dir, name('0000abcd'))]);
    await w.worker.stop();
    expect(fs.readdirSync(dir).sort()).toEqual(kept);
    expect(fs.readFileSync(path.join(outside, 'target'))).toEqual(targetData);
  });

  it('are those whose writer is provably gone: same host, boot and PID namespace, or an earlier boot', async () => {
    const dir = tempDir();
    const dead = deadPid();
    const beforeBoot = bootTime() - 3600;
    const otherBoot = '00000000-0000-4000-8000-000000000000';
    const cases: [string, Buffer, boolean][] = [
      // Another PID namespace (a container): its pid means nothing here.
      ['0000ab01', header(dead, { pidNs: '4026500000' }), false],
      // Another host sharing the filesystem (NFS): same.
      ['0000ab02', header(dead, { host: 'some-other-host' }), false],
      ['0000ab03', header(dead, { host: 'some-other-host', bootId: otherBoot, created: beforeBoot }), false],
      // An earlier boot of this host: whatever made it is gone, whatever its pid now names.
      ['0000ab04', header(process.pid, { bootId: otherBoot, created: beforeBoot }), true],
      // Another boot id, but made since this boot began: not an earlier boot.
      ['0000ab05', header(dead, { bootId: otherBoot }), false],
      // A version 1 header names a pid only: gone if made before this boot, else left.
      ['0000ab06', header(process.pid, { version: 1, created: beforeBoot }), true],
      ['0000ab07', header(dead, { version: 1 }), false],
    ];
    for (const [hex, data] of cases) {
      const pid = hex === '0000ab04' || hex === '0000ab06' ? process.pid : dead;
      fs.writeFileSync(path.join(dir, `.slowdisk-probe-${pid}-${hex}`), data);
    }
    const { w, first } = await placed(dir);
    expect((first.staleRemoved ?? []).map((p) => path.basename(p).slice(-8)).sort()).toEqual(cases.filter(([, , gone]) => gone).map(([hex]) => hex));
    await w.worker.stop();
    expect(fs.readdirSync(dir)).toHaveLength(cases.filter(([, , gone]) => !gone).length);
  });
});

describe.skipIf(gate.skip)('stale probe files, removed when a directory is let go', () => {
  // A prober replaced just before its run stops: the killed one's file is swept though the
  // replacement never ticked there.
  for (const letGo of ['stop', 'release'] as const) {
    it(`by ${letGo}(), before any file was made there`, async () => {
      const dir = tempDir();
      const dead = deadPid();
      const stale = `.slowdisk-probe-${dead}-0000abcd`;
      const alive = `.slowdisk-probe-${process.pid}-0000abce`;
      fs.writeFileSync(path.join(dir, stale), header(dead));
      fs.writeFileSync(path.join(dir, alive), header(process.pid));
      const w = scheduled(dir, { startMs: MONOTONIC_CLOCK.now() + 3_600_000 });
      await (letGo === 'stop' ? w.worker.stop() : w.worker.release());
      expect(w.all()).toEqual([]);
      expect(fs.readdirSync(dir)).toEqual([alive]);
    });
  }

  it('never where the directory was not placed', async () => {
    const dir = tempDir();
    const dead = deadPid();
    const stale = `.slowdisk-probe-${dead}-0000abcd`;
    fs.writeFileSync(path.join(dir, stale), header(dead));
    const w = scheduled(dir, { startMs: MONOTONIC_CLOCK.now() + 3_600_000, placed: false });
    await w.worker.stop();
    expect(fs.readdirSync(dir)).toEqual([stale]);
  });
});

describe.skipIf(gate.skip)('ProbeWorker', () => {
  it('throws once stopped, and still settles what was queued', async () => {
    const w = new ProbeWorker('closing');
    const dir = tempDir();
    const queued = w.resolve(dir);
    const stopped = w.stop();
    expect(() => w.resolve(dir)).toThrow(/closed/);
    await expect(queued).resolves.toMatchObject({ fsMagic: EXT4_MAGIC });
    await expect(stopped).resolves.toBeUndefined();
  });

  it('names the file tried and why when the addon cannot be loaded', async () => {
    vi.resetModules();
    vi.stubEnv('SLOWDISK_ADDON', '/nonexistent/slowdisk_probe.node');
    try {
      const fresh = await import('../../src/native/addon.js');
      expect(() => new fresh.ProbeWorker('x')).toThrow('cannot load the native addon /nonexistent/slowdisk_probe.node: no such file (ENOENT)');
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  it('delivers a result without keeping an idle process alive', async () => {
    const script = `
      const { ProbeWorker } = require(process.env.ADDON);
      const w = new ProbeWorker('idle');
      w.resolve(process.env.DIR).then((r) => console.log('fsMagic', r.fsMagic));
    `;
    const child = await run(script, { DIR: tempDir() }, 10_000);
    expect(child).toMatchObject({ code: 0, signal: null, stdout: `fsMagic ${EXT4_MAGIC}\n` });
  });
});

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a CommonJS script in a fresh node; `onStdout` sees its output as it comes. */
function run(
  script: string,
  env: Record<string, string>,
  timeoutMs: number,
  onStdout: (text: string) => void = () => {},
): Promise<Exited> {
  const child = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, ADDON, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    onStdout(stdout);
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`child did not exit within ${timeoutMs} ms; stdout: ${stdout}; stderr: ${stderr}`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

const frozenGate = requireRootFacilities(['root', 'loop', 'fsfreeze']);

describe.skipIf(frozenGate.skip)('on a frozen filesystem', () => {
  let mnt: string;

  beforeAll(() => {
    const image = path.join(base, 'disk.img');
    fs.writeFileSync(image, '');
    fs.truncateSync(image, 64 * 1024 * 1024);
    execFileSync('mkfs.ext4', ['-q', '-F', image]);
    mnt = tempDir();
    mount(['-o', 'loop', image], mnt);
  });

  it('a stuck tick holds only its own worker, its requests wait their turn, and stop() does not wait', async () => {
    const { w: stuck, file } = await placed(mnt);
    const other = worker('other');
    freeze(mnt);
    try {
      const order: string[] = [];
      await sleep(400);
      expect(stuck.worker.inFlightSince()).toMatchObject({ sinceMs: expect.any(Number), wallMs: expect.any(Number) });
      const queued = stuck.worker.resolve(mnt).finally(() => order.push('resolve'));
      await sleep(300);
      expect(order).toEqual([]);

      await expect(other.resolve(base)).resolves.toMatchObject({ fsMagic: EXT4_MAGIC });

      const before = performance.now();
      const stopped = stuck.worker.stop().finally(() => order.push('stop'));
      expect(performance.now() - before).toBeLessThan(50);
      expect(() => stuck.worker.resolve(mnt)).toThrow(/closed/);

      thaw(mnt);
      const { timings } = await stuck.next();
      await queued;
      await stopped;
      expect(order).toEqual(['resolve', 'stop']);
      expect(timings!.totalMs).toBeGreaterThan(300);
      expect(fs.existsSync(file)).toBe(false);
    } finally {
      thaw(mnt);
    }
  });

  it('keeps working while the libuv pool is saturated by the frozen disk', async () => {
    const poolSize = Number(process.env.UV_THREADPOOL_SIZE ?? 4);
    const w = worker('pool');
    freeze(mnt);
    try {
      const blockers = Array.from({ length: poolSize }, (_, i) => fsp.writeFile(path.join(mnt, `blocker-${i}`), 'x'));
      await sleep(200);
      let statDone = false;
      const stat = fsp.stat(base).then(() => (statDone = true));

      await expect(w.resolve(base)).resolves.toMatchObject({ fsMagic: EXT4_MAGIC });
      expect(statDone).toBe(false); // the pool really was full

      thaw(mnt);
      await Promise.all([...blockers, stat]);
    } finally {
      thaw(mnt);
    }
  });

  it('process.exit() works while a worker thread is stuck in the kernel', async () => {
    const script = `
      const { ProbeWorker } = require(process.env.ADDON);
      const w = new ProbeWorker('exit');
      w.schedule({ startMs: Number(process.hrtime.bigint()) / 1e6, intervalMs: 50, roundTicks: 10, seedBase: 1, resolveName: 'exit',
                   dir: process.env.DIR, ioSize: 4096, direct: true, sync: 'fdatasync' });
      w.place('exit', 1);
      setTimeout(() => { console.log('exiting'); process.exit(7); }, 300);
    `;
    const dir = path.join(mnt, 'exit');
    fs.mkdirSync(dir);
    freeze(mnt);
    try {
      let thawed = false;
      const exited = await run(script, { DIR: dir }, 20_000, (stdout) => {
        // The kernel holds the exiting process until the stuck write returns.
        if (stdout.includes('exiting') && !thawed) {
          thawed = true;
          setTimeout(() => thaw(mnt), 300);
        }
      });
      expect(exited).toMatchObject({ code: 7, signal: null, stdout: 'exiting\n', stderr: '' });
    } finally {
      thaw(mnt);
    }
  });
});
