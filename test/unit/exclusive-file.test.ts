// How slowdisk makes, replaces and reads back its own files, and its run lock, against a
// directory someone else can write to: planted symlinks are never followed, a lock is
// respected only while its run (same PID, same start time, slowdisk) is alive.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, truncateSync, writeFileSync, existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createExclusive, isTemporaryOf, MAX_OWN_FILE_BYTES, RefusedFileError, readRegular, readRegularSync, replaceFile, replaceFileSync, temporaryName } from '../../src/common/exclusive-file.js';
import { processStartTime } from '../../src/common/process-start-time.js';
import { holds, LockHeldError, lockOwnerOf, releaseLock, takeLock } from '../../src/common/run-lock.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-exclusive-file-'));
let dirs = 0;
const newDir = () => mkdtempSync(path.join(work, `${++dirs}-`));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  rmSync(work, { recursive: true, force: true });
});

/** A process that lives until the tests end, running `script` (a path named as the caller likes). */
async function liveProcess(script: string): Promise<number> {
  writeFileSync(script, 'setInterval(() => {}, 1000);\n');
  const child = spawn(process.execPath, [script], { stdio: 'ignore' });
  children.push(child);
  await new Promise((resolve) => child.once('spawn', resolve));
  return child.pid!;
}

describe('files made and replaced', () => {
  it('replaces a symlink planted at the name with the file, and leaves its target alone', async () => {
    const dir = newDir();
    const target = path.join(newDir(), 'secret');
    writeFileSync(target, 'secret\n', { mode: 0o600 });
    symlinkSync(target, path.join(dir, 'slowdisk.prom'));
    await replaceFile(dir, 'slowdisk.prom', 'metrics\n', { mode: 0o644 });
    expect(readFileSync(target, 'utf8')).toBe('secret\n');
    expect(lstatSync(path.join(dir, 'slowdisk.prom')).isFile()).toBe(true);
    expect(readFileSync(path.join(dir, 'slowdisk.prom'), 'utf8')).toBe('metrics\n');
    expect(lstatSync(path.join(dir, 'slowdisk.prom')).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir)).toEqual(['slowdisk.prom']);
  });

  it('never creates through a dangling symlink (O_EXCL|O_NOFOLLOW), nor over any entry', async () => {
    const dir = newDir();
    const nowhere = path.join(newDir(), 'would-be-created');
    symlinkSync(nowhere, path.join(dir, 'run.trace'));
    await expect(createExclusive(path.join(dir, 'run.trace'), 0o644)).rejects.toMatchObject({ code: 'EEXIST' });
    expect(existsSync(nowhere)).toBe(false);
    expect(readlinkSync(path.join(dir, 'run.trace'))).toBe(nowhere);
  });

  it('names its temporary files unguessably, and knows them again', () => {
    const names = new Set(Array.from({ length: 100 }, () => temporaryName('drives.state')));
    expect(names.size).toBe(100);
    for (const name of names) {
      expect(name).toMatch(/^\.drives\.state\.[0-9a-f]{24}\.tmp$/);
      expect(isTemporaryOf(name, 'drives.state')).toBe(true);
      expect(isTemporaryOf(name, 'slowdisk.prom')).toBe(false);
    }
    expect(isTemporaryOf('.drives.state.4242.tmp', 'drives.state')).toBe(false);
  });

  it('reads a regular file, none as null, and refuses a symlink or a directory', async () => {
    const dir = newDir();
    writeFileSync(path.join(dir, 'file'), 'text');
    symlinkSync(path.join(dir, 'file'), path.join(dir, 'link'));
    expect(await readRegular(path.join(dir, 'file'))).toBe('text');
    expect(await readRegular(path.join(dir, 'missing'))).toBeNull();
    await expect(readRegular(path.join(dir, 'link'))).rejects.toThrow(new RefusedFileError(path.join(dir, 'link'), 'a symbolic link'));
    await expect(readRegular(dir)).rejects.toThrow(`${dir} is a directory, not a regular file: refused (move it away)`);
  });

  it('refuses a file larger than any of its own unread, a sparse one of 1 GiB too', async () => {
    const dir = newDir();
    const file = path.join(dir, 'drives.state');
    writeFileSync(file, '');
    truncateSync(file, 1024 ** 3);
    const refused = `${file} is 1073741824 bytes, larger than any file of slowdisk's (${MAX_OWN_FILE_BYTES}): refused (move it away)`;
    await expect(readRegular(file)).rejects.toThrow(refused);
    await expect(readRegular(file)).rejects.toMatchObject({ code: 'EFBIG' });
    expect(() => readRegularSync(file)).toThrow(refused);
    truncateSync(file, MAX_OWN_FILE_BYTES);
    expect(await readRegular(file)).toHaveLength(MAX_OWN_FILE_BYTES);
  });
});

describe('the synchronous forms (the prober registry)', () => {
  it('replace a symlink planted at the name, leaving its target alone, and refuse to read a symlink or a FIFO', () => {
    const dir = newDir();
    const target = path.join(newDir(), 'secret');
    writeFileSync(target, 'secret\n', { mode: 0o600 });
    symlinkSync(target, path.join(dir, 'entry.json'));
    expect(() => readRegularSync(path.join(dir, 'entry.json'))).toThrow(RefusedFileError);
    replaceFileSync(dir, 'entry.json', '{}');
    expect(readFileSync(target, 'utf8')).toBe('secret\n');
    expect(readRegularSync(path.join(dir, 'entry.json'))).toBe('{}');
    expect(readdirSync(dir)).toEqual(['entry.json']);
    execFileSync('mkfifo', [path.join(dir, 'fifo')]);
    expect(() => readRegularSync(path.join(dir, 'fifo'))).toThrow(/is a FIFO, not a regular file/);
    expect(readRegularSync(path.join(dir, 'none'))).toBeNull();
  });
});

describe('the run lock', () => {
  it("names the run by PID and start time, and is released only by its owner", async () => {
    const lock = path.join(newDir(), 'drives.lock');
    const owner = lockOwnerOf(process.pid);
    expect(owner.startTime).toBeGreaterThan(0);
    await takeLock(lock, owner);
    expect(readFileSync(lock, 'utf8')).toBe(`slowdisk-lock ${process.pid} ${owner.startTime}\n`);
    await releaseLock(lock, { pid: process.pid, startTime: owner.startTime! + 1 });
    expect(existsSync(lock)).toBe(true);
    await releaseLock(lock, owner);
    expect(existsSync(lock)).toBe(false);
    expect(readdirSync(path.dirname(lock))).toEqual([]);
  });

  it("respects a live slowdisk's lock, not a live process that is not slowdisk, nor a PID reused since", async () => {
    const dir = newDir();
    const slowdisk = await liveProcess(path.join(dir, 'slowdisk.js'));
    const other = await liveProcess(path.join(dir, 'something-else.js'));
    const lock = path.join(dir, 'drives.lock');
    const mine = lockOwnerOf(process.pid);

    writeFileSync(lock, `slowdisk-lock ${slowdisk} ${processStartTime(slowdisk)}\n`);
    expect(holds({ pid: slowdisk, startTime: processStartTime(slowdisk) })).toBe(true);
    await expect(takeLock(lock, mine)).rejects.toThrow(new LockHeldError(lock, slowdisk));
    // A lock of an older slowdisk, the PID alone.
    writeFileSync(lock, `${slowdisk}\n`);
    await expect(takeLock(lock, mine)).rejects.toThrow(LockHeldError);

    // The same PID started at another time: reused by a process started since.
    writeFileSync(lock, `slowdisk-lock ${slowdisk} ${processStartTime(slowdisk)! - 1}\n`);
    await takeLock(lock, mine);
    expect(readFileSync(lock, 'utf8')).toBe(`slowdisk-lock ${process.pid} ${mine.startTime}\n`);

    writeFileSync(lock, `${other}\n`);
    expect(holds({ pid: other, startTime: null })).toBe(false);
    await takeLock(lock, mine);
    expect(readFileSync(lock, 'utf8')).toBe(`slowdisk-lock ${process.pid} ${mine.startTime}\n`);

    writeFileSync(lock, 'not a lock at all');
    await takeLock(lock, mine);
    expect(readFileSync(lock, 'utf8')).toBe(`slowdisk-lock ${process.pid} ${mine.startTime}\n`);
    await releaseLock(lock, mine);
    expect(readdirSync(dir).sort()).toEqual(['slowdisk.js', 'something-else.js']);
  });

  it('refuses a symlink at the lock, and follows it not', async () => {
    const dir = newDir();
    const target = path.join(newDir(), 'secret');
    writeFileSync(target, 'secret\n');
    symlinkSync(target, path.join(dir, 'drives.lock'));
    await expect(takeLock(path.join(dir, 'drives.lock'), lockOwnerOf(process.pid))).rejects.toThrow(RefusedFileError);
    expect(readFileSync(target, 'utf8')).toBe('secret\n');
    expect(readdirSync(dir)).toEqual(['drives.lock']);
  });
});
