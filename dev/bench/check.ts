// What a cron check costs the machine: `slowdisk check --duration 30s` on one loop disk, CLI,
// prober and every other process of the tree, against the plain C loop making the same 300
// inspections on the same disk, taking turns. Each runs in a cgroup of its own and is charged
// what the cgroup's CPU accounting says: the prober is detached from the CLI and outlives its
// last message, so a count of the processes reaped (/usr/bin/time) leaves it out.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, SETTINGS, BenchCgroup, benchDir, makeDisk, median, ms, plainLoop, progress, ratio, row, runParts, sleep, isMain, type PartResult } from './lib.js';

const TARGET_RATIO = 2;
const INTERVAL_MS = 100;

/** A cgroup that holds one command's process tree and reads back the CPU it used (v1 cpuacct or v2). */
class CpuGroup {
  private readonly group: BenchCgroup;
  private readonly v1: boolean;

  constructor(label: string) {
    this.v1 = existsSync('/sys/fs/cgroup/cpuacct/cpuacct.usage');
    if (!this.v1 && !existsSync('/sys/fs/cgroup/cgroup.controllers')) throw new Error('no cgroup CPU accounting: neither /sys/fs/cgroup/cpuacct (v1) nor a cgroup v2 hierarchy');
    this.group = new BenchCgroup(this.v1 ? '/sys/fs/cgroup/cpuacct' : '/sys/fs/cgroup', label);
  }

  private usageMs(): number {
    if (this.v1) return Number(this.group.read('cpuacct.usage')) / 1e6;
    const usec = /^usage_usec (\d+)$/m.exec(this.group.read('cpu.stat'))?.[1];
    return Number(usec) / 1e3;
  }

  /** Runs the command in the group to its end and until every process it left has gone; the CPU of them all, in ms. */
  async cpuOf(command: string, args: readonly string[]): Promise<number> {
    if (!this.group.empty()) throw new Error(`${this.group.dir} still holds processes`);
    const before = this.usageMs();
    await this.group.spawn(command, args).exited;
    if (!(await this.group.emptied(10_000))) throw new Error(`${command}: its processes were still running 10 s after it exited`);
    return this.usageMs() - before;
  }
}

export async function check(): Promise<PartResult> {
  const seconds = SETTINGS.quick ? 10 : 30;
  const spin = progress('check: making a loop-device disk');
  const disk = makeDisk(join(benchDir('check'), 'a'), 64);
  const group = new CpuGroup('check');
  const loop = plainLoop();
  // A smoke run's 10 s cannot reach CRITICAL, which check refuses without --allow-short.
  const checkArgs = [BIN, 'check', '--duration', `${seconds}s`, '--kv', disk.dir, ...(SETTINGS.quick ? ['--allow-short'] : [])];
  const loopArgs = [disk.dir, String((seconds * 1000) / INTERVAL_MS), String(INTERVAL_MS)];
  const checks: number[] = [];
  const loops: number[] = [];
  // What any check whose CLI is a Node process pays before it inspects anything: a bare
  // `node -e 0`, and the CLI with its code loaded and nothing run (`check --help`).
  const bareNodes: number[] = [];
  const loadedClis: number[] = [];
  for (let i = 0; i < SETTINGS.repeats; i += 1) {
    // Taking turns, so that neither is always the one after the other's writes.
    for (const which of i % 2 === 0 ? ['check', 'loop'] : ['loop', 'check']) {
      spin.set(`check: run ${i + 1}/${SETTINGS.repeats}, ${which}`);
      if (which === 'check') checks.push(await group.cpuOf(process.execPath, checkArgs));
      else loops.push(await group.cpuOf(loop, loopArgs));
      await sleep(1000);
    }
    bareNodes.push(await group.cpuOf(process.execPath, ['-e', '0']));
    loadedClis.push(await group.cpuOf(process.execPath, [BIN, 'check', '--help']));
  }
  spin.done('check');
  const ratios = checks.map((each, i) => each / loops[i]!);
  // The least a check with a Node CLI could cost: that bare Node, or the CLI loaded, beside a
  // prober that cost no more than the C loop.
  const beside = (values: number[]) => values.map((each, i) => (each + loops[i]!) / loops[i]!);
  const leastRatios = beside(bareNodes);
  const loadedRatios = beside(loadedClis);
  const P = 'check';
  const r = median(ratios);
  const runs = (values: number[]) => `${ms(median(values))} (${values.map(ms).join(', ')})`;
  return {
    rows: [
      row(P, `check --duration ${seconds}s, 1 disk: CPU of the whole tree, median (runs)`, runs(checks)),
      row(P, `the plain C loop, ${loopArgs[1]} inspections: CPU, median (runs)`, runs(loops)),
      row(P, 'check over the C loop, median of the pairs', `${ratio(r)}x`, `<= ${TARGET_RATIO.toFixed(1)}x`, r <= TARGET_RATIO),
      row(P, 'a bare `node -e 0`: CPU, median (runs)', runs(bareNodes)),
      row(P, 'the CLI loaded, nothing run (`check --help`): CPU, median (runs)', runs(loadedClis)),
      row(P, 'a Node CLI beside the C loop, over it: `node -e 0`; the CLI loaded', `${ratio(median(leastRatios))}x; ${ratio(median(loadedRatios))}x`),
    ],
    figures: { seconds, checkCpuMs: checks, loopCpuMs: loops, ratios, targetRatio: TARGET_RATIO, bareNodeCpuMs: bareNodes, loadedCliCpuMs: loadedClis, leastRatios, loadedRatios },
  };
}

if (isMain(import.meta.url)) await runParts([{ name: 'check', run: check }]);
