// A trace recorded by watch on a real, really throttled disk replays to the timeline the
// live run printed.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop', 'blkio']);

/** tick -> "store score | each disk's score and statistical state", from watch's round lines or replay's timeline. */
function timeline(output: string): Map<number, string> {
  const rounds = new Map<number, string>();
  for (const line of output.split('\n')) {
    const round = / tick (\d+) store \d+ \(([\d.]+)\) \| (.*)$/.exec(line);
    if (!round) continue;
    const disks = round[3].split(' | ').map((chunk) => {
      const [name, scoreOrDir, , scoreAfterLabel] = chunk.split(' ');
      const score = /^[\d.]+$/.test(scoreOrDir) ? scoreOrDir : scoreAfterLabel;
      return `${name}=${score} ${/ stat (\S+)/.exec(chunk)?.[1]}`;
    });
    rounds.set(Number(round[1]), `${round[2]} | ${disks.join(' ')}`);
  }
  return rounds;
}

describe.skipIf(gate.skip)('watch --record, then replay', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-record-'));
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  });

  it('replays to the same score timeline as the live run', async () => {
    const disk = await makeTestDisk();
    const trace = path.join(work, 'live.jsonl');
    // A short min TTR so that the recovery is part of the timeline too.
    const cli = startCli(['watch', '--raft', disk.dir, '--record', trace, '--min-ttr', '6s', '--keep-going']);
    await waitFor(() => / tick 60 /.test(cli.stdout()), 15_000, 'two healthy rounds');
    await disk.throttle({ writeIops: 4 });
    await waitFor(() => /raft \S+ score (?:[4-9]\d*|\d{2,})\.\d\d/.test(cli.stdout()), 30_000, 'the score to rise past 4');
    await disk.unthrottle();
    await waitFor(() => {
      const rounds = [...timeline(cli.stdout()).values()];
      return rounds.length > 12 && rounds.at(-1)!.startsWith('1.00');
    }, 60_000, 'the score to fall back to 1');
    cli.child.kill('SIGINT');
    const live = await cli.done;
    expect(live.code).toBe(130);

    const replay = await runCli(['replay', trace]);
    expect(replay.stderr).toBe('');
    const liveRounds = timeline(live.stdout);
    const replayed = timeline(replay.stdout);
    expect(liveRounds.size).toBeGreaterThan(12);
    for (const [tick, rounds] of liveRounds) expect(`${tick}: ${replayed.get(tick)}`).toBe(`${tick}: ${rounds}`);
    // Both saw the disk slow and come back: the scores really moved, up to 4 at least and down to 1.
    const storeScores = [...liveRounds.values()].map((round) => Number(round.split(' ')[0]));
    expect(Math.max(...storeScores)).toBeGreaterThanOrEqual(4);
    expect(storeScores.at(-1)).toBe(1);
  });
});
