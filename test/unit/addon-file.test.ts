// Why an addon did not load, as the one line a user sees: a file for another machine is
// named as such (the dynamic linker only says it cannot open it), anything else as the
// dynamic linker put it, without the file's path twice.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { elfArchitecture, whyNotLoaded } from '../../src/native/addon-file.js';
import { runCli } from '../helpers/run-cli.js';

/** The first 20 bytes of a 64-bit little-endian ELF shared object for `machine`. */
function elfHeader(machine: number): Buffer {
  const header = Buffer.alloc(64);
  header.writeUInt32BE(0x7f454c46, 0);
  header[4] = 2;
  header[5] = 1;
  header.writeUInt16LE(3, 16);
  header.writeUInt16LE(machine, 18);
  return header;
}

const dirs: string[] = [];
function file(content: Buffer): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'slowdisk-addon-'));
  dirs.push(dir);
  const name = path.join(dir, 'addon.node');
  writeFileSync(name, content);
  return name;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const OTHER = process.arch === 'arm64' ? { machine: 62, arch: 'x64' } : { machine: 183, arch: 'arm64' };

describe('an addon that does not load', () => {
  it('reads the architecture from the ELF header', () => {
    expect(elfArchitecture(elfHeader(62))).toBe('x64');
    expect(elfArchitecture(elfHeader(183))).toBe('arm64');
    expect(elfArchitecture(Buffer.from('{"name": "slowdisk"}'))).toBeNull();
  });

  it("names a file built for another architecture, and this machine's", () => {
    const name = file(elfHeader(OTHER.machine));
    expect(whyNotLoaded(name, new Error(`${name}: cannot open shared object file: No such file or directory`))).toBe(
      `wrong architecture: the file is built for ${OTHER.arch}, and this machine is ${process.arch}`,
    );
  });

  it("says what the dynamic linker said of a file for this machine, without its path in front", () => {
    const name = file(elfHeader(process.arch === 'arm64' ? 183 : 62));
    const glibc = `/lib/libc.so.6: version \`GLIBC_2.99' not found (required by ${name})`;
    expect(whyNotLoaded(name, new Error(`${name}: ${glibc}\n    at Module._extensions..node`))).toBe(glibc);
  });

  it('names a missing file and one that is no shared object', () => {
    expect(whyNotLoaded('/nonexistent/addon.node', new Error('x'))).toBe('no such file (ENOENT)');
    expect(whyNotLoaded(file(Buffer.from('#!/bin/sh\n')), new Error('invalid ELF header'))).toBe('not a shared object (no ELF header)');
  });
});

describe('a run whose addon does not load', () => {
  it('ends with one line naming the file and why, exit 3, not the prober crashing', async () => {
    const dir = path.dirname(file(Buffer.from('')));
    const result = await runCli(['check', '--duration', '3s', '--allow-short', '--path', `data=${dir}`], { env: { SLOWDISK_ADDON: '/nonexistent/slowdisk_probe.node' } });
    expect(result.stderr).toBe('slowdisk: cannot load the native addon /nonexistent/slowdisk_probe.node: no such file (ENOENT)\n');
    expect(result.stdout).toBe('');
    expect(result.code).toBe(3);
  });
});
