// How long `check` probes before it gives its verdict.
import { DAY_MS } from '../common/durations.js';
import type { DurationSpec } from '../common/param-spec.js';

/** check --duration. */
export const CHECK_DURATION_SPEC: DurationSpec<'durationMs'> = Object.freeze({
  key: 'durationMs',
  flag: '--duration <duration>',
  kind: 'duration',
  default: 30_000,
  range: { minMs: 1, maxMs: 7 * DAY_MS },
  meaning: 'how long to probe; exits early at the eviction threshold',
  group: 'run',
});
