// slowdisk status against a running service (`watch --store NAME` on a loop disk): the wall
// time of the whole command, as NRPE or a shell sees it, against `node -e 0`, the
// interpreter's own start, which status cannot go under; and the answer alone, from
// connecting to the socket to the snapshot read. `slowdisk --version` is timed beside them:
// what each command costs over the interpreter's start is its own start-up.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { askStatus } from '../../src/status/status-client.js';
import { BIN, benchDir, isMain, makeDisk, median, ms, progress, quantile, row, runParts, startWatch, type PartResult } from './lib.js';

const TARGET_WALL_MS = 300;
/** What `status` and `--version` may take over `node -e 0` timed just before them. */
const TARGET_OVER_NODE_MS = 50;
const CALLS = 30;

function wallOf(args: readonly string[]): number {
  const started = performance.now();
  try {
    execFileSync(process.execPath, args, { stdio: 'ignore' });
  } catch {
    // status exits with the verdict's code: 0 to 2 are answers.
  }
  return performance.now() - started;
}

export async function status(): Promise<PartResult> {
  const spin = progress('status: making a loop-device disk');
  const disk = makeDisk(join(benchDir('status'), 'a'), 64);
  const store = `bench${process.pid}`;
  spin.set('status: starting the service');
  const watch = await startWatch([{ name: 'kv', dir: disk.dir }], { extraArgs: ['--store', store] });
  const walls: number[] = [];
  const bare: number[] = [];
  const versions: number[] = [];
  const answers: number[] = [];
  try {
    for (let i = 0; i < CALLS; i += 1) {
      spin.set(`status: call ${i + 1}/${CALLS}`);
      bare.push(wallOf(['-e', '0']));
      walls.push(wallOf([BIN, 'status', '--store', store, '--format', 'nagios']));
      versions.push(wallOf([BIN, '--version']));
      const started = performance.now();
      const answer = await askStatus(store);
      if (answer.kind !== 'answered') throw new Error(`status did not get an answer: ${answer.reason}`);
      answers.push(performance.now() - started);
    }
  } finally {
    await watch.stop();
  }
  spin.done('status');
  const P = 'status';
  const wall = median(walls);
  // Each call against the `node -e 0` just before it: a machine that slows down for a while slows both.
  const statusOver = median(walls.map((each, i) => each - bare[i]!));
  const versionOver = median(versions.map((each, i) => each - bare[i]!));
  const rows = [
    row(P, `slowdisk status --format nagios, wall, median / p90 / max (${CALLS} calls)`, `${ms(wall)} / ${ms(quantile(walls, 0.9))} / ${ms(Math.max(...walls))}`, `<= ${TARGET_WALL_MS} ms`, wall <= TARGET_WALL_MS),
    row(P, 'node -e 0, wall, median / p90', `${ms(median(bare))} / ${ms(quantile(bare, 0.9))}`),
    row(P, 'status over node -e 0, median of the calls', ms(statusOver), `<= ${TARGET_OVER_NODE_MS} ms`, statusOver <= TARGET_OVER_NODE_MS),
    row(P, 'slowdisk --version, wall, median (over node -e 0)', `${ms(median(versions))} (${ms(versionOver)})`, `<= ${TARGET_OVER_NODE_MS} ms over`, versionOver <= TARGET_OVER_NODE_MS),
    row(P, 'the answer alone (connect to snapshot read), median / max', `${ms(median(answers))} / ${ms(Math.max(...answers))}`),
  ];
  return {
    rows,
    figures: { calls: CALLS, wallMs: walls, nodeStartMs: bare, versionMs: versions, answerMs: answers, targets: { wallMs: TARGET_WALL_MS, overNodeMs: TARGET_OVER_NODE_MS } },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: 'status', run: status }]);
