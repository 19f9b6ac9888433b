// The CLI run in the test's own process, as `slowdisk ARGS` would run: its stdout and stderr
// captured, its exit code what it passed to process.exit, and what it printed after that
// dropped, as a process's would be. With the timers faked, a probe run's clock is virtual: a
// test file that mocks node:child_process with withStubProber (stub-prober.ts) probes with
// scripted inspections, and a minute of watch takes milliseconds. No Node start-up per run.
// What only a process shows (signals from outside, pipes that close, stdout a file) stays
// with run-cli.ts.
import { Writable } from 'node:stream';
import { vi } from 'vitest';
import type { CliResult } from './run-cli.js';

export interface InProcessOptions {
  cwd?: string;
  env?: Record<string, string>;
  /**
   * For watch: once what was printed satisfies this, the run gets SIGINT (as by Ctrl-C), as
   * often as it asks, until it exits.
   */
  interruptWhen?: (stdout: string) => boolean;
  /** How far the virtual clock may go before the run is taken as stuck. */
  maxVirtualMs?: number;
}

export interface InProcessResult extends CliResult {
  /** How far the run's clock went before it exited: 0 for a run that ended before any timer was due. */
  clockMs: number;
}

class Captured extends Writable {
  text = '';
  isTTY = false;
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, callback: () => void): void {
    this.text += chunk.toString();
    callback();
  }
}

/** What process.exit throws in a run: the process is gone from there on. */
class ExitCalled extends Error {}

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Virtual time a step of the clock: half a tick at the default interval; the run gets a turn of the event loop after each. */
const STEP_MS = 50;

const realSetImmediate = setImmediate;
const yieldToEventLoop = () => new Promise<void>((resolve) => realSetImmediate(resolve));

/** How long the clock waits, at most, for the file I/O a run has in flight. */
const IO_WAIT_MS = 5000;

/**
 * Until the run's file I/O in flight (an output written, a trace closed) is done: the run's
 * clock does not move meanwhile, as a real one would hardly have (else a check that closed
 * its trace ended seconds later on its clock, with more ticks charged).
 */
async function fileIoDone(): Promise<void> {
  const until = performance.now() + IO_WAIT_MS;
  while (process.getActiveResourcesInfo().some((resource) => resource.startsWith('FSReq')) && performance.now() < until) await yieldToEventLoop();
}

// One run at a time: a run owns the process's stdout, exit and timers.
let lastRun: Promise<unknown> = Promise.resolve();

/**
 * Runs `slowdisk ...args`; resolves when it has exited, with what it printed until then. The
 * run starts on fresh modules (a run's state, --format nagios say, never leaks into the next).
 * Runs asked for at once run one after the other (a describe.concurrent of them measured three
 * times slower than the same tests in order).
 */
export function runInProcess(args: string[], options: InProcessOptions = {}): Promise<InProcessResult> {
  const run = lastRun.then(() => runAlone(args, options));
  lastRun = run.catch(() => {});
  return run;
}

async function runAlone(args: string[], options: InProcessOptions): Promise<InProcessResult> {
  const stdout = new Captured();
  const stderr = new Captured();
  const saved = {
    stdout: Object.getOwnPropertyDescriptor(process, 'stdout')!,
    stderr: Object.getOwnPropertyDescriptor(process, 'stderr')!,
    cwd: process.cwd(),
    env: { ...process.env },
    exitCode: process.exitCode,
  };
  const listenersBefore = new Map<string, Set<(...args: unknown[]) => void>>();
  for (const event of [...SIGNALS, 'exit', 'beforeExit']) listenersBefore.set(event, new Set(process.listeners(event as NodeJS.Signals) as never[]));
  let exit: { code: number; stdout: string; stderr: string } | null = null;
  const exitSpy = vi.spyOn(process, 'exit').mockImplementation(((code?: number) => {
    exit ??= { code: code ?? 0, stdout: stdout.text, stderr: stderr.text };
    // The process would be gone: what called exit goes no further (else a replay read on, and
    // wrote into the next run's stderr).
    throw new ExitCalled();
  }) as typeof process.exit);
  // An exit called where nothing awaits it (a run's `void finish()`) rejects a promise no one
  // handles: that is the process ending, not an error of the test's.
  const rejectionListeners = process.listeners('unhandledRejection');
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', (reason, promise) => {
    if (!(reason instanceof ExitCalled)) for (const listener of rejectionListeners) listener(reason, promise);
  });
  Object.defineProperty(process, 'stdout', { configurable: true, enumerable: true, value: stdout });
  Object.defineProperty(process, 'stderr', { configurable: true, enumerable: true, value: stderr });
  Object.assign(process.env, options.env ?? {});
  if (options.cwd) process.chdir(options.cwd);
  const started = performance.now();
  let virtualMs = 0;
  // Only a probe run's clock is virtual: replay and analyze wait on no timer, and the fake Date
  // and hrtime they read at every tick made them three times slower.
  const probing = args[0] === 'watch' || args[0] === 'check';
  if (probing) vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date', 'hrtime', 'performance'] });
  try {
    vi.resetModules();
    const { main } = (await import('../../src/cli/main.js')) as typeof import('../../src/cli/main.js');
    let settled = false;
    let thrown: unknown;
    main(['node', 'slowdisk', ...args]).then(
      () => (settled = true),
      (error: unknown) => ((settled = true), (thrown = error instanceof ExitCalled ? undefined : error)),
    );
    // The start reads files and asks the prober: real I/O, on the real event loop.
    while (!settled && !exit) await yieldToEventLoop();
    if (thrown !== undefined && !exit) throw thrown;
    // A command that returns with nothing left to wait for ends as a process does when its
    // event loop is empty, with process.exitCode.
    if (!probing) for (let turn = 0; turn < 10 && !exit; turn++) await yieldToEventLoop();
    if (!exit && (!probing || vi.getTimerCount() === 0)) exit = { code: Number(process.exitCode ?? 0), stdout: stdout.text, stderr: stderr.text };
    const maxVirtualMs = options.maxVirtualMs ?? 10 * 60_000;
    let interrupts = 0;
    while (!exit) {
      if (virtualMs > maxVirtualMs) throw new Error(`no exit within ${maxVirtualMs} ms of the run's clock; stdout:\n${stdout.text}\nstderr:\n${stderr.text}`);
      if (options.interruptWhen?.(stdout.text) && interrupts++ === 0) signal('SIGINT', listenersBefore);
      await vi.advanceTimersByTimeAsync(STEP_MS).catch((error: unknown) => {
        if (!(error instanceof ExitCalled)) throw error;
      });
      virtualMs += STEP_MS;
      // What the run does between ticks off the clock (outputs written, a hook's child) comes back here.
      await yieldToEventLoop();
      await fileIoDone();
    }
  } finally {
    vi.useRealTimers();
    exitSpy.mockRestore();
    // Rejections still on their way (the event loop's next turn reports them) are the run's.
    await yieldToEventLoop();
    process.removeAllListeners('unhandledRejection');
    for (const listener of rejectionListeners) process.on('unhandledRejection', listener);
    Object.defineProperty(process, 'stdout', saved.stdout);
    Object.defineProperty(process, 'stderr', saved.stderr);
    for (const key of Object.keys(process.env)) if (!(key in saved.env)) delete process.env[key];
    Object.assign(process.env, saved.env);
    process.chdir(saved.cwd);
    process.exitCode = saved.exitCode;
    for (const [event, before] of listenersBefore) {
      for (const listener of process.listeners(event as NodeJS.Signals) as never[]) if (!before.has(listener)) process.off(event, listener);
    }
  }
  const ended = exit as { code: number; stdout: string; stderr: string } | null;
  return { code: ended!.code, signal: null, stdout: ended!.stdout, stderr: ended!.stderr, elapsedMs: performance.now() - started, clockMs: virtualMs };
}

/** Delivers `name` to the handlers the run installed, as the kernel would to the process. */
function signal(name: (typeof SIGNALS)[number], before: Map<string, Set<(...args: unknown[]) => void>>): void {
  for (const listener of process.listeners(name) as ((...args: unknown[]) => void)[]) if (!before.get(name)!.has(listener)) listener(name);
}
