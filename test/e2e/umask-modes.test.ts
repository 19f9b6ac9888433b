// The files slowdisk writes get the modes docs/safety.md gives whatever the umask: node_exporter,
// which runs as its own user, must be able to read a textfile written under `umask 077`.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

/** Runs the CLI from a shell that set `umask` first, as a unit file's UMask= or a login shell would. */
function runUnderUmask(umask: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn('sh', ['-c', `umask ${umask} && exec "$@"`, 'sh', process.execPath, BIN, ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

const modeOf = (file: string) => (statSync(file).mode & 0o777).toString(8);

describe.skipIf(requireRootFacilities(['root', 'loop']).skip)('file modes under a restrictive umask', () => {
  let disk: TestDisk;
  let work: string;
  beforeAll(async () => {
    disk = await makeTestDisk();
    work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-umask-'));
  }, 30_000);
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('writes the textfile, the trace and the plot 0644 under umask 077', async () => {
    const trace = path.join(work, 'run.trace');
    const result = await runUnderUmask('077', ['check', '--kv', disk.dir, '--duration', '1s', '--allow-short', '--textfile', work, '--record', trace]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(modeOf(path.join(work, 'slowdisk.prom'))).toBe('644');
    expect(modeOf(trace)).toBe('644');

    const plot = path.join(work, 'run.svg');
    const replayed = await runUnderUmask('077', ['replay', trace, '--plot', plot]);
    expect(replayed.code).toBe(0);
    expect(modeOf(plot)).toBe('644');
  }, 60_000);
});
