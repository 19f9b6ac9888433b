// Which directories slowdisk keeps its own files in: this user's, not a symlink, and closed to
// others as far as the files ask (the status sockets: not entered; the state: not written).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { untrustedDir, untrustedPath } from '../../src/common/trusted-dir.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-trusted-dir-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('untrustedDir', () => {
  it('trusts a directory of this user closed to others, and one others may only read for the state', () => {
    const dir = mkdtempSync(path.join(work, 'dir-'));
    chmodSync(dir, 0o700);
    expect(untrustedDir(dir)).toBeNull();
    expect(untrustedDir(dir, 'writable')).toBeNull();
    chmodSync(dir, 0o755);
    expect(untrustedDir(dir)).toBe(`${dir} is open to others (mode 755)`);
    expect(untrustedDir(dir, 'writable')).toBeNull();
  });

  it('refuses one others can write to, a symlink, and one that is not there', () => {
    const dir = mkdtempSync(path.join(work, 'dir-'));
    chmodSync(dir, 0o775);
    expect(untrustedDir(dir, 'writable')).toBe(`${dir} is writable by others (mode 775)`);
    const link = path.join(work, 'link');
    symlinkSync(dir, link);
    expect(untrustedDir(link, 'writable')).toBe(`${link} is not a directory`);
    expect(untrustedDir(path.join(work, 'none'), 'writable')).toBe(`ENOENT: lstat ${path.join(work, 'none')}`);
  });
});

describe('untrustedPath', () => {
  it('refuses a directory below one others can write to, unless that one is sticky (/tmp)', () => {
    const parent = mkdtempSync(path.join(work, 'parent-'));
    const dir = path.join(parent, 'state');
    mkdirSync(dir, { mode: 0o700 });
    expect(untrustedPath(dir, 'writable')).toBeNull();
    chmodSync(parent, 0o777);
    expect(untrustedPath(dir, 'writable')).toBe(`${parent}, above ${dir}, is writable by others (mode 777): they can put another directory in its place`);
    chmodSync(parent, 0o1777);
    expect(untrustedPath(dir, 'writable')).toBeNull();
    chmodSync(dir, 0o777);
    expect(untrustedPath(dir, 'writable')).toBe(`${dir} is writable by others (mode 777)`);
  });
});
