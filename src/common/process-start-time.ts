// A process's start time, which tells a live process from another that was given the same PID
// later: locks and the prober registry name their owner by both.
import { readFileSync } from 'node:fs';

/** Field 22 of /proc/PID/stat (clock ticks after boot), or null when there is no such process. */
export function processStartTime(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name, field 2, is in parentheses and may itself hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[22 - 3]);
  return Number.isFinite(start) ? start : null;
}
