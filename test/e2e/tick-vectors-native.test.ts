// The native threads' tick, round and batch arithmetic (native/tick_clock.cc), built here on
// its own with the C++ compiler node-gyp uses, against the table the CLI's tick schedule is
// held to too (test/unit/tick-vectors.test.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cachedBuild } from '../helpers/cached-build.js';
import { TICK_VECTORS } from '../helpers/tick-vectors.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** The program, built as the addon's compiler would build it (once for these sources). */
function tickClockProgram(): string {
  const compiler = process.env['CXX'] ?? 'c++';
  const sources = [path.join(root, 'test/native/tick_clock_main.cc'), path.join(root, 'native/tick_clock.cc')];
  const flags = ['-std=c++17', '-O2', '-Wall', '-Wextra', '-Werror'];
  const headers = readdirSync(path.join(root, 'native'))
    .filter((name) => name.endsWith('.h'))
    .map((name) => path.join(root, 'native', name));
  const dir = cachedBuild('tick-clock', { compiler, inputs: [...sources, ...headers], settings: flags }, (out) =>
    execFileSync(compiler, [...flags, '-o', path.join(out, 'tick-clock'), ...sources]),
  );
  return path.join(dir, 'tick-clock');
}

describe('native/tick_clock.cc, as test/vectors/ticks.json has it', () => {
  it('keeps every deadline, first tick after a time, round and batch time of the table', () => {
    const main = tickClockProgram();
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
