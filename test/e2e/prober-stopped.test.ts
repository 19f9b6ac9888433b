// A prober that stops answering (here SIGSTOP: stuck, as far as the CLI can tell) must not hide
// a disk: its batches overdue, the CLI charges the ticks it expected on its own clock, and the
// disk's inspection in flight makes it hung from --hang-after. Once the prober goes on, its
// late records come in, and the disk is back.
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { childPids, isAlive, jsonLines, probeFiles, startCli, waitFor } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join('/var/tmp', 'slowdisk-prober-stopped-'));
const stopped = new Set<number>();

afterEach(() => {
  for (const pid of stopped) if (isAlive(pid)) process.kill(pid, 'SIGCONT');
  stopped.clear();
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const events = (stdout: string, kind: string) => jsonLines(stdout).filter((line) => line['type'] === 'event' && line['event'] === kind);

describe('a prober stopped mid-run', () => {
  it('makes the disk hung within --hang-after and the overdue batch, and back once it goes on', async () => {
    const dir = mkdtempSync(path.join(work, 'raft-'));
    const cli = startCli(['watch', '--json', '--keep-going', '--hang-after', '1s', '--path', `raft=${dir}`]);
    try {
      await waitFor(() => jsonLines(cli.stdout()).some((line) => line['type'] === 'store'), 10_000, 'a first round');
      const prober = childPids(cli.child.pid!)[0]!;
      process.kill(prober, 'SIGSTOP');
      stopped.add(prober);
      const stoppedAt = performance.now();
      // --hang-after, the batch it would have sent within a second, half a second's grace, and a loaded machine's slack.
      await waitFor(() => events(cli.stdout(), 'hung').length > 0, 1000 + 1000 + 500 + 2000, 'the disk told hung');
      expect(performance.now() - stoppedAt).toBeGreaterThanOrEqual(1000);
      expect(events(cli.stdout(), 'hung')[0]).toMatchObject({ disk: 'raft' });
      const hungLines = () => jsonLines(cli.stdout()).filter((line) => line['type'] === 'disk' && line['state'] === 'hung');
      await waitFor(() => hungLines().length > 0, 4000, 'a round showing the disk hung');
      process.kill(prober, 'SIGCONT');
      stopped.delete(prober);
      await waitFor(() => events(cli.stdout(), 'back').length > 0, 3000, 'the disk back');
      const lines = jsonLines(cli.stdout());
      const back = lines.findIndex((line) => line['type'] === 'event' && line['event'] === 'back');
      await waitFor(() => jsonLines(cli.stdout()).slice(back).some((line) => line['type'] === 'disk' && line['state'] === 'up'), 5000, 'a round showing the disk up');
    } finally {
      cli.child.kill('SIGTERM');
    }
    const result = await cli.done;
    expect(result.code).toBe(143);
    expect(probeFiles(dir)).toEqual([]);
  });
});
