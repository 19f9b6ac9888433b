// Paths a hostile or careless TiKV configuration or directory name holds: a NUL that would
// cut the path short at the syscall, and bidirectional controls that would make a printed
// path read as another. Run in-process, the inspections played by the stub prober; a byte that
// is not UTF-8 reaching the real prober through argv is in test/e2e/hostile-paths-live.test.ts.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { bytesShown, visible } from '../../src/common/visible-text.js';
import { fsPath, pathBytes, pathText } from '../../src/common/path-text.js';
import { runInProcess } from '../helpers/in-process-cli.js';

vi.mock('node:child_process', async (importOriginal) => (await import('../helpers/stub-prober.js')).withStubProber(await importOriginal()));

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-hostile-paths-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a NUL in a path', () => {
  it('is refused in a TiKV configuration, in one line, and nothing is probed', async () => {
    const d1 = path.join(work, 'd1');
    mkdirSync(d1);
    const config = path.join(work, 'tikv.toml');
    writeFileSync(config, `[storage]\ndata-dir = "${d1}\\u0000/etc"\n`);
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(3);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`slowdisk: ${config}: storage.data-dir holds a NUL byte, which no path can: "${d1}\\u0000/etc"\n`);
    expect(readdirSync(d1)).toEqual([]);
  });
});

describe('a byte that is not UTF-8 in a path', () => {
  it('is shown as the byte it is; a character beyond U+FFFF is left alone', () => {
    // How the CLI holds such a byte: the lone surrogate U+DC80 + (byte - 0x80).
    expect(visible('/data/d\udcff\udc80')).toBe('/data/d\\xff\\x80');
    // U+1F480 is the pair D83D DC80: not a lone surrogate.
    expect(visible('/data/\u{1f480}')).toBe('/data/\u{1f480}');
  });

  it('is given to node:fs as the bytes it is, and shown in a metrics label as the byte', () => {
    const bytes = Buffer.from([0x2f, 0x64, 0xff, 0x80, 0xc3, 0xa9, 0xe2, 0x82, 0xac, 0xf0, 0x9f, 0x92, 0x80]);
    const text = pathText(bytes);
    expect(text).toBe('/d\udcff\udc80\u00e9\u20ac\u{1f480}');
    expect(pathBytes(text)).toEqual(bytes);
    expect(fsPath(text)).toEqual(bytes);
    // All UTF-8: the text itself, as node:fs has always been given it.
    expect(fsPath('/data/\u00e9')).toBe('/data/\u00e9');
    expect(bytesShown('/data/d\udcff\n')).toBe('/data/d\\xff\n');
  });

  it('is refused in a TiKV configuration, which must be UTF-8', async () => {
    const config = path.join(work, 'not-utf8.toml');
    writeFileSync(config, Buffer.concat([Buffer.from(`[storage]\ndata-dir = "${work}/d`), Buffer.from([0xff]), Buffer.from('"\n')]));
    const result = await runInProcess(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `slowdisk: ${config}: storage.data-dir "${work}/d\\ufffd" holds a byte that is not UTF-8 (shown as \\ufffd): refused, rather than probe another directory\n`,
    );
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
    const result = await runInProcess(['check', '--path', `kv=${dir}`, '--duration', '1s', '--allow-short']);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toMatch(/[\u202a-\u202e]/);
    expect(result.stdout).toContain(`kv ${work}/\\u202eatad.kv score `);
  });
});
