// The CLI's tick schedule against the table the prober's native threads are held to too
// (test/e2e/tick-vectors-native.test.ts): both keep the same deadlines and batch times.
import { describe, expect, it } from 'vitest';
import { TickSchedule } from '../../src/ticks/tick-schedule.js';
import { TICK_VECTORS } from '../helpers/tick-vectors.js';

describe('the tick schedule, as test/vectors/ticks.json has it', () => {
  for (const v of TICK_VECTORS) {
    it(`start ${v.startMs} ms, a tick every ${v.intervalMs} ms, ${v.roundTicks}-tick rounds`, () => {
      const schedule = new TickSchedule(v.startMs, v.intervalMs, v.roundTicks);
      for (const [tick, ms] of v.deadlineMs) expect(schedule.deadlineMs(tick)).toBe(ms);
      // The first tick due after `ms` is the one after the last due by it.
      for (const [ms, tick] of v.firstTickAfter) expect([ms, schedule.dueBy(ms) + 1]).toEqual([ms, tick]);
      expect(schedule.flushPeriodMs).toBe(v.flushPeriodMs);
      expect(schedule.flushSlackMs).toBe(v.flushSlackMs);
      for (const [ms, at] of v.nextFlushMs) expect([ms, schedule.nextFlushMs(ms)]).toEqual([ms, at]);
    });
  }
});
