// What `slowdisk replay --json` of a trace makes of one disk's tail: its state at each change
// of it, with the second of the round that showed it, as the recorded-tail tests read it.
import { expect } from 'vitest';
import { jsonLines, runCli } from './run-cli.js';

export interface TailChange {
  tail: unknown;
  s: number;
}

export async function replayTailChanges(trace: string, disk: string, args: string[] = []): Promise<{ code: number | null; changes: TailChange[] }> {
  const result = await runCli(['replay', trace, '--json', ...args]);
  expect(result.stderr).toBe('');
  const changes: TailChange[] = [];
  for (const line of jsonLines(result.stdout)) {
    if (line.type !== 'disk' || line.disk !== disk || line.tail === changes.at(-1)?.tail) continue;
    changes.push({ tail: line.tail, s: line.elapsed_seconds as number });
  }
  return { code: result.code, changes };
}
