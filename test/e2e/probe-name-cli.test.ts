// What someone who can write to a probed directory can do to slowdisk: plant things at the
// live probe file's name. Real plants, the built CLI, on this machine's own filesystem. (The
// directory swapped for a symlink, whose clean-up needs root, is in test/e2e/probe-identity.)
import { createHash } from 'node:crypto';
import { existsSync, linkSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { plantAtProbeName } from '../helpers/probe-file-fakes.js';
import { jsonLines, probeFiles, startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-probe-name-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const digest = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');
const lines = (cli: RunningCli) => jsonLines(cli.stdout());
const events = (cli: RunningCli, kind: string) => lines(cli).filter((line) => line.type === 'event' && line.event === kind);
const diskLines = (cli: RunningCli) => lines(cli).filter((line) => line.type === 'disk');
function plantWhole(at: string, content: Buffer): void {
  const aside = path.join(work, `aside-${path.basename(path.dirname(at))}`);
  writeFileSync(aside, content, { flag: 'wx' });
  renameSync(aside, at);
}

describe.concurrent('something planted at the live probe file name', () => {
  const mine = path.join(work, 'mine');
  writeFileSync(mine, 'a file of the user\n'.repeat(1000));
  it.each([
    ['a symbolic link', (at: string) => symlinkSync(mine, at), /a symbolic link to .*\/mine; left untouched/],
    ['a hard link', (at: string) => linkSync(mine, at), /a hard link \(2 links\) to a regular file of 19000 bytes/],
    // Written aside and renamed in whole: written in place, the prober may find it still empty.
    ['a regular file', (at: string) => plantWhole(at, Buffer.alloc(266240, 7)), /a regular file of 266240 bytes/],
  ])('%s: an event says what was found, the probe moves to a fresh name, no failure is charged, the plant is untouched', async (_kind, plant, found) => {
    const dir = mkdtempSync(path.join(work, 'plant-'));
    const before = digest(mine);
    const cli = startCli(['watch', '--json', '--raft', dir]);
    await waitFor(() => diskLines(cli).length > 0, 10_000, 'the first round');
    const { name: planted } = await plantAtProbeName(dir, plant);
    await waitFor(() => events(cli, 'name-taken').length > 0, 5000, 'the name-taken event');
    // A round closed entirely after the plant.
    const roundsBefore = diskLines(cli).length;
    await waitFor(() => diskLines(cli).length >= roundsBefore + 2, 10_000, 'two more rounds');
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143);

    const [event] = events(cli, 'name-taken');
    expect(event).toMatchObject({ disk: 'raft', path: path.join(dir, planted), error: { code: 'ENAMETAKEN', syscall: 'open' } });
    expect((event!.error as { message: string }).message).toMatch(found);
    expect(events(cli, 'down')).toEqual([]);
    const last = diskLines(cli).at(-1)!;
    expect(last).toMatchObject({ disk: 'raft', state: 'up', errors: 0 });
    // No inspection failed, at any round. (Not the score: on a loaded machine the move to a
    // fresh name, a new file made within the tick, may come back late, and a late inspection
    // is charged as a timeout like any other, which a failure would be too.)
    expect(diskLines(cli).every((line) => line.errors === 0 && line.state !== 'down')).toBe(true);
    // Only the plant is left, as it was.
    expect(probeFiles(dir)).toEqual([planted]);
    expect(existsSync(mine)).toBe(true);
    expect(digest(mine)).toBe(before);
    if (_kind === 'a regular file') expect(readFileSync(path.join(dir, planted)).every((byte) => byte === 7)).toBe(true);
  });
});

describe('a probed path that leads through a symlink', () => {
  it('a path that leads through a symlink at start shows where it leads', async () => {
    const real = mkdtempSync(path.join(work, 'real-'));
    const link = path.join(work, 'link');
    symlinkSync(real, link);
    const cli = startCli(['watch', '--json', '--raft', link]);
    await waitFor(() => diskLines(cli).length > 0, 10_000, 'the first round');
    expect(probeFiles(real)).toHaveLength(1);
    cli.child.kill('SIGTERM');
    await cli.done;
    expect(diskLines(cli)[0]).toMatchObject({ path: link, resolved_path: real, state: 'up' });
    expect(probeFiles(real)).toEqual([]);
  });
});
