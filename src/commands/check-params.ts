// How long `check` probes before it gives its verdict, and the least that can reach CRITICAL.
import { DAY_MS, formatDuration } from '../common/durations.js';
import type { DurationSpec } from '../common/param-spec.js';
import { DEFAULT_SCORE_PARAMS, type ScoreParams } from '../score/score-params.js';
import { msToReach, roundsToReach } from '../score/slow-score.js';

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

/** The flag that runs a check too short to reach CRITICAL all the same. */
export const ALLOW_SHORT_FLAG = '--allow-short';

/**
 * The shortest check that can reach CRITICAL: a score starts at 1 and at most doubles a
 * round, so it takes this many rounds of timeouts to reach the eviction threshold.
 */
export function minimumCheckMs(params: Pick<ScoreParams, 'roundTicks' | 'intervalMs' | 'evictThreshold'>): number {
  return msToReach(params, params.evictThreshold);
}

/** "21s (7 rounds of 3s, the score doubling from 1 to 100)". */
export function minimumCheckText(params: Pick<ScoreParams, 'roundTicks' | 'intervalMs' | 'evictThreshold'>): string {
  const rounds = roundsToReach(params.evictThreshold);
  return `${formatDuration(minimumCheckMs(params))} (${rounds} rounds of ${formatDuration(params.roundTicks * params.intervalMs)}, the score doubling from 1 to ${params.evictThreshold})`;
}

/** The one line refusing a --duration too short to reach CRITICAL, or null. */
export function shortCheckRefusal(durationMs: number, params: ScoreParams): string | null {
  if (durationMs >= minimumCheckMs(params)) return null;
  return `--duration ${formatDuration(durationMs)} cannot reach CRITICAL: a check needs at least ${minimumCheckText(params)}; ${ALLOW_SHORT_FLAG} runs it anyway`;
}

/** check --help: what the default parameters need. */
export const MINIMUM_CHECK_HELP = `A check must run at least ${minimumCheckText(DEFAULT_SCORE_PARAMS)} to reach CRITICAL at the default
parameters; a shorter --duration is refused unless ${ALLOW_SHORT_FLAG} is given. A disk whose rounds, seen again and again,
would take its score to eviction (timeouts at or above --ratio-threshold over them) is WARNING at least: "rising",
its line saying when a continuous run would evict it.`;
