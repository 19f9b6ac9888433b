// SIGHUP is what a run gets when the SSH session or terminal it was started from closes: it
// stops the run as SIGTERM does, with its final line, its hooks settled and its probe files
// removed, and exits 129.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { probeFiles, probeFilesLeftBy, proberOf, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-sighup-'));

describe.skipIf(requireRootFacilities(['root', 'loop']).skip)('SIGHUP', () => {
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  }, 30_000);

  it('check gives its final line, removes its probe file and exits 129', async () => {
    const disk = await makeTestDisk();
    const cli = startCli(['check', '--raft', disk.dir, '--duration', '60s']);
    await waitFor(() => probeFiles(disk.dir).length === 1, 10_000, 'the probe file');
    const prober = await proberOf(cli);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    cli.child.kill('SIGHUP');
    const result = await cli.done;
    expect(result.code).toBe(129);
    expect(result.signal).toBeNull();
    expect(result.stdout).toMatch(/^UNKNOWN: interrupted by SIGHUP after \d+\.\ds /);
    expect(result.stderr).toBe('');
    expect(await probeFilesLeftBy(prober, disk.dir)).toEqual([]);
  }, 60_000);

  it('watch waits for a running hook before it exits 129', async () => {
    const disk = await makeTestDisk();
    const started = path.join(work, 'hook-started');
    const report = path.join(work, 'report.json');
    const cli = startCli(
      [
        'watch', '--raft', disk.dir, '--keep-going', '--json',
        // Every round doubles the score: the first one (0.5 s) evicts.
        '--timeout', '0.001ms', '--round-ticks', '5', '--evict-threshold', '2', '--slow-threshold', '2',
        '--on-evict', 'touch "$STARTED"; sleep 2; cat > "$REPORT"',
      ],
      { env: { STARTED: started, REPORT: report } },
    );
    const prober = await proberOf(cli);
    await waitFor(() => existsSync(started), 10_000, 'the evict hook to start');
    cli.child.kill('SIGHUP');
    const result = await cli.done;
    expect(result.code).toBe(129);
    expect(result.stderr).toBe('');
    // The hook ran to its end: the whole report is there.
    expect(JSON.parse(readFileSync(report, 'utf8'))).toMatchObject({ event: 'evict', disks: [{ name: 'raft' }] });
    expect(await probeFilesLeftBy(prober, disk.dir)).toEqual([]);
  }, 60_000);
});
