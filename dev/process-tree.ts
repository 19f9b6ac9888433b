// Process relations from /proc, shared by the tests (test/helpers/run-cli.ts) and the
// benchmarks (dev/bench/), which both find the prober a CLI started.
import { readdirSync, readFileSync } from 'node:fs';

/** The PIDs whose /proc/PID/stat field `field` (counted from the state, 0) is `value`. */
function pidsWithStat(field: number, value: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields resume after the last ')'.
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[field]) === value) found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** The PIDs whose parent is `pid`, from /proc (this kernel has no /proc/PID/task/TID/children). */
export function childPids(pid: number): number[] {
  return pidsWithStat(1, pid);
}

/** The PIDs in process group `pgid`. */
export function groupPids(pgid: number): number[] {
  return pidsWithStat(2, pgid);
}
