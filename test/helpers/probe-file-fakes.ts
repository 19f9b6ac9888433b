// What a probe file looks like to the stale scan, for planting look-alikes.
import { spawnSync } from 'node:child_process';

/** The first block of a probe file made by `pid`, as the prober writes it. */
export function probeHeader(pid: number): Buffer {
  const text = `slowdisk probe file\nversion=1\npid=${pid}\ncreated=0\n`;
  const block = Buffer.alloc(4096);
  block.write(text, 'latin1');
  return block;
}

/** The pid of a process that has exited. */
export function deadPid(): number {
  const { pid } = spawnSync('true');
  return pid!;
}
