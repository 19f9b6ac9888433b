// The schedule the prober's threads and the CLI both follow: which ticks are due by a
// reading of the clock, and when the batches of records come.
import { describe, expect, it } from 'vitest';
import { TickSchedule } from '../../src/ticks/tick-schedule.js';

describe('TickSchedule', () => {
  it('a tick is due at its deadline, not a hair before', () => {
    const schedule = new TickSchedule(1_000_000.25, 100, 10);
    expect(schedule.dueBy(1_000_000.25)).toBe(0);
    expect(schedule.dueBy(1_000_100.24)).toBe(0);
    expect(schedule.dueBy(1_000_100.25)).toBe(1);
    expect(schedule.dueBy(1_003_050)).toBe(30);
  });

  it('stays on whole ticks after a long run (a week at 1 ms), with a start no integer', () => {
    const schedule = new TickSchedule(7.3e9 + 0.1, 1, 10);
    const week = 7 * 24 * 3600 * 1000;
    expect(schedule.dueBy(schedule.deadlineMs(week))).toBe(week);
    expect(schedule.dueBy(schedule.deadlineMs(week) - 1e-3)).toBe(week - 1);
  });

  it('batches come just after each round closes, at most a second apart', () => {
    const everySecond = new TickSchedule(0, 100, 10);
    expect(everySecond.flushPeriodMs).toBe(1000);
    expect(everySecond.nextFlushMs(0)).toBe(1000 + everySecond.flushSlackMs);
    expect(everySecond.nextFlushMs(1000 + everySecond.flushSlackMs)).toBe(2000 + everySecond.flushSlackMs);
    // A 10 s round (1 s ticks): a batch a second, the tenth at the round's close.
    const slow = new TickSchedule(0, 1000, 10);
    expect(slow.flushPeriodMs).toBe(1000);
    // A 3 s round of 300 ms ticks: three batches a round.
    const odd = new TickSchedule(0, 300, 10);
    expect(odd.flushPeriodMs).toBe(1000);
    expect(3 * odd.flushPeriodMs).toBe(odd.intervalMs * odd.roundTicks);
    // Short rounds: one batch each.
    expect(new TickSchedule(0, 10, 10).flushPeriodMs).toBe(100);
  });
});
