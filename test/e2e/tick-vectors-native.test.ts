// The native threads' tick, round and batch arithmetic (native/tick_clock.cc), built here on
// its own with the C++ compiler node-gyp uses, against the table the CLI's tick schedule is
// held to too (test/unit/tick-vectors.test.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { TICK_VECTORS } from '../helpers/tick-vectors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-tick-vectors-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('native/tick_clock.cc, as test/vectors/ticks.json has it', () => {
  it('keeps every deadline, first tick after a time, round and batch time of the table', () => {
    const main = path.join(work, 'tick-clock');
    execFileSync(process.env['CXX'] ?? 'c++', ['-std=c++17', '-O2', '-Wall', '-Wextra', '-Werror', '-o', main, path.join(root, 'test/native/tick_clock_main.cc'), path.join(root, 'native/tick_clock.cc')]);
    const questions: string[] = [];
    const expected: string[] = [];
    const ask = (question: string, answer: number | boolean) => {
      questions.push(question);
      expected.push(`${question} -> ${String(answer)}`);
    };
    for (const v of TICK_VECTORS) {
      questions.push(`clock ${v.startMs} ${v.intervalMs} ${v.roundTicks}`, `flush ${v.startMs} ${v.flushPeriodMs} ${v.flushSlackMs}`);
      for (const [tick, ms] of v.deadlineMs) ask(`deadline ${tick}`, ms);
      for (const [ms, tick] of v.firstTickAfter) ask(`after ${ms}`, tick);
      for (const [tick, opens] of v.opensRound) ask(`opens ${tick}`, opens);
      for (const [tick, from] of v.roundTickFrom) ask(`from ${tick}`, from);
      for (const [ms, at] of v.nextFlushMs) ask(`next ${ms}`, at);
    }
    const answers = execFileSync(main, { input: `${questions.join('\n')}\n`, encoding: 'utf8' }).trim().split('\n');
    const asked = questions.filter((q) => !q.startsWith('clock') && !q.startsWith('flush'));
    const got = asked.map((question, i) => {
      const text = answers[i]!;
      return `${question} -> ${text === 'true' || text === 'false' ? text : String(Number(text))}`;
    });
    expect(got).toEqual(expected);
  });
});
