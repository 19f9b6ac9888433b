// Paths a hostile or careless TiKV configuration or directory name holds: a NUL that would
// cut the path short at the syscall, and bidirectional controls that would make a printed
// path read as another.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bytesShown, visible } from '../../src/common/visible-text.js';
import { fsPath, pathBytes, pathText } from '../../src/common/path-text.js';
import { BIN, runCli, waitFor } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-hostile-paths-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a NUL in a path', () => {
  it('is refused in a TiKV configuration, in one line, and nothing is probed', async () => {
    const d1 = path.join(work, 'd1');
    mkdirSync(d1);
    const config = path.join(work, 'tikv.toml');
    writeFileSync(config, `[storage]\ndata-dir = "${d1}\\u0000/etc"\n`);
    const result = await runCli(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
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

  it('probes that very directory, not the one named with U+FFFD, and shows the byte escaped', async () => {
    const parent = path.join(work, 'bytes');
    mkdirSync(parent);
    // The name with the byte 0xff, and the one Node decodes it to.
    const raw = Buffer.concat([Buffer.from(`${parent}/d`), Buffer.from([0xff])]);
    mkdirSync(raw);
    const decoy = path.join(parent, 'd\ufffd');
    mkdirSync(decoy);
    // The byte goes through argv as it is: printf makes it, as a shell user's glob would.
    const child = spawn('sh', ['-c', `exec "$0" "$1" watch --path "a=$(printf '%s/d\\377' "$2")"`, process.execPath, BIN, parent]);
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
    const probeFiles = (dir: string | Buffer) => readdirSync(dir).filter((name) => name.startsWith('.slowdisk-probe-'));
    await waitFor(() => probeFiles(raw).length === 1, 10_000, 'the probe file in the directory named with 0xff');
    await waitFor(() => / tick 30 /.test(stdout), 10_000, 'the first round');
    expect(probeFiles(decoy)).toEqual([]);
    child.kill('SIGINT');
    expect(await exit).toBe(130);
    expect(stdout).toContain(`| a ${parent}/d\\xff score `);
    expect(probeFiles(raw)).toEqual([]);
  }, 30_000);

  it('is refused in a TiKV configuration, which must be UTF-8', async () => {
    const config = path.join(work, 'not-utf8.toml');
    writeFileSync(config, Buffer.concat([Buffer.from(`[storage]\ndata-dir = "${work}/d`), Buffer.from([0xff]), Buffer.from('"\n')]));
    const result = await runCli(['check', '--tikv-config', config, '--duration', '1s', '--allow-short']);
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
    const result = await runCli(['check', '--path', `kv=${dir}`, '--duration', '1s', '--allow-short']);
    expect(result.stderr).toBe('');
    expect(result.stdout).not.toMatch(/[\u202a-\u202e]/);
    expect(result.stdout).toContain(`kv ${work}/\\u202eatad.kv score `);
  });
});
