// How a watch ends when it is not interrupted: after --duration, or at the first of the
// --until events, so that a script can start it, cause a fault, and wait for it.
import { DAY_MS } from '../common/durations.js';
import type { DurationSpec } from '../common/param-spec.js';
import type { SessionEvent } from '../live/session-events.js';
import { CROSSING_NAMES, type CrossingName } from '../verdict/threshold-crossings.js';

/** watch --duration: none by default (until interrupted). */
export const WATCH_DURATION_SPEC: DurationSpec<'watchDurationMs'> = Object.freeze({
  key: 'watchDurationMs',
  flag: '--duration <duration>',
  kind: 'duration',
  default: undefined,
  defaultText: 'until interrupted',
  range: { minMs: 1, maxMs: 7 * DAY_MS },
  meaning: 'watch: stop after this long, with the exit code of the verdict so far (with --until: 124 when none of its events came)',
  group: 'run',
});

export type UntilEvent = SessionEvent['kind'] | CrossingName;

/** The events --until takes: every event watch writes, by the name it writes. */
export const UNTIL_EVENTS: readonly UntilEvent[] = [...CROSSING_NAMES, 'hung', 'down', 'back', 'layout', 'stale-removed', 'name-taken', 'prober-restarted'];

/** The exit code of a watch whose --duration ran out before any of its --until events came (timeout(1)'s). */
export const EXIT_UNTIL_TIMED_OUT = 124;

/** --until's list, each name checked. */
export function parseUntil(text: string): UntilEvent[] {
  const names = text.split(',').map((name) => name.trim());
  for (const name of names) {
    if (!(UNTIL_EVENTS as readonly string[]).includes(name)) throw new RangeError(`unknown event '${name}': expected one or more of ${UNTIL_EVENTS.join(', ')}, separated by commas`);
  }
  return names as UntilEvent[];
}
