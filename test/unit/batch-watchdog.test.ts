// The CLI's watchdog over the prober's batches: an overdue batch is asked for, and its ticks
// charged on the CLI's clock only once the CLI ran on time without an answer; a CLI held up is
// told, and charges nothing; and a hang is asked about at the first tick by which it would be one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchWatchdog } from '../../src/live/batch-watchdog.js';
import { MONOTONIC_CLOCK, type Clock } from '../../src/common/monotonic-clock.js';
import { TickSchedule } from '../../src/ticks/tick-schedule.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'hrtime'] });
});
afterEach(() => vi.useRealTimers());

describe('BatchWatchdog', () => {
  const actions = () => ({ charge: vi.fn(), ask: vi.fn(), heldUp: vi.fn() });
  /** A watchdog expecting its first batch, on a clock that `hold` moves on while the timers wait (a stopped process's fire late). */
  const watching = () => {
    let heldMs = 0;
    const clock: Clock = { now: () => MONOTONIC_CLOCK.now() + heldMs };
    const start = clock.now();
    const schedule = new TickSchedule(start, 100, 30);
    const act = actions();
    const watchdog = new BatchWatchdog(act, clock);
    watchdog.expect(schedule, start);
    return { clock, hold: (ms: number) => (heldMs += ms), start, schedule, act, watchdog };
  };

  it('does nothing while batches come on time; asks half a second after one is due, and charges half a second later', () => {
    const start = MONOTONIC_CLOCK.now();
    const schedule = new TickSchedule(start, 100, 30);
    const act = actions();
    const overdue = act.charge;
    const watchdog = new BatchWatchdog(act);
    watchdog.expect(schedule, start);
    // Batches at each second's close, as the prober sends them, each a little late.
    for (let second = 1; second <= 5; second += 1) {
      vi.advanceTimersByTime(schedule.nextFlushMs(MONOTONIC_CLOCK.now()) - MONOTONIC_CLOCK.now() + 30);
      watchdog.expect(schedule, MONOTONIC_CLOCK.now() - 30);
    }
    expect(overdue).not.toHaveBeenCalled();
    // The prober stops: the batch due a second later is overdue half a second after that.
    const covered = MONOTONIC_CLOCK.now() - 30;
    vi.advanceTimersByTime(schedule.nextFlushMs(covered) - MONOTONIC_CLOCK.now() + 499);
    expect(act.ask).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(act.ask).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(498);
    expect(overdue).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(overdue).toHaveBeenCalledTimes(1);
    // And every batch after it, while none comes: the next is due within a second.
    vi.advanceTimersByTime(2000);
    expect(overdue).toHaveBeenCalledTimes(2);
    expect(act.ask).toHaveBeenCalledTimes(2);
    watchdog.stop();
    vi.advanceTimersByTime(5000);
    expect(overdue).toHaveBeenCalledTimes(2);
    expect(act.heldUp).not.toHaveBeenCalled();
  });

  it('charges nothing when the answer was due while the CLI itself was held up: asks again, and tells the hold', () => {
    const { clock, hold, start, schedule, act, watchdog } = watching();
    // Held up 25 s before the batch was due: the overdue timer fires 25 s late, and only asks.
    hold(25_000);
    vi.advanceTimersByTime(schedule.nextFlushMs(start) - start + 500);
    expect(act.ask).toHaveBeenCalledTimes(1);
    expect(act.heldUp).toHaveBeenCalledTimes(1);
    expect(act.heldUp.mock.calls[0]![0]).toBeGreaterThanOrEqual(25_000);
    // Held up again while waiting for the answer: asked again, still nothing charged.
    hold(300);
    vi.advanceTimersByTime(500);
    expect(act.ask).toHaveBeenCalledTimes(2);
    expect(act.charge).not.toHaveBeenCalled();
    // The answer (a batch) comes: nothing is ever charged.
    watchdog.expect(schedule, clock.now());
    vi.advanceTimersByTime(900);
    expect(act.charge).not.toHaveBeenCalled();
    expect(act.heldUp).toHaveBeenCalledTimes(1);
    // A CLI running on time whose question is not answered charges.
    vi.advanceTimersByTime(1500);
    expect(act.charge).toHaveBeenCalledTimes(1);
    watchdog.stop();
  });

  it('tells a hold once when the batches waiting in the pipe are read before the late timer runs, and charges nothing', () => {
    const { clock, hold, start, schedule, act, watchdog } = watching();
    // Stopped 25 s; resumed in the middle of reading its pipe: the backlog's batches, one a second, come first.
    hold(25_000);
    for (let second = 1; second <= 25; second += 1) watchdog.expect(schedule, start + second * 1000);
    expect(act.heldUp).toHaveBeenCalledTimes(1);
    expect(act.heldUp.mock.calls[0]![0]).toBeGreaterThanOrEqual(23_000);
    // Then the batches come on time again: nothing more told, nothing charged.
    for (let second = 1; second <= 5; second += 1) {
      vi.advanceTimersByTime(1000);
      watchdog.expect(schedule, clock.now() - 30);
    }
    expect(act.heldUp).toHaveBeenCalledTimes(1);
    expect(act.charge).not.toHaveBeenCalled();
    watchdog.stop();
  });

  it('asks for a batch at the first tick by which a disk would be hung, when that comes before the next batch', () => {
    const start = MONOTONIC_CLOCK.now();
    const schedule = new TickSchedule(start, 100, 30);
    const act = actions();
    const hangDue = act.ask;
    const watchdog = new BatchWatchdog(act);
    // Covered to 1.002 s; a disk in flight since tick 7 (0.7 s) is hung at 1.2 s with --hang-after 500ms: tick 12.
    watchdog.expect(schedule, start + 1002, start + 1200);
    vi.advanceTimersByTime(1200 + schedule.flushSlackMs - 1);
    expect(hangDue).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(hangDue).toHaveBeenCalledTimes(1);
    // One hung after the next batch is due needs no asking: that batch covers it.
    watchdog.expect(schedule, start + 1002, start + 2500);
    vi.advanceTimersByTime(2000 + schedule.flushSlackMs + 499 - (MONOTONIC_CLOCK.now() - start));
    expect(hangDue).toHaveBeenCalledTimes(1);
    watchdog.stop();
  });
});
