// What a probe file looks like to the stale scan, for planting look-alikes.
import { spawnSync } from 'node:child_process';
import { readFileSync, statSync, unlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { probeFiles } from './run-cli.js';

/** Who a probe file's header says made it, beyond its pid. */
export interface HeaderOrigin {
  /** 1: slowdisk before hosts, boots and PID namespaces were named (pid and time only). */
  version: 1 | 2;
  /** Seconds since the epoch. */
  created: number;
  host: string;
  bootId: string;
  pidNs: string;
}

/** This process's host name, boot id and PID namespace, as the prober writes them. */
export function thisOrigin(): HeaderOrigin {
  return {
    version: 2,
    created: Math.floor(Date.now() / 1000),
    host: os.hostname(),
    bootId: readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim(),
    pidNs: String(statSync('/proc/self/ns/pid').ino),
  };
}

/** The first block of a probe file made by `pid`, as the prober writes it (this host, boot and namespace unless told). */
export function probeHeader(pid: number, origin: Partial<HeaderOrigin> = {}): Buffer {
  const o = { ...thisOrigin(), ...origin };
  const text =
    o.version === 1
      ? `slowdisk probe file\nversion=1\npid=${pid}\ncreated=${o.created}\n`
      : `slowdisk probe file\nversion=2\npid=${pid}\ncreated=${o.created}\nhost=${o.host}\nboot_id=${o.bootId}\npid_ns=${o.pidNs}\ntoken=0123456789abcdef0123456789abcdef\n`;
  const block = Buffer.alloc(4096);
  block.write(text, 'latin1');
  return block;
}

/** The pid of a process that has exited. */
export function deadPid(): number {
  const { pid } = spawnSync('true');
  return pid!;
}

/**
 * Removes the live probe file in `dir` and puts `plant` at its name, as someone who can write
 * to the directory would; tried again when the prober made its file again in between.
 * Returns the name and the inode number the probe file had.
 */
export async function plantAtProbeName(dir: string, plant: (at: string) => void): Promise<{ name: string; ino: number }> {
  for (;;) {
    const [name] = probeFiles(dir);
    if (name === undefined) {
      await sleep(10);
      continue;
    }
    const at = path.join(dir, name);
    try {
      const { ino } = statSync(at);
      unlinkSync(at);
      plant(at);
      return { name, ino };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'EEXIST' && code !== 'ENOENT') throw error;
    }
  }
}

/** When this boot began, seconds since the epoch. */
export function bootTime(): number {
  return Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))![1]);
}
