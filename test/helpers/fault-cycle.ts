// One fault under a running `watch`, as an operator lives it: the disk is up, the fault
// hits, the disk shows as down with the errno name and its score climbs, the fault is
// lifted, and the disk is back. Times what the operator waits for.
import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'vitest';
import { probeFiles, startCli, type CliOptions } from './run-cli.js';
import { makeTestDisk, type TestDisk, type TestDiskOptions } from './test-disk.js';
import { WatchLines } from './watch-lines.js';

export interface Fault {
  inject(): Promise<unknown>;
  lift(): Promise<unknown>;
  /** Checks made once the disk is shown as down, before the fault is lifted. */
  whileDown?(): unknown;
}

export interface FaultCycle {
  /** From the call to inject(), in which the fault takes effect somewhere, to the down event. */
  downAfterMs: number;
  /** From the call to lift() to the back event. */
  backAfterLiftStartMs: number;
  /** From lift()'s return, when the fault is surely lifted, to the back event; below 0 if it came sooner. */
  backAfterLiftedMs: number;
}

// A round is 3 s at the defaults: enough for any fault to show, with room for a busy machine.
const SHOWS_WITHIN_MS = 10_000;

/**
 * A test disk with its backing file in memory: the I/O of the faults (filling 64 MiB, the
 * journal's flushes) never reaches the machine's own disk, whose latency other suites time.
 */
export function makeFaultDisk(opts: Omit<TestDiskOptions, 'backingTmpfs'> = {}): Promise<TestDisk> {
  return makeTestDisk({ ...opts, backingTmpfs: true });
}

/** Starts `watch --keep-going` off a TTY, so it prints one line per round and per event. */
export function startWatch(args: string[], options: CliOptions = {}): WatchLines {
  return new WatchLines(startCli(['watch', '--keep-going', ...args], options));
}

/** Stops watch with SIGTERM, as a service manager would: it exits 143, its probe files gone. */
export async function stopWatch(watch: WatchLines, dirs: string[]): Promise<void> {
  watch.cli.child.kill('SIGTERM');
  const result = await watch.cli.done;
  expect(result.stderr).toBe('');
  expect(result.code).toBe(143);
  for (const dir of dirs) expect(probeFiles(dir)).toEqual([]);
}

/**
 * Once `disk` is up, injects the fault and expects it shown as down: an event line whose
 * message matches `shown` (which should name the errno), then a round line with the disk
 * still listed, down with that message, its score raised by the failed inspections. Then
 * lifts the fault and waits for the back event and a round line with the disk up.
 */
export async function cycleFault(watch: WatchLines, disk: string, fault: Fault, shown: RegExp): Promise<FaultCycle> {
  const up = await watch.nextRound((round) => round.disks.get(disk)?.state.startsWith('up ') === true, SHOWS_WITHIN_MS, 0, `${disk} up`);
  // A second into the round: the round's fresh-block write (right after the round line) is
  // done by then, so a fault that only new blocks meet does not catch it half-way.
  await sleep(Math.max(0, up.atMs + 1000 - performance.now()));

  const beforeFault = watch.lines.length;
  const injectedAt = performance.now();
  await fault.inject();
  const down = await watch.next(new RegExp(`^event: ${disk} is down: .*${shown.source}`), SHOWS_WITHIN_MS, beforeFault);
  const { round } = await watch.nextRound((r) => r.disks.get(disk)?.state.startsWith('down ') === true, SHOWS_WITHIN_MS, down.index, `${disk} down`);
  const downInRound = round.disks.get(disk)!;
  expect(downInRound.state).toMatch(shown);
  // Failed inspections count as timeouts.
  expect(downInRound.score).toBeGreaterThan(1);
  await fault.whileDown?.();

  const beforeLift = watch.lines.length;
  const liftStartedAt = performance.now();
  await fault.lift();
  const liftedAt = performance.now();
  const back = await watch.next(new RegExp(`^event: ${disk} is back$`), SHOWS_WITHIN_MS, beforeLift);
  await watch.nextRound((r) => r.disks.get(disk)?.state.startsWith('up ') === true, SHOWS_WITHIN_MS, back.index, `${disk} up again`);
  return { downAfterMs: down.atMs - injectedAt, backAfterLiftStartMs: back.atMs - liftStartedAt, backAfterLiftedMs: back.atMs - liftedAt };
}
