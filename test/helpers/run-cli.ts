// Runs the slowdisk bin as a user would, without npx (npx does not pass signals on).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

import { childPids } from '../../dev/process-tree.js';

export { childPids, groupPids } from '../../dev/process-tree.js';

export const BIN = fileURLToPath(new URL('../../bin/slowdisk.js', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** From spawn until stdout and stderr closed: what `out=$(slowdisk ...)` waits for. */
  elapsedMs: number;
}

export interface RunningCli {
  child: ChildProcess;
  /** Everything printed on stdout so far. */
  stdout(): string;
  /** Everything printed on stderr so far. */
  stderr(): string;
  done: Promise<CliResult>;
}

export interface CliOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run as this user and group instead of root, with no supplementary groups (setpriv execs, so the pid is the CLI's). */
  as?: { user: string; group: string };
}

export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const command = [process.execPath, BIN, ...args];
  if (options.as) command.unshift('setpriv', `--reuid=${options.as.user}`, `--regid=${options.as.group}`, '--clear-groups');
  return startCommand(command, options);
}

/** Any command (one that runs the CLI under unshare, prlimit, a cgroup ...), its output captured as startCli's. */
export function startCommand(command: string[], options: Pick<CliOptions, 'cwd' | 'env'> = {}): RunningCli {
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<CliResult>((resolve, reject) => {
    child.on('error', reject);
    // 'close' waits for the pipes: a prober that kept them open would show here.
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr, elapsedMs: performance.now() - started }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

export function runCommand(command: string[], env?: NodeJS.ProcessEnv): Promise<CliResult> {
  return startCommand(command, { env }).done;
}

/**
 * Resolves once `predicate` holds, polling; rejects after `timeoutMs`, saying what `seen`
 * shows then (what the run printed, say), which is what a reader of the failure needs.
 */
export async function waitFor(predicate: () => boolean | Promise<boolean>, timeoutMs: number, what: string, seen?: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await predicate())) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${seen ? `; ${seen()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Whether the pid is still taken: running, or ended and not yet reaped (a zombie). */
export function isAlive(pid: number): boolean {
  return existsSync(`/proc/${pid}`);
}

/**
 * Whether the process has ended, reaped or not. One whose parent died waits for PID 1 to reap
 * it, which here takes about a second; a test of a kill need not wait for that. What slowdisk
 * itself sees of a pid (a stale probe file's) is `isAlive`'s.
 */
export function hasEnded(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return true;
  }
  // The state follows the command's name, which is in parentheses and may hold any of them.
  const state = stat[stat.lastIndexOf(')') + 2];
  return state === 'Z' || state === 'X';
}

/** The prober a run started, once it has. */
export async function proberOf(cli: RunningCli): Promise<number> {
  await waitFor(() => childPids(cli.child.pid!).length > 0, 5000, 'the prober');
  return childPids(cli.child.pid!)[0]!;
}

/** The probe files slowdisk has in `dir` right now. */
export function probeFiles(dir: string): string[] {
  return readdirSync(dir).filter((name) => name.startsWith('.slowdisk-probe-'));
}

/**
 * The probe files left in `dir` once `prober` has ended. A run waits 2 s for its prober to
 * remove them; on a busy machine that can take longer, and the prober then removes them
 * after the run has gone.
 */
export async function probeFilesLeftBy(prober: number, dir: string): Promise<string[]> {
  await waitFor(() => hasEnded(prober), 30_000, 'the prober gone');
  return probeFiles(dir);
}

/** `--json` output, one object a line; of a running CLI's, the whole lines so far. */
export function jsonLines(stdout: string): Record<string, unknown>[] {
  return stdout
    .slice(0, stdout.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** stderr is one line matching `pattern`, nothing is on stdout, and the exit code is UNKNOWN. */
export function expectUnknown(result: CliResult, pattern: RegExp): void {
  expect(result.code).toBe(3);
  expect(result.stdout).toBe('');
  expect(result.stderr).toMatch(/^slowdisk: [^\n]+\n$/);
  expect(result.stderr).toMatch(pattern);
}
