// The disk's own view of its health, for the hooks' report: `smartctl -H -A`. smartctl
// queries the device, which may be the hung one, so it runs as a child with a deadline.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { runBounded } from './bounded-child.js';

/** A SMART query answers in well under a second; a hung device never does. */
export const SMARTCTL_TIMEOUT_MS = 5000;

export type SmartHealth = { command: string; exitCode: number; output: string } | { unavailable: string };

// Cron's PATH leaves out the sbin directories, where smartctl is installed.
const SEARCH_DIRS = ['/usr/sbin', '/sbin', '/usr/local/sbin'];

export function findSmartctl(searchPath = process.env.PATH ?? ''): string | null {
  for (const dir of [...searchPath.split(path.delimiter).filter((dir) => dir !== ''), ...SEARCH_DIRS]) {
    const candidate = path.join(dir, 'smartctl');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return null;
}

export async function smartHealth(device: string, smartctl: string, timeoutMs = SMARTCTL_TIMEOUT_MS): Promise<SmartHealth> {
  const args = ['-H', '-A', device];
  const command = [smartctl, ...args].join(' ');
  const { outcome, output } = await runBounded(smartctl, args, { timeoutMs, output: 'capture' });
  switch (outcome.kind) {
    // smartctl's exit status is a bit mask (smartctl(8), EXIT STATUS): its output is kept whatever it is.
    case 'exited':
      return { command, exitCode: outcome.code, output };
    case 'signalled':
      return { unavailable: `${command} was killed by ${outcome.signal}` };
    case 'timed-out':
      return { unavailable: `${command} did not answer within ${timeoutMs / 1000} s (killed)` };
    case 'not-started':
      return { unavailable: `${command} could not start: ${outcome.message}` };
  }
}
