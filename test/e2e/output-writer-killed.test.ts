// watch with the drives alone has no prober: an output writer of its own writes the textfile
// and the drive history. Killed outright (an OOM kill, a stray kill -9), it is replaced at
// once, as a prober is, and a line says so and what was lost: the outputs go on being written.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeHistory, STATE_FILE } from '../../src/drives/state-file.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { childPids, isAlive, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks, type TestDisk } from '../helpers/test-disk.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-writer-killed-'));

describe.skipIf(requireRootFacilities(['root', 'loop']).skip)('the output writer of a drives-only run, killed with SIGKILL', () => {
  const disks: TestDisk[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 4; i += 1) disks.push(await makeTestDisk());
  }, 120_000);
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  }, 120_000);

  it('is replaced, says so, and the textfile and the history are still written', async () => {
    const stateDir = path.join(work, 'state');
    const textfileDir = path.join(work, 'textfile');
    const textfile = path.join(textfileDir, 'slowdisk-drives.prom');
    mkdirSync(textfileDir);
    const names = disks.map((disk) => path.basename(disk.device));
    const cli = startCli(['watch', '--devices', names.join(','), '--state-dir', stateDir, '--textfile', textfileDir]);
    await waitFor(() => statSync(textfile, { throwIfNoEntry: false }) !== undefined, 30_000, 'the first textfile');
    expect(childPids(cli.child.pid!)).toHaveLength(1);
    const [writer] = childPids(cli.child.pid!);
    process.kill(writer!, 'SIGKILL');
    await waitFor(() => !isAlive(writer!), 5000, 'the writer to die');
    await waitFor(() => childPids(cli.child.pid!).some((pid) => pid !== writer), 5000, 'a new output writer');
    const [replacement] = childPids(cli.child.pid!);
    await waitFor(() => cli.stderr().includes('\n'), 5000, 'the line saying so');
    expect(cli.stderr()).toMatch(new RegExp(`^slowdisk: the output writer \\(pid ${writer}\\) was killed by SIGKILL; started a new one \\(pid ${replacement}\\); (no write was under way|lost: \\d+ writes? under way)\\n`));

    const killedAtMs = Date.now();
    cli.child.kill('SIGINT');
    const result = await cli.done;
    // The final save and textfile went through the new writer.
    expect(result.code).toBe(130);
    expect(result.stderr).not.toMatch(/not (saved|written)/);
    expect(statSync(textfile).mtimeMs).toBeGreaterThanOrEqual(killedAtMs - 1000);
    expect(readFileSync(textfile, 'utf8')).toContain('slowdisk_drive');
    const history = decodeHistory(readFileSync(path.join(stateDir, STATE_FILE), 'utf8'));
    expect(history.last!.timeMs).toBeGreaterThanOrEqual(killedAtMs - 1000);
    // The lock went with the run, through the new writer too.
    expect(statSync(path.join(stateDir, 'drives.lock'), { throwIfNoEntry: false })).toBeUndefined();
    await waitFor(() => !isAlive(replacement!), 5000, 'the new writer to exit with the run');
  }, 60_000);
});
