// The CLI's watchdog over the prober's batches: an overdue batch has its ticks charged on the
// CLI's clock, and a hang is asked about at the first tick by which it would be one.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BatchWatchdog } from '../../src/live/batch-watchdog.js';
import { MONOTONIC_CLOCK } from '../../src/common/monotonic-clock.js';
import { TickSchedule } from '../../src/ticks/tick-schedule.js';

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'hrtime'] });
});
afterEach(() => vi.useRealTimers());

describe('BatchWatchdog', () => {
  it('does nothing while batches come on time, and charges the ticks half a second after one is due', () => {
    const start = MONOTONIC_CLOCK.now();
    const schedule = new TickSchedule(start, 100, 30);
    const overdue = vi.fn();
    const watchdog = new BatchWatchdog(overdue, () => {});
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
    expect(overdue).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(overdue).toHaveBeenCalledTimes(1);
    // And every batch after it, while none comes.
    vi.advanceTimersByTime(1000);
    expect(overdue).toHaveBeenCalledTimes(2);
    watchdog.stop();
    vi.advanceTimersByTime(5000);
    expect(overdue).toHaveBeenCalledTimes(2);
  });

  it('asks for a batch at the first tick by which a disk would be hung, when that comes before the next batch', () => {
    const start = MONOTONIC_CLOCK.now();
    const schedule = new TickSchedule(start, 100, 30);
    const hangDue = vi.fn();
    const watchdog = new BatchWatchdog(() => {}, hangDue);
    // Covered to 1.002 s; a disk in flight since tick 7 (0.7 s) is hung at 1.2 s with --hang-after 500ms: tick 12.
    watchdog.expect(schedule, start + 1002, start + 1200);
    vi.advanceTimersByTime(1200 + schedule.flushSlackMs - 1);
    expect(hangDue).not.toHaveBeenCalled();
    vi.advanceTimersByTime(2);
    expect(hangDue).toHaveBeenCalledTimes(1);
    // One hung after the next batch is due needs no asking: that batch covers it.
    watchdog.expect(schedule, start + 1002, start + 2500);
    vi.advanceTimersByTime(3000);
    expect(hangDue).toHaveBeenCalledTimes(1);
    watchdog.stop();
  });
});
