// A disk that slows down or hangs while watch runs, and recovers: the score follows
// TiKV's rules on the way up and on the way back, and the other disks are not held up.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { makeFaultDisk, startWatch, stopWatch } from '../helpers/fault-cycle.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { removeAllTestDisks } from '../helpers/test-disk.js';
import type { RoundLine, WatchLines } from '../helpers/watch-lines.js';

// Rounds of 10 ticks of 100 ms, a third of TiKV's, and a time to recover of two of them: the
// score's rules are TiKV's in rounds of any length (test/unit/replay.test.ts holds them to
// TiKV's own 3 s), and a disk climbs to 100 and back in 10 s instead of 30.
const ROUND_MS = 1000;
const MIN_TTR_MS = 2000;
// --hang-after is cut to match, so that the frozen disk is named hung within 4 rounds.
const ROUNDS = ['--round-ticks', String(ROUND_MS / 100), '--min-ttr', `${MIN_TTR_MS / 1000}s`, '--hang-after', '2s'];
/** Room for a busy machine in a wait for what comes within a round or two. */
const SHOWS_WITHIN_MS = 10_000;

const scoreOf = (round: RoundLine, disk: string) => round.disks.get(disk)?.score;
/** How many round lines watch printed after line `from`, up to line `to` and with it. */
const roundsBetween = (watch: WatchLines, from: number, to: number) => watch.rounds(from + 1).filter(({ index }) => index <= to).length;
const stateOf = (round: RoundLine, disk: string) => round.disks.get(disk)?.state ?? '';

/** A clean round takes 100 points per min TTR off the score, never going below 1. */
function afterCleanRound(score: number): number {
  const fall = (100 * ROUND_MS) / MIN_TTR_MS;
  return fall > score - 1 ? 1 : score - fall;
}

const gate = requireRootFacilities(['root', 'loop', 'blkio', 'fsfreeze']);

describe.skipIf(gate.skip)('a slow or hung disk under watch, and its recovery', () => {
  afterEach(removeAllTestDisks);
  afterAll(removeAllTestDisks);

  it('throttled: the score doubles every round up to 100; unthrottled, it falls back to 1 at 100 points per min TTR', async () => {
    const disk = await makeFaultDisk();
    const watch = startWatch(['--kv', disk.dir, ...ROUNDS]);
    // A fresh disk's first writes may cost a short round a doubling: from a round at 1 on.
    const healthy = await watch.nextRound((round) => stateOf(round, 'kv').startsWith('up ') && scoreOf(round, 'kv') === 1, SHOWS_WITHIN_MS, 0, 'kv up at 1');

    await disk.throttle({ writeIops: 2 });
    const top = await watch.nextRound((round) => scoreOf(round, 'kv') === 100, 10 * ROUND_MS + SHOWS_WITHIN_MS, healthy.index, 'kv at 100');
    const rising = watch
      .rounds(healthy.index + 1)
      .filter(({ index }) => index <= top.index)
      .map(({ round }) => scoreOf(round, 'kv')!)
      .filter((score) => score > 1);
    // Every tick of a round under the throttle times out: the ratio is above the threshold
    // and the score doubles. The first raised round may have begun before the throttle.
    expect(rising.length).toBeGreaterThanOrEqual(2);
    rising.slice(1).forEach((score, i) => expect(score).toBe(Math.min(100, 2 * rising[i]!)));

    await disk.unthrottle();
    const unthrottledAt = performance.now();
    const fromUnthrottle = watch.lines.length;
    const floor = await watch.nextRound((round) => scoreOf(round, 'kv') === 1, MIN_TTR_MS + SHOWS_WITHIN_MS, fromUnthrottle, 'kv back at 1');
    const falling = watch
      .rounds(fromUnthrottle)
      .filter(({ index }) => index <= floor.index)
      .map(({ round }) => scoreOf(round, 'kv')!);
    // The round the throttle was lifted in may still double (100 stays 100); each round
    // after it is clean.
    const clean = falling.slice(falling.lastIndexOf(100));
    clean.slice(1).forEach((score, i) => expect(score).toBe(afterCleanRound(clean[i]!)));
    const secondsToFloor = (floor.atMs - unthrottledAt) / 1000;
    console.log(`slow: score 1 ${secondsToFloor.toFixed(1)} s after unthrottle (min TTR ${MIN_TTR_MS / 1000} s, round ${ROUND_MS / 1000} s), scores ${[...rising, ...falling].join(' ')}`);
    // 100 points take MIN_TTR of clean rounds, after the round under way when the throttle
    // was lifted and, at worst, one more that an inspection still late at its start charges.
    expect(secondsToFloor).toBeGreaterThan((MIN_TTR_MS - ROUND_MS) / 1000);
    expect(secondsToFloor).toBeLessThan((MIN_TTR_MS + 3 * ROUND_MS) / 1000);
    expect(stateOf(floor.round, 'kv')).toMatch(/^up write [\d.]+ms sync [\d.]+ms read [\d.]+ms stat (?:warming up|\S+)(?: (?:predict|warn) (?:[\d.]+|warming up))? on \S+$/);
    await stopWatch(watch, [disk.dir]);
  });

  it('frozen mid-run: its ticks time out while the other disk keeps score 1; after the thaw it is inspected again and recovers', async () => {
    const healthy = await makeFaultDisk();
    const frozen = await makeFaultDisk();
    const watch = startWatch(['--raft', healthy.dir, '--kv', frozen.dir, ...ROUNDS]);
    const bothUp = await watch.nextRound(
      (round) => ['raft', 'kv'].every((disk) => stateOf(round, disk).startsWith('up ') && scoreOf(round, disk) === 1),
      SHOWS_WITHIN_MS,
      0,
      'both up at 1',
    );

    await frozen.hang();
    const hung = await watch.nextRound(
      // Past --hang-after (2 s) by the round that brings the score to 4.
      (round) => stateOf(round, 'kv').startsWith('hung: ') && scoreOf(round, 'kv')! >= 4,
      4 * ROUND_MS + SHOWS_WITHIN_MS,
      bothUp.index,
      'kv hung, score 4',
    );
    // Counted in round lines, which a busy machine does not stretch.
    expect(roundsBetween(watch, bothUp.index, hung.index)).toBeLessThanOrEqual(4);
    for (const { round } of watch.rounds(bothUp.index + 1).filter(({ index }) => index <= hung.index)) {
      expect(scoreOf(round, 'raft')).toBe(1);
      expect(stateOf(round, 'raft')).toMatch(/^up write /);
    }

    await frozen.thaw();
    const thawedAt = performance.now();
    const fromThaw = watch.lines.length;
    // All phases in milliseconds: a new inspection, not the one that sat out the freeze.
    const inspectedAgain = await watch.nextRound((round) => /^up write [\d.]+ms sync [\d.]+ms read [\d.]+ms stat (?:warming up|\S+)(?: (?:predict|warn) (?:[\d.]+|warming up))? on \S+$/.test(stateOf(round, 'kv')), 2 * ROUND_MS + SHOWS_WITHIN_MS, fromThaw, 'kv inspected again');
    const recovered = await watch.nextRound((round) => scoreOf(round, 'kv') === 1, MIN_TTR_MS + 3 * ROUND_MS + SHOWS_WITHIN_MS, fromThaw, 'kv back at 1');
    expect(roundsBetween(watch, fromThaw - 1, inspectedAgain.index)).toBeLessThanOrEqual(2);
    expect(roundsBetween(watch, fromThaw - 1, recovered.index)).toBeLessThanOrEqual(MIN_TTR_MS / ROUND_MS + 3);
    console.log(
      `hang: kv inspected again in the round line ${((inspectedAgain.atMs - thawedAt) / 1000).toFixed(1)} s after the thaw, score 1 after ${((recovered.atMs - thawedAt) / 1000).toFixed(1)} s`,
    );
    expect(watch.lines.filter((line) => line.text.startsWith('event: kv is down'))).toEqual([]);
    await stopWatch(watch, [healthy.dir, frozen.dir]);
  });
});
