// Replay steps through every tick of every disk, so a small trace could ask for hours of it:
// sixty lines, each a day of ticks past the one before (2 KB), or one disk's line far out
// under a header of a hundred disks. The work is bounded by what the trace holds: such a trace
// is refused in one line naming its line, with exit 3, within seconds (a refused trace that
// ran on would outlast its case's timeout); a recorded day-long hang of one disk still
// replays to its verdict. Run in-process: what is judged is the replay's work and its
// verdict, not the process around it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runInProcess, type InProcessResult } from '../helpers/in-process-cli.js';
import { REPLAY_STEPS_PER_LINE } from '../../src/replay/replay-engine.js';
import { MAX_TICK_GAP } from '../../src/trace/trace-reader.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-replay-bound-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function replay(name: string, lines: object[]): Promise<InProcessResult> {
  const file = path.join(work, `${name}.jsonl`);
  writeFileSync(file, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
  return runInProcess(['replay', file]);
}

describe('the work of a replay, bounded by the trace', () => {
  it('refuses sixty lines a day of ticks apart at the line that asks for more', async () => {
    const lines = Array.from({ length: 60 }, (_, i) => ({ tick: 1 + i * MAX_TICK_GAP, disk: 'a', ms: 1 }));
    const result = await replay('days-apart', lines);
    expect(result.code).toBe(3);
    expect(result.stderr).toBe(
      `slowdisk: ${path.join(work, 'days-apart.jsonl')} line 3: tick ${1 + 2 * MAX_TICK_GAP} of 1 disk is ${1 + 2 * MAX_TICK_GAP} steps of replay, ` +
        `more than the ${MAX_TICK_GAP + 3 * REPLAY_STEPS_PER_LINE} that 3 lines allow (${MAX_TICK_GAP}, and ${REPLAY_STEPS_PER_LINE} a line): replay steps through every tick of every disk, lines or not\n`,
    );
  }, 30_000);

  it('refuses one line far out under a header of a hundred disks', async () => {
    const disks = Array.from({ length: 100 }, (_, i) => `d${i}`);
    const result = await replay('many-disks', [{ slowdisk_trace: 1, interval_ms: 100, disks }, { tick: 1, disk: 'd0', ms: 1 }, { tick: 86_401, disk: 'd0', ms: 1 }]);
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/ line 3: tick 86401 of 100 disks is 8640100 steps of replay, more than the 864020 that 2 lines allow /);
  }, 30_000);

  it('replays a day-long hang of one disk to its verdict', async () => {
    const lines = [...Array.from({ length: 300 }, (_, i) => ({ tick: i + 1, disk: 'a', ms: 1 })), { tick: 300 + MAX_TICK_GAP, disk: 'a', ms: 1 }];
    const result = await replay('day-hang', lines);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(new RegExp(`^CRITICAL: max reported store score 100 over ${300 + MAX_TICK_GAP} ticks `, 'm'));
  }, 30_000);
});
