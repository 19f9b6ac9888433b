// A check recorded on a real loop disk with non-default verdict parameters replays to the
// live run's states with no flag at all: the trace's header carries every one of them.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { runCli, startCli, waitFor, type CliResult } from '../helpers/run-cli.js';
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

// Every verdict parameter away from its default (the rounds too, below).
const FLAGS = [
  ['--stat-window', '2000'],
  ['--stat-refresh', '1s'],
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

  /** check --json --record on a fresh loop disk, its writes throttled to `writeIops` from round `slowFrom` on; the live run and the trace. */
  async function recordCheck(name: string, flags: string[], slowFrom: number): Promise<{ live: CliResult; trace: string; header: Line }> {
    const disk = await makeTestDisk();
    const trace = path.join(work, `${name}.jsonl`);
    const cli = startCli(['check', '--json', '--record', trace, '--raft', disk.dir, ...flags]);
    try {
      const round = new RegExp(`"type":"store","time":"[^"]*","tick":${slowFrom},`);
      await waitFor(() => round.test(cli.stdout()), 60_000, `round ${slowFrom}`);
      // Every inspection is then a timeout.
      await disk.throttle({ writeIops: 4 });
    } finally {
      await cli.done.finally(() => disk.unthrottle());
    }
    const live = await cli.done;
    expect(live.stderr).toBe('');
    return { live, trace, header: JSON.parse(readFileSync(trace, 'utf8').split('\n')[0]) as Line };
  }

  /** Replay without a flag and with the recorded ones given again: the same bytes; and each round's states are the live run's. */
  async function expectLiveStates(live: CliResult, trace: string, flags: string[]): Promise<{ liveStates: Map<string, Line>; replayed: string }> {
    const recorded = await runCli(['replay', trace, '--json']);
    expect(recorded.stderr).toBe('');
    const given = await runCli(['replay', trace, '--json', ...flags]);
    expect(given.stderr).toBe('');
    expect(given.stdout).toBe(recorded.stdout);
    expect(given.code).toBe(recorded.code);
    const liveStates = states(jsonLines(live.stdout));
    const replayed = states(jsonLines(recorded.stdout));
    for (const [round, state] of liveStates) expect({ round, state: replayed.get(round) }).toEqual({ round, state });
    expect(recorded.code).toBe(live.code);
    return { liveStates, replayed: recorded.stdout };
  }

  // One run serves both tests. Judged once its baseline holds 30 s (and has been refreshed,
  // every second here), slowed after that (at tick 320, a round's end). In 2 s rounds the score takes 14 s to reach the eviction
  // threshold: the detector, with these flags, confirms the disk first, and the run ends there.
  const flags = [...FLAGS, '--round-ticks', '20'];
  let slowed: { live: CliResult; trace: string; header: Line };
  beforeAll(async () => {
    slowed = await recordCheck('slowed', [...flags, '--duration', '60s'], 320);
  });

  it('the header records every verdict parameter; the score replays as it went live', async () => {
    const { live, trace, header } = slowed;
    expect(header).toMatchObject({
      round_ticks: 20,
      stat_window: 2000,
      stat_refresh_ms: 1000,
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
    const { liveStates, replayed } = await expectLiveStates(live, trace, flags);
    // The throttle really moved the score: the comparison is not of flat lines.
    const scores = [...liveStates.values()].filter((line) => 'store_score' in line).map((line) => line.store_score as number);
    expect(scores.length).toBeGreaterThanOrEqual(5);
    expect(Math.max(...scores)).toBeGreaterThanOrEqual(4);

    // With a flag back at its default, replay says what it overrode, and the states differ.
    const defaults = await runCli(['replay', trace, '--json', '--round-ticks', '30']);
    expect(defaults.stderr).toBe("slowdisk: replay: --round-ticks 30 overrides the trace's 20\n");
    expect(defaults.stdout).not.toBe(replayed);
  });

  it("the statistical detector's recorded flags confirm the slow disk in replay as live, CRITICAL by the recorded --critical-on", async () => {
    const { live, trace } = slowed;
    expect(live.code).toBe(2);
    const { liveStates } = await expectLiveStates(live, trace, flags);
    const statistical = [...liveStates.values()].filter((line) => line.disk === 'raft').map((line) => line.statistical);
    expect(statistical).toContain('suspect');
    expect(statistical.at(-1)).toBe('confirmed');
    // With the defaults' detector (3 MADs, suspect after 10 s, observed 60 s) and --critical-on evict, not confirmed yet.
    const defaults = await runCli(['replay', trace, '--stat-threshold', '3', '--stat-suspect-after', '10s', '--stat-observe', '1m', '--critical-on', 'evict']);
    expect(defaults.code).toBeLessThan(2);
    expect(defaults.stderr.trimEnd().split('\n')).toEqual([
      "slowdisk: replay: --stat-threshold 3 overrides the trace's 1.5",
      "slowdisk: replay: --stat-suspect-after 10s overrides the trace's 2s",
      "slowdisk: replay: --stat-observe 1m overrides the trace's 3s",
      "slowdisk: replay: --critical-on evict overrides the trace's any",
    ]);
  });
});
