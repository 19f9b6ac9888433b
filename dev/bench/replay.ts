// Replay speed: a day of 100 ms ticks for two disks (864,000 ticks, 1,728,000 inspections)
// through the real `slowdisk replay`, end to end from spawn until its output closed. The
// trace is the scenario generator's (dev/scenarios/: SSD latencies with host load, drift,
// internal pauses and bursts), written to a temporary file before the clock starts.
import { once } from 'node:events';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scenarioTrace } from '../scenarios/index.js';
import { REPO_ROOT } from '../repo-root.js';
import { BIN, SETTINGS, isMain, medianOver, onCleanup, progress, row, runParts, spawnTracked, type PartResult, type Progress } from './lib.js';

const TARGET_S = 10;
const INTERVAL_MS = 100;
const DAY_MS = 24 * 60 * 60 * 1000;
// A smoke run replays an hour.
const DURATION_MS = SETTINGS.quick ? DAY_MS / 24 : DAY_MS;
const DISKS = 2;

async function writeTrace(file: string, spin: Progress): Promise<number> {
  const out = createWriteStream(file);
  let lines = 0;
  let chunk: string[] = [];
  for (const line of scenarioTrace({ kind: 'burst', seed: 7, disks: DISKS, media: 'ssd', intervalMs: INTERVAL_MS, durationMs: DURATION_MS })) {
    chunk.push(line);
    lines += 1;
    if (chunk.length === 10_000) {
      if (!out.write(`${chunk.join('\n')}\n`)) await once(out, 'drain');
      chunk = [];
      spin.set(`replay: writing a trace of ${DISKS} disks, ${lines} lines`);
    }
  }
  out.end(chunk.length > 0 ? `${chunk.join('\n')}\n` : '');
  await once(out, 'finish');
  return lines;
}

interface Timed {
  elapsedS: number;
  exitCode: number;
  stdoutBytes: number;
}

/** One `slowdisk replay FILE`, its stdout a pipe (no progress, the timeline's lines only). */
async function timeReplay(file: string): Promise<Timed> {
  const started = performance.now();
  const child = spawnTracked(process.execPath, [BIN, 'replay', file], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdoutBytes = 0;
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdoutBytes += chunk.length));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  const elapsedS = (performance.now() - started) / 1000;
  // 0, 1 and 2 are verdicts (OK, WARNING, CRITICAL); anything else is a failed replay.
  if (signal !== null || code === null || code > 2) throw new Error(`slowdisk replay failed (${signal ?? code}): ${stderr.trim()}`);
  return { elapsedS, exitCode: code, stdoutBytes };
}

export async function replay(): Promise<PartResult> {
  const spin = progress('replay: writing a trace');
  const dir = mkdtempSync(join(tmpdir(), 'slowdisk-bench-replay-'));
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'day.jsonl');
  const lines = await writeTrace(file, spin);
  const ticks = DURATION_MS / INTERVAL_MS;
  const diskTicks = ticks * DISKS;
  const runs: Timed[] = [];
  for (let r = 0; r < SETTINGS.repeats; r += 1) {
    spin.set(`replay: slowdisk replay, ${diskTicks} disk-ticks, run ${r + 1}/${SETTINGS.repeats}`);
    runs.push(await timeReplay(file));
  }
  spin.done('replay');
  const seconds = medianOver(runs, (run) => run.elapsedS);
  const perSecond = diskTicks / seconds;
  const span = SETTINGS.quick ? `${DURATION_MS / 3_600_000} h` : 'a day';
  return {
    rows: [
      row(
        'replay',
        `replay ${span} @100 ms, ${DISKS} disks (${diskTicks} disk-ticks), end to end`,
        `${seconds.toFixed(2)} s (${Math.round(perSecond)} disk-ticks/s)`,
        // The target is for a day; a smoke run's hour, start-up included, is not judged by it.
        SETTINGS.quick ? '' : `< ${TARGET_S} s`,
        SETTINGS.quick ? null : seconds < TARGET_S,
      ),
    ],
    figures: {
      durationMs: DURATION_MS,
      intervalMs: INTERVAL_MS,
      disks: DISKS,
      ticks,
      diskTicks,
      traceLines: lines,
      traceBytes: statSync(file).size,
      seconds,
      diskTicksPerSecond: perSecond,
      targetSeconds: SETTINGS.quick ? null : TARGET_S,
      runs,
    },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: 'replay', run: replay }]);
