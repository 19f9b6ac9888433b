// How long `slowdisk replay` takes over a day of 100 ms ticks, the built bin timed as a user
// would time it: a budget on the machine's clock, so not a unit test.
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonLines, runCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-replay-speed-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('slowdisk replay', () => {
  it('replays a day of 100 ms ticks on two disks in seconds', async () => {
    const file = path.join(work, 'day.jsonl');
    const ticks = 864_000;
    const out = createWriteStream(file);
    let chunk = `${JSON.stringify({ slowdisk_trace: 1, interval_ms: 100, disks: ['raft', 'kv'] })}\n`;
    for (let tick = 1; tick <= ticks; tick += 1) {
      chunk += `{"tick":${tick},"disk":"raft","ms":${0.5 + (tick % 7) / 10}}\n{"tick":${tick},"disk":"kv","ms":${tick % 9000 < 300 ? 150 : 2.25}}\n`;
      if (chunk.length > 1 << 20) {
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
        chunk = '';
      }
    }
    await new Promise<void>((resolve) => out.end(chunk, () => resolve()));
    const result = await runCli(['replay', file, '--json']);
    rmSync(file);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    expect(jsonLines(result.stdout).filter((line) => 'store_score' in line)).toHaveLength(ticks / 30);
    console.log(`replay: ${ticks} ticks x 2 disks in ${(result.elapsedMs / 1000).toFixed(2)} s: ${Math.round(ticks / (result.elapsedMs / 1000))} ticks/s`);
    expect(result.elapsedMs).toBeLessThan(30_000);
  });
});
