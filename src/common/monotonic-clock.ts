// CLOCK_MONOTONIC in ms: the clock the prober's native threads keep their ticks on, which
// every process reads alike (Node's process.hrtime reads it too).

export interface Clock {
  now(): number;
}

export const MONOTONIC_CLOCK: Clock = { now: () => Number(process.hrtime.bigint()) / 1e6 };

/** The wall clock less the monotonic one, now: a reading of the monotonic clock plus this is the wall clock's then. */
export const wallOffsetMs = (): number => Date.now() - MONOTONIC_CLOCK.now();

/** The wall clock (ms since the epoch) at a reading of the monotonic clock. */
export const wallOf = (ms: number): number => ms + wallOffsetMs();
