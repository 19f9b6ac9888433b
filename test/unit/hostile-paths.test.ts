// Paths a hostile or careless TiKV configuration or directory name holds: a NUL that would
// cut the path short at the syscall, and bidirectional controls that would make a printed
// path read as another.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { visible } from '../../src/common/visible-text.js';
import { BIN, runCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-hostile-paths-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a NUL in a path', () => {
  it('is refused in a TiKV configuration, in one line, and nothing is probed', async () => {
    const d1 = path.join(work, 'd1');
    mkdirSync(d1);
    const config = path.join(work, 'tikv.toml');
    writeFileSync(config, `[storage]\ndata-dir = "${d1}\\u0000/etc"\n`);
    const result = await runCli(['check', '--tikv-config', config, '--duration', '1s']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`slowdisk: ${config}: storage.data-dir holds a NUL byte, which no path can: "${d1}\\u0000/etc"\n`);
    expect(readdirSync(d1)).toEqual([]);
  });
});

describe('a byte that is not UTF-8 in a path', () => {
  it('is refused in one line, and neither that directory nor the one named with U+FFFD is probed', () => {
    const parent = path.join(work, 'bytes');
    mkdirSync(parent);
    // The name with the byte 0xff, and the one Node would make of it.
    const raw = Buffer.concat([Buffer.from(`${parent}/d`), Buffer.from([0xff])]);
    mkdirSync(raw);
    mkdirSync(path.join(parent, 'd\ufffd'));
    // The byte goes through argv as it is: printf makes it, as a shell user's glob would.
    const result = spawnSync('sh', ['-c', `exec "$0" "$1" check --path "a=$(printf '%s/d\\377' "$2")" --duration 1s`, process.execPath, BIN, parent], { encoding: 'utf8' });
    expect(result.status).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `slowdisk: the a directory "${parent}/d\\ufffd" holds a byte that is not UTF-8 (shown as \\ufffd), which slowdisk cannot pass on as it is: refused, rather than probe another directory\n`,
    );
    expect(readdirSync(raw)).toEqual([]);
    expect(readdirSync(path.join(parent, 'd\ufffd'))).toEqual([]);
  });
});

describe('bidirectional controls in a path', () => {
  const OVERRIDES = '\u202e\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u200e\u200f\u061c';

  it('are shown as escapes, as the other control characters', () => {
    expect(visible(`/data/${OVERRIDES}x`)).toBe('/data/\\u202e\\u202a\\u202b\\u202c\\u202d\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061cx');
  });

  it("check's summary shows a directory named with U+202E escaped", async () => {
    // Printed raw, "\u202Eatad.kv" reads "vk.data" on a terminal.
    const dir = path.join(work, '\u202eatad.kv');
    mkdirSync(dir);
    const result = await runCli(['check', '--path', `kv=${dir}`, '--duration', '1s']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toMatch(/[\u202a-\u202e]/);
    expect(result.stdout).toContain(`kv ${work}/\\u202eatad.kv score 1.00 up`);
  });
});
