// The live path (session, prober client, run, outputs) run in-process on the stub prober: what a
// watch or a check shows of a disk is decided by the inspections' times, played here on the
// run's own clock, so that minutes of a run take milliseconds and nothing hangs on the
// machine's load. What only the real prober shows is in test/e2e/.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { runInProcess } from '../helpers/in-process-cli.js';
import { jsonLines } from '../helpers/run-cli.js';
import { HEALTHY, playScript, recordedScript, stubProbers } from '../helpers/stub-prober.js';

vi.mock('node:child_process', async (importOriginal) => (await import('../helpers/stub-prober.js')).withStubProber(await importOriginal()));

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-live-run-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(() => playScript(HEALTHY));

describe('a check of a disk that times out on every tick', () => {
  it('is CRITICAL once the score doubles to 100: at 21 s of its clock, 7 rounds of 3 s', async () => {
    playScript(() => 150);
    const result = await runInProcess(['check', '--kv', work, '--duration', '60s']);
    expect(result.code).toBe(2);
    expect(result.stdout).toMatch(/^CRITICAL: store score 100 after 21\.0s /);
  });
});

describe('a hung disk', () => {
  it('watch --until hung ends at the hung event, which says how long the inspection has been in flight', async () => {
    playScript((_name, tick) => (tick >= 40 ? 'hang' : 1));
    const result = await runInProcess(['watch', '--json', '--kv', work, '--until', 'hung']);
    const hung = jsonLines(result.stdout).filter((line) => line.type === 'event' && line.event === 'hung');
    expect(hung).toHaveLength(1);
    expect(hung[0]).toMatchObject({ disk: 'kv' });
    expect(hung[0]!.waiting_ms).toBeGreaterThanOrEqual(2000);
  });
});

describe('a healthy disk at 20 ms ticks', () => {
  it('never shows a wait for an inspection that completed in time, over 150 s', async () => {
    // 2 to 15 ms: many end after a batch is cut, and are in the next one.
    playScript((_name, tick) => 2 + ((tick * 7) % 14));
    const result = await runInProcess(['watch', '--json', '--kv', work, '--interval', '20ms', '--timeout', '1s', '--keep-going', '--duration', '150s']);
    expect(result.code).toBe(0);
    const disks = jsonLines(result.stdout).filter((line) => line.type === 'disk');
    // A round of 30 ticks is 0.6 s: 250 rounds.
    expect(disks.length).toBeGreaterThan(240);
    expect(disks.filter((line) => line.waiting_ms !== undefined)).toEqual([]);
  });
});

describe('a prober that dies', () => {
  it('is replaced: an event names the dead one, and the run goes on with the new one', async () => {
    let killed = false;
    playScript((_name, tick) => {
      if (tick === 100 && !killed) {
        killed = true;
        queueMicrotask(() => stubProbers().at(-1)!.kill());
      }
      return 1;
    });
    const before = stubProbers().length;
    const result = await runInProcess(['watch', '--json', '--kv', work, '--duration', '30s']);
    expect(result.code).toBe(0);
    expect(stubProbers().length).toBe(before + 2);
    const events = jsonLines(result.stdout).filter((line) => line.type === 'event');
    expect(events).toContainEqual(expect.objectContaining({ event: 'prober-restarted' }));
    const lastRound = jsonLines(result.stdout).filter((line) => line.type === 'disk').at(-1);
    expect(lastRound).toMatchObject({ disk: 'kv', state: 'up' });
  });
});

describe('--record', () => {
  it("writes the trace through the prober's process, and its replay reaches the check's verdict", async () => {
    playScript((_name, tick) => (tick > 100 ? 150 : 1));
    const trace = path.join(work, 'check.jsonl');
    const check = await runInProcess(['check', '--kv', work, '--duration', '40s', '--record', trace]);
    expect(check.code).toBe(2);
    const replay = await runInProcess(['replay', trace]);
    expect(replay.code).toBe(2);
    expect(replay.stdout).toMatch(/^CRITICAL: /m);
  });

  it('played back through the live path, the recorded inspections give the same check', async () => {
    playScript((_name, tick) => (tick % 3 === 0 ? 150 : 2));
    const trace = path.join(work, 'played.jsonl');
    const recorded = await runInProcess(['check', '--kv', work, '--duration', '40s', '--record', trace]);
    playScript(recordedScript(readFileSync(trace, 'utf8')));
    const played = await runInProcess(['check', '--kv', work, '--duration', '40s']);
    expect(played.code).toBe(recorded.code);
    // All but how long each took to stop, and the ticks charged meanwhile: the recording run
    // closed its trace first, on its clock's time when the machine is busy.
    const summary = (stdout: string) => stdout.replace(/ after \d+\.\ds /, ' ').replace(/ timeouts \d+ /, ' ').replace(/ median\/p99\/max .*/, '');
    expect(summary(played.stdout)).toBe(summary(recorded.stdout));
    expect(summary(played.stdout)).toMatch(/score \d+/);
  });
});
