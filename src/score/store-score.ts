// From disk scores to the store's score and PD's view of it.
import { SCORE_FLOOR, type ScoreParams } from './score-params.js';

/** The store's score: the maximum over its disks, and at least 1. */
export function storeScore(diskScores: Iterable<number>): number {
  let max = SCORE_FLOOR;
  for (const score of diskScores) if (score > max) max = score;
  return max;
}

/** PD sees the integer part: 99.9 is reported as 99. */
export function reportedScore(score: number): number {
  return Math.trunc(score);
}

/** The decimals a score is shown with. */
export const SHOWN_SCORE_DECIMALS = 2;

/**
 * A score as every output shows it: cut, not rounded, to two decimals. The score itself stays
 * TiKV's exact double (the next update starts from it), and its binary noise (91.99999999999999
 * from a descent that TiKV also makes) is cut off here alone: from its shortest decimal
 * form, whose whole part is the reported score, so that 91.99999999999999 shows as 91.99
 * beside a reported 91, never as 92.00. Scores run from 1 to 100: no exponent in that form.
 */
export function shownScore(score: number): number {
  const [whole, fraction = ''] = String(score).split('.');
  return Number(`${whole}.${fraction.slice(0, SHOWN_SCORE_DECIMALS)}`);
}

export type Severity = 'ok' | 'slow' | 'evict';

/** How each severity reads in the monitoring-plugin convention. */
export const SEVERITY_LABELS: Readonly<Record<Severity, string>> = { ok: 'OK', slow: 'WARNING', evict: 'CRITICAL' };

export function severityOf(score: number, params: Pick<ScoreParams, 'evictThreshold' | 'slowThreshold'>): Severity {
  const reported = reportedScore(score);
  if (reported >= params.evictThreshold) return 'evict';
  if (reported >= params.slowThreshold) return 'slow';
  return 'ok';
}

const SEVERITY_ORDER: readonly Severity[] = ['ok', 'slow', 'evict'];

/** The worse of two severities: the score's and the statistical detector's, say. */
export function worseSeverity(a: Severity, b: Severity): Severity {
  return SEVERITY_ORDER.indexOf(a) >= SEVERITY_ORDER.indexOf(b) ? a : b;
}
