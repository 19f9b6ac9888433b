// The resolution of recorded timings: a trace keeps durations to the microsecond, and the
// predictor is fed them so, live as in a replay of the trace.

/** A duration in ms, to the microsecond. */
export function microseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
