// Process relations from /proc, shared by the tests (test/helpers/run-cli.ts) and the
// benchmarks (scripts/bench/), which both find the prober a CLI started.
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The PIDs whose parent is `pid`, from /proc (this kernel has no /proc/PID/task/TID/children).
 * @param {number} pid
 * @returns {number[]}
 */
export function childPids(pid) {
  const children = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command name may hold spaces and parentheses: fields resume after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) children.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return children;
}
