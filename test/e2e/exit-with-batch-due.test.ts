// A process that uses the addon ends as it would without it when a batch of records falls due
// while Node is shutting down: no JavaScript can run then, and the batch is dropped rather
// than aborting the process ("terminate called after throwing an instance of 'Napi::Error'").
// Batches every millisecond and a thread ticking every millisecond make that moment likely:
// built without the fix, about one exit in three aborted.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run-cli.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-exit-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const CHILD = `
const { ProbeWorker, listenForRecords, flushRecordsEvery } = await import(process.argv[1]);
const dir = process.argv[2];
const startMs = Number(process.hrtime.bigint()) / 1e6;
let batches = 0;
listenForRecords(() => { batches += 1; });
flushRecordsEvery(startMs, 1, 0);
const worker = new ProbeWorker('exit');
worker.schedule({ startMs, intervalMs: 1, roundTicks: 4, seedBase: 1, resolveName: 'exit', dir, ioSize: 4096, direct: false, sync: 'fdatasync' });
worker.place('exit', 1);
// 30 ms, and a batch delivered (on a busy machine the first may take longer), or 10 s without one.
const begun = Date.now();
while ((batches === 0 && Date.now() - begun < 10_000) || Date.now() - begun < 30) await new Promise((resolve) => setTimeout(resolve, 1));
await worker.stop();
process.stdout.write(String(batches));
`;

const EXITS = 100;

describe('the addon at process exit', () => {
  it(`lets ${EXITS} processes end cleanly with batches falling due every millisecond, and leaves no probe file`, async () => {
    const failed: string[] = [];
    for (let i = 0; i < EXITS; i++) {
      const dir = mkdtempSync(path.join(work, 'dir-'));
      const exit = await runCommand([process.execPath, '--input-type=module', '-e', CHILD, path.join(root, 'dist/native/addon.js'), dir]);
      if (exit.code !== 0 || exit.stderr !== '' || !(Number(exit.stdout) > 0)) failed.push(`code ${String(exit.code)} signal ${String(exit.signal)}: ${exit.stderr.trim()}`);
      expect(readdirSync(dir)).toEqual([]);
    }
    expect(failed).toEqual([]);
  });
});
