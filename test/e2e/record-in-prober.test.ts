// The trace is written by the prober's process: a run with --record is two processes, and a
// prober killed under it ends the trace where it was, said at once and at the end.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childPids, probeFiles, runCli, startCli, waitFor } from '../helpers/run-cli.js';

const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-record-in-prober-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const FAST = ['--interval', '10ms', '--round-ticks', '2', '--keep-going'];
const traceLines = (file: string): string[] => readFileSync(file, 'utf8').split('\n').filter((line) => line !== '');

describe('watch --record', () => {
  it('takes no process of its own: the CLI has one child, its prober, and the trace replays', async () => {
    const dir = mkdtempSync(path.join(work, 'probed-'));
    const trace = path.join(work, 'whole.trace');
    const cli = startCli(['watch', '--raft', dir, ...FAST, '--record', trace]);
    // A line an inspection and one a round: 2-tick rounds make 3 lines every 2 ticks.
    await waitFor(() => existsSync(trace) && traceLines(trace).length > 40, 10_000, 'inspections in the trace');
    expect(childPids(cli.child.pid!)).toHaveLength(1);
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code).toBe(143);
    expect(result.stderr).toBe('');
    expect(probeFiles(dir)).toEqual([]);
    const replayed = await runCli(['replay', trace]);
    // Ticks of 10 ms on a loaded machine may time out: the score is not the point, the trace's length is.
    expect(Number(/max reported store score \d+ over (\d+) ticks/.exec(replayed.stdout)?.[1])).toBeGreaterThan(20);
  });

  it('a prober killed under it ends the trace: told at once and at the end, the run goes on with a new prober', async () => {
    const dir = mkdtempSync(path.join(work, 'probed-'));
    const trace = path.join(work, 'cut.trace');
    const cli = startCli(['watch', '--raft', dir, ...FAST, '--record', trace]);
    await waitFor(() => existsSync(trace) && traceLines(trace).length > 20, 10_000, 'inspections in the trace');
    const [prober] = childPids(cli.child.pid!);
    process.kill(prober!, 'SIGKILL');
    await waitFor(() => childPids(cli.child.pid!).some((pid) => pid !== prober), 5000, 'a new prober');
    const [replacement] = childPids(cli.child.pid!);
    // Probing: its own probe file made, the dead one's removed as stale.
    await waitFor(() => probeFiles(dir).some((name) => name.startsWith(`.slowdisk-probe-${replacement}-`)), 5000, 'the new prober probing');
    await waitFor(() => cli.stderr().includes('cannot record'), 5000, 'the trace told as cut');
    const linesAfterKill = traceLines(trace).length;
    // Still probing: the new prober's inspections reach the rounds, none the trace.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(traceLines(trace).length).toBe(linesAfterKill);
    cli.child.kill('SIGTERM');
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(143);
    expect(result.stderr).toBe(
      `slowdisk: cannot record to ${trace}: the prober (pid ${prober}) was killed by SIGKILL\nslowdisk: not written: the trace ${trace}\n`,
    );
    expect(probeFiles(dir)).toEqual([]);
    // What was written before is kept, and replays.
    const replayed = await runCli(['replay', trace]);
    console.log(`replay of the cut trace: exit ${replayed.code}: ${replayed.stderr.trim()}`);
    expect(replayed.code).not.toBe(3);
  });
});
