// The native probe layer against real filesystems: /tmp (ext4), a tmpfs and a
// loop-mounted ext4 that the tests freeze. Needs root.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as fsp from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { MEMORY_FS_MAGICS, ProbeError, ProbeWorker, type InspectRequest, type ProbeFile } from '../../src/native/addon.js';
import os from 'node:os';
import { bootTime, deadPid, probeHeader as header, thisOrigin } from '../helpers/probe-file-fakes.js';
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

afterEach(() => {
  for (const w of workers.splice(0)) w.close();
});

afterAll(() => {
  // Thawed first: a frozen filesystem cannot be unmounted, and would hang
  // whatever touches it after the tests.
  for (const dir of frozen) thaw(dir);
  for (const dir of mounts.reverse()) execFileSync('umount', [dir]);
  fs.rmSync(base, { recursive: true, force: true });
});

function readBlock(file: ProbeFile, index: number): Buffer {
  const fd = fs.openSync(file.path, 'r');
  try {
    const buf = Buffer.alloc(file.ioSize);
    expect(fs.readSync(fd, buf, 0, file.ioSize, index * file.ioSize)).toBe(file.ioSize);
    return buf;
  } finally {
    fs.closeSync(fd);
  }
}

function request(file: ProbeFile, overrides: Partial<InspectRequest> = {}): InspectRequest {
  return { file, block: 0, direct: true, sync: 'fdatasync', seed: 1, ...overrides };
}

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

describe.skipIf(gate.skip)('prepare', () => {
  for (const direct of [true, false]) {
    it(`creates one probe file: header, mode 0600, 65 written blocks (direct=${direct})`, async () => {
      const dir = tempDir();
      const file = await worker().prepare(dir, { ioSize: 4096, direct });

      const names = fs.readdirSync(dir);
      expect(names).toHaveLength(1);
      expect(names[0]).toMatch(new RegExp(`^\\.slowdisk-probe-${process.pid}-[0-9a-f]{8}$`));
      expect(file.path).toBe(path.join(dir, names[0]!));
      expect(file.blocks).toBe(64);
      expect(file.ioSize).toBe(4096);
      expect(file.ioSize % file.align).toBe(0);
      expect(['statx', 'logical-block-size']).toContain(file.alignSource);
      expect(file.staleRemoved).toEqual([]);

      const st = fs.statSync(file.path);
      expect(st.isFile()).toBe(true);
      expect(st.mode & 0o777).toBe(0o600);
      expect(st.ino).toBe(file.ino);
      expect(st.size).toBe(65 * file.ioSize);
      expect(st.blocks * 512).toBeGreaterThanOrEqual(65 * file.ioSize);

      const origin = thisOrigin();
      const head = readBlock(file, 0).toString('latin1');
      const text = head.replace(/\0+$/, '');
      expect(text).toMatch(
        new RegExp(
          `^slowdisk probe file\nversion=2\npid=${process.pid}\ncreated=\\d+\nhost=${os.hostname()}\n` +
            `boot_id=${origin.bootId}\npid_ns=${origin.pidNs}\ntoken=[0-9a-f]{32}\n.*slowdisk prober.*\n$`,
        ),
      );
      const created = Number(/created=(\d+)/.exec(text)![1]);
      expect(Math.abs(created - Date.now() / 1000)).toBeLessThan(60);
      for (let block = 1; block <= 64; block++) {
        expect(readBlock(file, block).some((byte) => byte !== 0)).toBe(true);
      }
    });
  }

  it('rounds ioSize up to the alignment', async () => {
    const file = await worker().prepare(tempDir(), { ioSize: 1000, direct: true });
    expect(file.ioSize % file.align).toBe(0);
    expect(file.ioSize).toBeGreaterThanOrEqual(1000);
    expect(file.ioSize).toBeLessThan(1000 + file.align);
    expect(fs.statSync(file.path).size).toBe(65 * file.ioSize);
  });

  it('fails with the errno, syscall and path when the directory is missing', async () => {
    const dir = path.join(base, 'missing');
    const error = await probeError(worker().prepare(dir, { ioSize: 4096, direct: true }));
    expect(error).toMatchObject({ code: 'ENOENT', errno: 2, syscall: 'realpath', path: dir });
    expect(error.message).toBe(`ENOENT: realpath ${dir} (No such file or directory)`);
  });
});

describe.skipIf(gate.skip)('inspect', () => {
  for (const [direct, sync] of [
    [true, 'fdatasync'],
    [true, 'fsync'],
    [false, 'fdatasync'],
    [false, 'fsync'],
  ] as const) {
    it(`times each phase and writes new data every time (direct=${direct}, ${sync})`, async () => {
      const dir = tempDir();
      const w = worker();
      const file = await w.prepare(dir, { ioSize: 4096, direct });
      const before = fs.readFileSync(file.path);

      const first = await w.inspect(request(file, { block: 3, direct, sync, seed: 11 }));
      const phases = [first.openNs, first.writeNs, first.syncNs, first.readNs, first.closeNs];
      for (const ns of phases) expect(ns).toBeGreaterThan(0);
      expect(first.totalNs).toBeGreaterThanOrEqual(phases.reduce((a, b) => a + b));
      expect(first).toMatchObject({ created: false, ino: file.ino });

      // Block 3 is the 4th data block, after the header; nothing else changed.
      const after = fs.readFileSync(file.path);
      const at = 4 * file.ioSize;
      expect(after.subarray(at, at + file.ioSize).equals(before.subarray(at, at + file.ioSize))).toBe(false);
      const outside = (buf: Buffer) => Buffer.concat([buf.subarray(0, at), buf.subarray(at + file.ioSize)]);
      expect(outside(after).equals(outside(before))).toBe(true);

      // block wraps around the 64 data blocks
      await w.inspect(request(file, { block: 3 + 64, direct, sync, seed: 12 }));
      const again = readBlock(file, 4);
      expect(again.equals(after.subarray(at, at + file.ioSize))).toBe(false);
    });
  }

  it('fails with ENOENT from open, with the path, when the directory is gone', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    const moved = `${dir}-moved`;
    fs.renameSync(dir, moved);

    const error = await probeError(w.inspect(request(file)));
    expect(error).toMatchObject({ code: 'ENOENT', errno: 2, syscall: 'open', path: file.path });
    expect(error.offset).toBeUndefined();
    expect(error.message).toBe(`ENOENT: open ${file.path} (No such file or directory)`);
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('fails with ENAMETAKEN on a symlink planted at the probe name, naming it, leaving its target untouched', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    const target = path.join(tempDir(), 'precious');
    fs.writeFileSync(target, 'precious data');
    fs.unlinkSync(file.path);
    fs.symlinkSync(target, file.path);

    const error = await probeError(w.inspect(request(file)));
    expect(error).toMatchObject({ code: 'ENAMETAKEN', errno: 0, syscall: 'open', path: file.path });
    expect(error.message).toBe(`ENAMETAKEN: open ${file.path} is taken by someone else: a symbolic link to ${target}; left untouched`);
    expect(fs.readFileSync(target, 'utf8')).toBe('precious data');
    expect(fs.lstatSync(file.path).isSymbolicLink()).toBe(true);
  });

  it('fails with ENAMETAKEN and writes nothing when another file took the probe name', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    const other = path.join(dir, 'other');
    fs.writeFileSync(other, Buffer.alloc(65 * 4096, 7));
    fs.renameSync(other, file.path);

    const error = await probeError(w.inspect(request(file)));
    expect(error).toMatchObject({ code: 'ENAMETAKEN', errno: 0, syscall: 'open', path: file.path });
    expect(error.message).toMatch(/is taken by someone else: a regular file of 266240 bytes, inode \d+, owner uid 0; left untouched$/);
    expect(fs.readFileSync(file.path).every((byte) => byte === 7)).toBe(true);
  });

  it('never writes into a file made at the probe name after ours was removed, even with its inode number', async () => {
    const dir = tempDir();
    const w = worker();
    let reused = false;
    // ext4 hands a freed inode number out again, mostly at once: tried until it does.
    for (let attempt = 0; attempt < 20 && !reused; attempt++) {
      const file = await w.prepare(dir, { ioSize: 4096, direct: true });
      fs.unlinkSync(file.path);
      const mine = Buffer.alloc(65 * 4096, 9);
      fs.writeFileSync(file.path, mine, { flag: 'wx' });
      reused = fs.statSync(file.path).ino === file.ino;

      const error = await probeError(w.inspect(request(file)));
      expect(error).toMatchObject({ code: 'ENAMETAKEN', path: file.path });
      if (reused) expect(error.message).toMatch(/\(same inode number, another birth time\); left untouched$/);
      await expect(w.remove(file)).rejects.toMatchObject({ code: 'ENOTOURS' });
      expect(fs.readFileSync(file.path).equals(mine)).toBe(true);
      fs.unlinkSync(file.path);
    }
    expect(reused).toBe(true);
  });

  it('never writes into a file with our inode number and birth time whose header is not ours', async () => {
    // The header's token is the last check: a file rewritten in place by someone else.
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    const fd = fs.openSync(file.path, 'r+');
    fs.writeSync(fd, header(process.pid), 0, 4096, 0);
    fs.closeSync(fd);
    const before = fs.readFileSync(file.path);

    const error = await probeError(w.inspect(request(file)));
    expect(error.message).toMatch(/\(same inode number, not this prober's header\); left untouched$/);
    expect(fs.readFileSync(file.path).equals(before)).toBe(true);
  });

  it('fails with ECORRUPT and the offset when the block reads back different data', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: false });
    const start = 8 * file.ioSize; // block 7
    // Another writer keeps zeroing the probe block, so some read-back differs.
    const clobber = spawn(
      process.execPath,
      ['-e', `const fs = require('fs'); const fd = fs.openSync(process.argv[1], 'r+');
              const zeros = Buffer.alloc(${file.ioSize}); for (;;) fs.writeSync(fd, zeros, 0, zeros.length, ${start});`, file.path],
      { stdio: 'ignore' },
    );
    try {
      let error: unknown;
      for (let seed = 1; seed < 2000 && error === undefined; seed++) {
        error = await w.inspect(request(file, { block: 7, direct: false, seed })).then(() => undefined, (e: unknown) => e);
      }
      expect(error).toBeInstanceOf(ProbeError);
      const corrupt = error as ProbeError;
      expect(corrupt).toMatchObject({ code: 'ECORRUPT', errno: 0, syscall: 'pread', path: file.path });
      expect(corrupt.offset).toBeGreaterThanOrEqual(start);
      expect(corrupt.offset).toBeLessThan(start + file.ioSize);
      expect(corrupt.message).toBe(`ECORRUPT: pread ${file.path} read back different data at byte ${corrupt.offset}`);
    } finally {
      clobber.kill('SIGKILL');
    }
  });

  it('re-creates a deleted probe file under the same path', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    fs.unlinkSync(file.path);

    const result = await w.inspect(request(file, { block: 5, seed: 99 }));
    expect(result.created).toBe(true);
    const st = fs.statSync(file.path);
    expect(result.ino).toBe(st.ino);
    expect(st.size).toBe(65 * file.ioSize);
    expect(st.mode & 0o777).toBe(0o600);
    expect(readBlock(file, 0).toString('latin1')).toContain(`\npid=${process.pid}\n`);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file.path)]);

    const next = await w.inspect(request({ ...file, ino: result.ino, identity: result.identity }, { block: 6, seed: 100 }));
    expect(next.created).toBe(false);
  });

  it('never probes where the directory leads through a symlink put in its place (EDIRCHANGED), and removes its file where it went', async () => {
    const dir = tempDir();
    const elsewhere = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    fs.renameSync(dir, `${dir}.orig`);
    fs.symlinkSync(elsewhere, dir);

    const error = await probeError(w.inspect(request(file)));
    expect(error).toMatchObject({ code: 'EDIRCHANGED', errno: 0, syscall: 'realpath', path: dir });
    await expect(w.resolve(dir, file.resolvedDir)).rejects.toMatchObject({ code: 'EDIRCHANGED' });
    await expect(w.prepare(dir, { ioSize: 4096, direct: true, resolvedDir: file.resolvedDir })).rejects.toMatchObject({ code: 'EDIRCHANGED' });
    expect(fs.readdirSync(elsewhere)).toEqual([]);

    await w.remove(file);
    expect(fs.readdirSync(`${dir}.orig`)).toEqual([]);
  });

  it('a directory put in the place of the renamed one gets a new file; the old one is still removed where it went', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    fs.renameSync(dir, `${dir}.orig`);
    fs.mkdirSync(dir);

    const result = await w.inspect(request(file));
    expect(result).toMatchObject({ created: true, dirReplaced: true });
    expect(fs.readdirSync(dir)).toEqual([file.name]);
    await w.remove({ ...file, identity: result.identity });
    await w.remove(file);
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(fs.readdirSync(`${dir}.orig`)).toEqual([]);
  });

  it('makes no probe file on another filesystem mounted over its directory (EOTHERFS)', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    mount(['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs'], dir);

    const error = await probeError(w.inspect(request(file)));
    expect(error).toMatchObject({ code: 'EOTHERFS', errno: 0, syscall: 'open', path: file.path });
    expect(error.message).toMatch(
      new RegExp(`^EOTHERFS: open ${file.path} is missing, and ${dir} is now on another filesystem \\(0:\\d+\\) than the file was made on \\(${file.devMajor}:${file.devMinor}\\); no probe file made there$`),
    );
    expect(fs.readdirSync(dir)).toEqual([]);

    execFileSync('umount', [dir]);
    mounts.splice(mounts.indexOf(dir), 1);
    await expect(w.inspect(request(file))).resolves.toMatchObject({ created: false, ino: file.ino });
  });

  it('a fresh block fails on a full filesystem, where rewrites of the probe file still pass, and leaves nothing', async () => {
    const dir = tempDir();
    mount(['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs'], dir);
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    // dd runs until the filesystem is full, then fails with ENOSPC.
    spawnSync('dd', ['if=/dev/zero', `of=${path.join(dir, 'filler')}`, 'bs=4k', 'status=none']);

    await expect(w.inspect(request(file))).resolves.toMatchObject({ created: false });
    const error = await probeError(w.inspect(request(file, { freshBlock: true })));
    expect(error).toMatchObject({ code: 'ENOSPC', syscall: 'pwrite', path: dir });

    fs.unlinkSync(path.join(dir, 'filler'));
    const free = () => fs.statfsSync(dir).bfree;
    const before = free();
    await expect(w.inspect(request(file, { freshBlock: true }))).resolves.toMatchObject({ created: false });
    expect(fs.readdirSync(dir)).toEqual([path.basename(file.path)]);
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
    const file = await w.prepare(dir, { ioSize: 4096, direct: false });
    const result = await w.inspect(request(file, { direct: false }));
    expect(result.totalNs).toBeGreaterThan(0);
  });
});

describe.skipIf(gate.skip)('on ramfs, which has no O_DIRECT', () => {
  it('reports a memory filesystem, and a direct prepare fails with EINVAL leaving no file', async () => {
    const dir = tempDir();
    mount(['-t', 'ramfs', 'ramfs'], dir);
    const w = worker();
    const resolved = await w.resolve(dir);
    expect(MEMORY_FS_MAGICS.has(resolved.fsMagic)).toBe(true);

    const error = await probeError(w.prepare(dir, { ioSize: 4096, direct: true }));
    expect(error).toMatchObject({ code: 'EINVAL', syscall: 'open' });
    expect(error.path).toMatch(new RegExp(`^${dir}/\\.slowdisk-probe-${process.pid}-[0-9a-f]{8}$`));
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});

describe.skipIf(gate.skip)('remove', () => {
  it('removes our file, and treats a missing one as removed', async () => {
    const w = worker();
    const file = await w.prepare(tempDir(), { ioSize: 4096, direct: true });
    await w.remove(file);
    expect(fs.existsSync(file.path)).toBe(false);
    await expect(w.remove(file)).resolves.toBeUndefined();
  });

  it('refuses a file with another inode, and a symlink', async () => {
    const dir = tempDir();
    const w = worker();
    const file = await w.prepare(dir, { ioSize: 4096, direct: true });
    const other = path.join(dir, 'other');
    fs.writeFileSync(other, 'not yours');
    fs.renameSync(other, file.path);

    const error = await probeError(w.remove(file));
    expect(error).toMatchObject({ code: 'ENOTOURS', syscall: 'unlink', path: file.path });
    expect(fs.readFileSync(file.path, 'utf8')).toBe('not yours');

    fs.unlinkSync(file.path);
    fs.symlinkSync(other, file.path);
    await expect(w.remove(file)).rejects.toMatchObject({ code: 'ENOTOURS' });
    expect(fs.lstatSync(file.path).isSymbolicLink()).toBe(true);
  });
});

describe.skipIf(gate.skip)('removeStale', () => {
  it('removes only probe files of dead processes that carry our header', async () => {
    const dir = tempDir();
    const dead = deadPid();
    const outside = tempDir();
    const name = (hex: string, pid = dead) => `.slowdisk-probe-${pid}-${hex}`;
    const put = (file: string, data: Buffer | string) => fs.writeFileSync(path.join(dir, file), data);

    put(name('0000abcd'), header(dead));
    put(name('0000abce', process.pid), header(process.pid)); // alive
    put(name('0000abcf'), 'not a probe file\n'); // bad header
    put(name('0000abd0'), header(process.pid)); // header names someone else
    fs.writeFileSync(path.join(outside, 'target'), header(dead));
    fs.symlinkSync(path.join(outside, 'target'), path.join(dir, name('0000abd1')));
    execFileSync('mkfifo', [path.join(dir, name('0000abd2'))]); // must not hang the scan
    fs.mkdirSync(path.join(dir, name('0000abd3')));
    put(name('0000ABCD'), header(dead)); // not a name we create
    put(`${name('0000abd4')}.bak`, header(dead));
    put('unrelated', header(dead));
    const kept = fs.readdirSync(dir).filter((n) => n !== name('0000abcd')).sort();

    const removed = await worker().removeStale(dir);
    expect(removed).toEqual([path.join(dir, name('0000abcd'))]);
    expect(fs.readdirSync(dir).sort()).toEqual(kept);
    expect(fs.readFileSync(path.join(outside, 'target'))).toEqual(header(dead));
  });

  it('removes a file only when its writer is provably gone: same host, boot and PID namespace, or an earlier boot', async () => {
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
    const removed = (await worker().removeStale(dir)).map((p) => path.basename(p).slice(-8)).sort();
    expect(removed).toEqual(cases.filter(([, , gone]) => gone).map(([hex]) => hex));
    expect(fs.readdirSync(dir)).toHaveLength(cases.filter(([, , gone]) => !gone).length);
  });

  it('runs as part of prepare', async () => {
    const dir = tempDir();
    const dead = deadPid();
    const stale = path.join(dir, `.slowdisk-probe-${dead}-12345678`);
    fs.writeFileSync(stale, header(dead));

    const file = await worker().prepare(dir, { ioSize: 4096, direct: true });
    expect(file.staleRemoved).toEqual([stale]);
    expect(fs.readdirSync(dir)).toEqual([path.basename(file.path)]);
  });
});

describe.skipIf(gate.skip)('ProbeWorker', () => {
  it('throws once closed, and still settles what was queued', async () => {
    const w = new ProbeWorker('closing');
    const dir = tempDir();
    const queued = w.resolve(dir);
    w.close();
    expect(() => w.resolve(dir)).toThrow(/closed/);
    await expect(queued).resolves.toMatchObject({ fsMagic: EXT4_MAGIC });
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

  it('a stuck request holds only its own worker, in order, and close() does not wait', async () => {
    const stuck = worker('stuck');
    const other = worker('other');
    const file = await stuck.prepare(mnt, { ioSize: 4096, direct: true });
    freeze(mnt);
    try {
      const order: string[] = [];
      const inspection = stuck.inspect(request(file, { seed: 5 })).finally(() => order.push('inspect'));
      const queued = stuck.resolve(mnt).finally(() => order.push('resolve'));
      await sleep(300);
      expect(order).toEqual([]);

      await expect(other.resolve(base)).resolves.toMatchObject({ fsMagic: EXT4_MAGIC });

      const before = performance.now();
      stuck.close();
      expect(performance.now() - before).toBeLessThan(50);
      expect(() => stuck.resolve(mnt)).toThrow(/closed/);

      thaw(mnt);
      const result = await inspection;
      await queued;
      expect(order).toEqual(['inspect', 'resolve']);
      expect(result.totalNs).toBeGreaterThan(300e6);
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
    const file = await worker().prepare(mnt, { ioSize: 4096, direct: true });
    const script = `
      const { ProbeWorker } = require(process.env.ADDON);
      const file = JSON.parse(process.env.FILE);
      new ProbeWorker('exit').inspect({ ...file, block: 0, direct: true, sync: 'fdatasync', seed: 3 });
      setTimeout(() => { console.log('exiting'); process.exit(7); }, 300);
    `;
    freeze(mnt);
    try {
      let thawed = false;
      const exited = await run(script, { FILE: JSON.stringify(file) }, 20_000, (stdout) => {
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
