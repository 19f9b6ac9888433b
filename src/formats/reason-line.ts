// A verdict with no disk summary behind it, as one line in the format asked for: a service
// that is not running or not answering, a path not on the mount point it must be on.
import type { CheckFormat } from './report-options.js';
import { nagiosStatusLine } from './nagios.js';

const STATES = ['OK', 'WARNING', 'CRITICAL', 'UNKNOWN'];

export function reasonLine(output: { json: boolean; format: CheckFormat }, exitCode: number, reason: string): string {
  const state = STATES[exitCode] ?? 'UNKNOWN';
  if (output.json) return JSON.stringify({ type: 'summary', time: new Date().toISOString(), status: state, exit_code: exitCode, reason });
  if (output.format === 'nagios') return nagiosStatusLine(exitCode, reason);
  return `${state}: ${reason}`;
}
