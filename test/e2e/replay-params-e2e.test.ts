// A check recorded on a real loop disk with non-default verdict parameters replays to the
// live run's states with no flag at all: the trace's header carries every one of them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli, startCli, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop', 'blkio']);

type Line = Record<string, unknown>;

const jsonLines = (stdout: string): Line[] =>
  stdout
    .trimEnd()
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Line);

const pick = (line: Line, keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, line[key]]));

// The fields live and replayed lines both print: the states, per round.
const DISK_STATE = ['tick', 'disk', 'score', 'statistical', 'predicted_breach_probability', 'warning', 'warning_cleared'] as const;
const STORE_STATE = ['tick', 'store_score', 'reported_score', 'evict', 'severity'] as const;

/** Each round's states, keyed by "type tick disk". */
function states(lines: Line[]): Map<string, Line> {
  const rounds = new Map<string, Line>();
  for (const line of lines) {
    if (line.type === 'disk') rounds.set(`disk ${line.tick} ${line.disk}`, pick(line, DISK_STATE));
    if (line.type === 'store') rounds.set(`store ${line.tick}`, pick(line, STORE_STATE));
  }
  return rounds;
}

// Every verdict parameter away from its default.
const FLAGS = [
  ['--round-ticks', '10'],
  ['--stat-window', '50'],
  ['--stat-threshold', '1.5'],
  ['--stat-suspect-after', '2s'],
  ['--stat-observe', '3s'],
  ['--stat-confirm-share', '0.5'],
  ['--critical-on', 'any'],
  ['--sla', '50ms'],
  ['--warn-probability', '0.6'],
  ['--predictor', 'trend'],
  ['--hang-after', '3s'],
].flat();

describe.skipIf(gate.skip)('check --record with non-default parameters, then replay', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-replay-params-'));
  afterAll(async () => {
    await removeAllTestDisks();
    rmSync(work, { recursive: true, force: true });
  });

  it('replays to the live states without a flag, and to the same bytes with the flags given again', async () => {
    const disk = await makeTestDisk();
    const trace = path.join(work, 'check.jsonl');
    const cli = startCli(['check', '--json', '--record', trace, '--raft', disk.dir, '--duration', '8s', ...FLAGS]);
    try {
      // Two healthy rounds, then writes throttled: the score rises.
      await waitFor(() => /"type":"store","time":"[^"]*","tick":20,/.test(cli.stdout()), 15_000, 'two healthy rounds');
      await disk.slow({ writeIops: 4 });
    } finally {
      await cli.done.finally(() => disk.unslow());
    }
    const live = await cli.done;
    expect(live.stderr).toBe('');

    const header = JSON.parse(readFileSync(trace, 'utf8').split('\n')[0]) as Line;
    expect(header).toMatchObject({
      round_ticks: 10,
      stat_window: 50,
      stat_threshold: 1.5,
      stat_suspect_after_ms: 2000,
      stat_observe_ms: 3000,
      stat_confirm_share: 0.5,
      critical_on: 'any',
      sla_ms: 50,
      warn_probability: 0.6,
      predictor: 'trend',
      hang_after_ms: 3000,
    });

    const recorded = await runCli(['replay', trace, '--json']);
    expect(recorded.stderr).toBe('');
    const given = await runCli(['replay', trace, '--json', ...FLAGS]);
    expect(given.stderr).toBe('');
    expect(given.stdout).toBe(recorded.stdout);
    expect(given.code).toBe(recorded.code);

    const liveStates = states(jsonLines(live.stdout));
    const replayed = states(jsonLines(recorded.stdout));
    // The throttle really moved the score: the comparison is not of flat lines.
    const scores = [...liveStates.values()].filter((line) => 'store_score' in line).map((line) => line.store_score as number);
    expect(scores.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...scores)).toBeGreaterThanOrEqual(4);
    for (const [round, state] of liveStates) expect({ round, state: replayed.get(round) }).toEqual({ round, state });
    expect(recorded.code).toBe(live.code);

    // With a flag back at its default, replay says what it overrode, and the defaults' states differ.
    const defaults = await runCli(['replay', trace, '--json', '--round-ticks', '30']);
    expect(defaults.stderr).toBe("slowdisk: replay: --round-ticks 30 overrides the trace's 10\n");
    expect(defaults.stdout).not.toBe(recorded.stdout);
  });
});
