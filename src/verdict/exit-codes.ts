// The monitoring-plugin convention (Nagios, Icinga, Sensu), plus 128 + signal number.
import type { Severity } from '../score/store-score.js';

export const EXIT_OK = 0;
export const EXIT_WARNING = 1;
export const EXIT_CRITICAL = 2;
export const EXIT_UNKNOWN = 3;
export const EXIT_SIGHUP = 129;
export const EXIT_SIGINT = 130;
export const EXIT_SIGTERM = 143;

export function exitCodeOf(severity: Severity): number {
  return severity === 'evict' ? EXIT_CRITICAL : severity === 'slow' ? EXIT_WARNING : EXIT_OK;
}
