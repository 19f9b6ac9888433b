// test/vectors/ticks.json: the tick and round arithmetic both languages implement, as
// [argument, result] pairs, read by the TS test and the native one alike.
import { readFileSync } from 'node:fs';

export interface TickVectors {
  startMs: number;
  intervalMs: number;
  roundTicks: number;
  flushPeriodMs: number;
  flushSlackMs: number;
  deadlineMs: [tick: number, ms: number][];
  firstTickAfter: [ms: number, tick: number][];
  opensRound: [tick: number, opens: boolean][];
  roundTickFrom: [tick: number, tick: number][];
  nextFlushMs: [ms: number, ms: number][];
}

export const TICK_VECTORS = (JSON.parse(readFileSync(new URL('../vectors/ticks.json', import.meta.url), 'utf8')) as { schedules: TickVectors[] }).schedules;
