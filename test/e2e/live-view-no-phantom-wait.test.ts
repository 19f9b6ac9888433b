// The live view shows a disk waiting for an inspection only when one was: judged at the clock
// the prober's records reach, not at the view's, an inspection done in a few milliseconds
// after a batch was cut is never shown as waiting until the next batch. Ticks of 20 ms make
// the view show any wait over 20 ms, so that a phantom one would show within seconds (with
// the disks judged at the view's clock, 30 s showed one on 77 screens of 278); a timeout of 1 s
// keeps a loaded machine's slower syncs from raising the score, and --keep-going the run
// going whatever. Which clock the disks are judged at is batch-feeder.test.ts's to prove on
// made-up batches; this one proves it of the real prober's batches, on a real terminal.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { BIN, waitFor } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['tmux', 'root', 'loop']);
const SOCKET = `slowdisk-phantom-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-phantom-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const INTERVAL_MS = 20;
const WATCH_MS = 30_000;
/** How far a wait shown may be from the inspection that explains it: a batch, a redraw, and a capture apart. */
const EXPLAINED_WITHIN_MS = 3000;
/** A wait is shown to the tenth of a second, and tick 0's wall time is known to a few ms. */
const ROUNDING_MS = 60;

interface Shown {
  atMs: number;
  screen: string;
}

describe.skipIf(gate.skip)('the live view on a healthy disk', () => {
  afterAll(async () => {
    try {
      tmux('kill-server');
    } catch {
      // The server ended with its last session.
    }
    await removeAllTestDisks();
  });

  it(
    `shows no wait for an inspection that completed in time, over ${WATCH_MS / 1000} s of ${INTERVAL_MS} ms ticks`,
    async () => {
      const disk = await makeTestDisk();
      const trace = path.join(work, 'trace.jsonl');
      const session = 'phantom';
      const command = ['env', '-u', 'CI', 'NO_COLOR=1', process.execPath, BIN, 'watch', '--kv', disk.dir, '--interval', `${INTERVAL_MS}ms`, '--timeout', '1s', '--keep-going', '--record', trace];
      tmux('new-session', '-d', '-x', '80', '-y', '10', '-s', session, command.map((word) => `'${word}'`).join(' '));
      tmux('set-option', '-t', session, 'remain-on-exit', 'on');
      const screen = () => tmux('capture-pane', '-p', '-t', session);
      await waitFor(() => /tick \d+ /.test(screen()), 15_000, 'the first round on the screen');
      const waits: Shown[] = [];
      let screens = 0;
      for (const end = Date.now() + WATCH_MS; Date.now() < end; screens += 1) {
        const shown = screen();
        if (/waiting|hung/.test(shown)) waits.push({ atMs: Date.now(), screen: shown });
        await sleep(100);
      }
      // Still running: every screen was of the live view.
      expect(tmux('display-message', '-p', '-t', session, '#{pane_dead}').trim()).toBe('0');
      tmux('send-keys', '-t', session, 'C-c');
      await waitFor(() => tmux('display-message', '-p', '-t', session, '#{pane_dead}').trim() === '1', 10_000, 'watch to exit');

      const inspections = readFileSync(trace, 'utf8')
        .trim()
        .split('\n')
        .slice(1)
        .map((line) => JSON.parse(line) as { tick?: number; disk?: string; ms?: number; t?: number; error?: string })
        .filter((line) => line.disk !== undefined);
      const timed = inspections.filter((line) => line.ms !== undefined);
      // When tick 0 was on the wall clock: an inspection's result came at t, ms after its tick began.
      const starts = timed.map((line) => line.t! - line.ms! - line.tick! * INTERVAL_MS).sort((a, b) => a - b);
      const startWallMs = starts[Math.floor(starts.length / 2)]!;
      // How long each was in flight, from its tick to its result: a wait shown of X s needs one of X s or more.
      const inFlight = timed.map((line) => ({ t: line.t!, ms: line.t! - (startWallMs + line.tick! * INTERVAL_MS) }));
      const unexplained = waits.filter(({ atMs, screen }) => {
        const shown = Number(/(?:waiting|in flight) (\d+\.\d)s/.exec(screen)?.[1] ?? 0) * 1000;
        const needed = Math.max(INTERVAL_MS, shown - ROUNDING_MS);
        return !inFlight.some((each) => each.ms >= needed && Math.abs(each.t - atMs) <= EXPLAINED_WITHIN_MS);
      });
      const late = inFlight.filter((each) => each.ms > INTERVAL_MS);
      console.log(`${screens} screens, ${waits.length} with a wait, ${timed.length} inspections, ${late.length} past their tick, ${unexplained.length} waits unexplained`);
      expect(screens).toBeGreaterThan(WATCH_MS / 1000);
      expect(timed.length).toBeGreaterThan((WATCH_MS / INTERVAL_MS) * 0.8);
      expect(inspections.filter((line) => line.error !== undefined)).toEqual([]);
      expect(unexplained.map(({ screen }) => screen)).toEqual([]);
    },
    WATCH_MS + 60_000,
  );
});
