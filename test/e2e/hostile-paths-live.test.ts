// A byte that is not UTF-8 in a path, through argv as a shell user's glob gives it, reaching
// the real prober: it probes that very directory.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, waitFor } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-hostile-paths-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('a byte that is not UTF-8 in a path', () => {
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
});
