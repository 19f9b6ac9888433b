// A directory's lock for one slowdisk run at a time (the drives' state directory). The lock
// names its run by PID and by the start time of that PID (from /proc/PID/stat), so that a lock
// left by a killed run is taken over even once its PID has been reused by another program,
// and a live slowdisk's lock is respected. It is written complete under a name nobody can
// guess, then linked into place: link(2) fails on any existing entry and never follows one.
import { readFileSync } from 'node:fs';
import { link, rename, rm, unlink } from 'node:fs/promises';
import { fsPath } from './path-text.js';
import path from 'node:path';
import { createExclusive, readRegular, temporaryName } from './exclusive-file.js';
import { processStartTime } from './process-start-time.js';

const MAGIC = 'slowdisk-lock';

/** A run, as its lock names it. */
export interface LockOwner {
  pid: number;
  /** Field 22 of /proc/PID/stat: clock ticks after boot; null where /proc has no such PID. */
  startTime: number | null;
}

/** Whether `pid` runs slowdisk: its command line runs bin/slowdisk.js or a `slowdisk` command. */
function runsSlowdisk(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.slice(0, 3).some((arg) => ['slowdisk', 'slowdisk.js'].includes(path.basename(arg)));
  } catch {
    return false;
  }
}

export function lockOwnerOf(pid: number): LockOwner {
  return { pid, startTime: processStartTime(pid) };
}

function encode(owner: LockOwner): string {
  return `${MAGIC} ${owner.pid} ${owner.startTime ?? '-'}\n`;
}

/** The owner a lock's text names; an older lock holds the PID alone. */
function decode(text: string): LockOwner | null {
  const match = new RegExp(`^(?:${MAGIC} )?(\\d+)(?: (\\d+|-))?\\s*$`).exec(text);
  if (!match) return null;
  return { pid: Number(match[1]), startTime: match[2] === undefined || match[2] === '-' ? null : Number(match[2]) };
}

/** Whether the run a lock names is still running: same PID, same start time, and slowdisk. */
export function holds(owner: LockOwner): boolean {
  const start = processStartTime(owner.pid);
  if (start === null) return false;
  if (owner.startTime !== null && start !== owner.startTime) return false;
  return runsSlowdisk(owner.pid);
}

export class LockHeldError extends Error {
  constructor(
    readonly lock: string,
    readonly holder: number,
  ) {
    super(`in use by process ${holder} (${lock})`);
    this.name = 'LockHeldError';
  }
}

/**
 * Takes `lock` for `owner`. A lock whose run is gone (or whose PID now runs something else)
 * is taken over; a live run's lock throws LockHeldError; a lock that is not a regular file
 * (a FIFO, a symlink) throws RefusedFileError and is left alone.
 */
export async function takeLock(lock: string, owner: LockOwner): Promise<void> {
  const dir = path.dirname(lock);
  const temp = path.join(dir, temporaryName(path.basename(lock)));
  const handle = await createExclusive(temp, 0o600);
  try {
    await handle.writeFile(encode(owner));
  } finally {
    await handle.close();
  }
  try {
    for (let attempt = 0; attempt < 2; attempt += 1) {
      try {
        await link(fsPath(temp), fsPath(lock));
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const text = await readRegular(lock);
      if (text === null) continue;
      const holder = decode(text);
      if (holder && holds(holder)) throw new LockHeldError(lock, holder.pid);
      // Left by a run that was killed, or not a slowdisk lock at all: taken over.
      await setAside(lock, text);
    }
    throw new Error(`${lock} keeps coming back`);
  } finally {
    await rm(fsPath(temp), { force: true });
  }
}

/**
 * Removes a stale lock whose text was `stale`. It is moved aside first and checked, so that
 * of two runs taking over the same stale lock at once, the second does not remove the lock
 * the first has just made: that one is linked back into place.
 */
async function setAside(lock: string, stale: string): Promise<void> {
  const aside = path.join(path.dirname(lock), temporaryName(`${path.basename(lock)}.stale`));
  try {
    await rename(fsPath(lock), fsPath(aside));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if ((await readRegular(aside).catch(() => null)) !== stale) await link(fsPath(aside), fsPath(lock)).catch(() => {});
  } finally {
    await rm(fsPath(aside), { force: true });
  }
}

/** Whether `lock` is `owner`'s still: a writer that took over from a dead one writes on its behalf. */
export async function isLockOf(lock: string, owner: LockOwner): Promise<boolean> {
  return (await readRegular(lock).catch(() => null)) === encode(owner);
}

/** Removes `lock` if it is still `owner`'s (never another run's that took it over). */
export async function releaseLock(lock: string, owner: LockOwner): Promise<void> {
  const text = await readRegular(lock).catch(() => null);
  if (text !== encode(owner)) return;
  await unlink(fsPath(lock)).catch(() => {});
}
