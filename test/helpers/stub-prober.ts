// A prober that plays generated inspections on the session's clock, in the test's own process:
// the CLI forks the prober (PROBER_WITH_OUTPUTS, src/prober/prober-program.ts), and a test that mocks
// node:child_process with withStubProber gets this child instead. It speaks the prober's
// protocol (src/probe/prober-protocol.ts) to the real ProberClient, so the session, the run, the
// watchdog and the outputs run as they do live; only the timings are made up, each
// inspection's from a script, and they come when the schedule's clock (MONOTONIC_CLOCK,
// faked with the timers) reaches them. Directories are resolved for real (statx, realpath),
// which takes no time that a verdict reads; no probe file is made.
import { EventEmitter } from 'node:events';
import { MONOTONIC_CLOCK } from '../../src/common/monotonic-clock.js';
import { ProbeWorker, type ErrorFields, type ProbeError } from '../../src/native/addon.js';
import { OutputService } from '../../src/output/output-service.js';
import { PROBER_WITH_OUTPUTS } from '../../src/prober/prober-program.js';
import type { ToWriter } from '../../src/output/writer-protocol.js';
import type { BatchRecord, FromProber, Placement, ProberSchedule, ProbeTarget, ToProber } from '../../src/probe/prober-protocol.js';

/** One inspection, as the script makes it: its total in ms, a failure, or one that never ends (a hung disk). */
export type ScriptedInspection = number | { error: ErrorFields } | 'hang';

/** Each disk's inspection at each tick. */
export type ProbeScript = (name: string, tick: number) => ScriptedInspection;

/** Every inspection takes 1 ms: a healthy disk. */
export const HEALTHY: ProbeScript = () => 1;

/**
 * A trace `--record` wrote, as a script: each disk's inspection at each tick as recorded, a
 * failure by its errno name; a tick the trace holds no line for never ends (the recording
 * stopped there, or the disk never answered).
 */
export function recordedScript(traceText: string): ProbeScript {
  const byDisk = new Map<string, Map<number, ScriptedInspection>>();
  for (const text of traceText.split('\n')) {
    if (text === '') continue;
    const line = JSON.parse(text) as { tick?: number; disk?: string; ms?: number; error?: string };
    if (line.tick === undefined || line.disk === undefined) continue;
    const ticks = byDisk.get(line.disk) ?? new Map<number, ScriptedInspection>();
    byDisk.set(line.disk, ticks);
    ticks.set(line.tick, line.error === undefined ? line.ms! : { error: { code: line.error, errno: 0, syscall: '', path: '', message: line.error } });
  }
  return (name, tick) => byDisk.get(name)?.get(tick) ?? 'hang';
}

// One state per process, whatever module instance asks (a test's vi.resetModules makes new ones).
interface StubState {
  script: ProbeScript;
  children: StubProberChild[];
  nextPid: number;
}
const STATE_KEY = Symbol.for('slowdisk.test.stub-prober');
const state: StubState = ((globalThis as Record<symbol, StubState | undefined>)[STATE_KEY] ??= { script: HEALTHY, children: [], nextPid: 0 });

/** From now on, the probers started play `script`. */
export function playScript(script: ProbeScript): void {
  state.script = script;
}

/** Every stub prober started so far in this process (the last is the one running). */
export function stubProbers(): readonly StubProberChild[] {
  return state.children;
}

// Above the largest pid_max (2^22): a signal sent to it can never reach a real process.
const FIRST_PID = 2 ** 22 + 1;

interface PlacedDisk {
  placement: Placement;
  dir: string;
  /** The next tick to inspect. */
  tick: number;
  /** When the inspection before it ended. */
  freeAtMs: number;
  /** The first inspection makes the probe file. */
  made: boolean;
  hung: boolean;
}

/** The prober's child process, as ProberClient uses one; `sent` is every message the CLI sent it. */
export class StubProberChild extends EventEmitter {
  readonly pid = FIRST_PID + state.nextPid++;
  connected = true;
  readonly stderr = Object.assign(new EventEmitter(), { unref: () => {} });
  readonly sent: ToProber[] = [];
  private targets: ProbeTarget[] = [];
  private schedule: ProberSchedule | null = null;
  private readonly placed = new Map<string, PlacedDisk>();
  private batchTimer: ReturnType<typeof setTimeout> | undefined;
  private output: OutputService | null = null;
  private stopping = false;

  constructor(private readonly script: ProbeScript) {
    super();
    state.children.push(this);
  }

  unref(): void {}

  send(message: ToProber): boolean {
    if (!this.connected) return false;
    // Across a process, a copy, and later: never within the sender's call.
    const copy = structuredClone(message);
    void Promise.resolve().then(() => this.receive(copy));
    return true;
  }

  disconnect(): void {
    if (!this.connected) return;
    this.connected = false;
    this.end();
  }

  /** The prober dies now, as by kill -9. */
  kill(): void {
    this.connected = false;
    this.exit(null, 'SIGKILL');
  }

  private reply(message: FromProber): void {
    if (!this.connected) return;
    const copy = structuredClone(message);
    void Promise.resolve().then(() => this.connected && this.emit('message', copy));
  }

  private receive(message: ToProber): void {
    this.sent.push(message);
    if (message.type === 'hosted') {
      this.output ??= new OutputService((reply) => this.reply({ type: 'hosted', message: reply }));
      this.output.handle(message.message as ToWriter);
      return;
    }
    if (this.stopping) return;
    switch (message.type) {
      case 'configure':
        this.targets = message.targets;
        this.reply({ type: 'started' });
        return;
      case 'resolve':
        for (const name of message.names) this.resolve(name);
        return;
      case 'schedule':
        this.schedule = message.schedule;
        this.nextBatch();
        return;
      case 'place':
        this.place(message.disks, message.fromTick);
        return;
      case 'flush':
        this.batch();
        return;
      case 'stop':
        this.stopping = true;
        this.reply({ type: 'stopping' });
        for (const { name } of this.targets) this.reply({ type: 'released', name });
        this.reply({ type: 'stopped' });
        this.end();
        return;
    }
  }

  private resolve(name: string): void {
    const target = this.targets.find((each) => each.name === name);
    if (!target) return;
    const worker = new ProbeWorker(`stub-${name}`);
    worker
      .resolve(target.dir, target.resolvedDir)
      .then(
        (resolution) => this.reply({ type: 'resolved', name, resolution }),
        (error: unknown) => {
          const { code, errno, syscall, path, message } = error as ProbeError;
          this.reply({ type: 'resolved', name, error: { code, errno, syscall, path, message } });
        },
      )
      .finally(() => void worker.stop().catch(() => {}));
  }

  private place(disks: Placement[], fromTick: number): void {
    const wanted = new Set(disks.map((disk) => disk.name));
    for (const name of [...this.placed.keys()]) {
      if (wanted.has(name)) continue;
      this.placed.delete(name);
      this.reply({ type: 'released', name });
    }
    for (const placement of disks) {
      const known = this.placed.get(placement.name);
      if (known && known.placement.device === placement.device) continue;
      const dir = this.targets.find((target) => target.name === placement.name)?.dir ?? '/';
      this.placed.set(placement.name, { placement, dir, tick: fromTick, freeAtMs: 0, made: false, hung: false });
    }
  }

  private deadline(tick: number): number {
    return this.schedule!.startMs + tick * this.schedule!.intervalMs;
  }

  /** Every inspection over by now, in the order they ended. */
  private batch(): void {
    if (!this.schedule || this.stopping) return;
    const now = MONOTONIC_CLOCK.now();
    const records: { atMs: number; record: BatchRecord }[] = [];
    for (const [name, disk] of this.placed) {
      while (!disk.hung) {
        // A tick whose inspection could not start at its deadline starts at once, the ones it missed skipped.
        while (this.deadline(disk.tick + 1) <= disk.freeAtMs) disk.tick++;
        const startedMs = Math.max(this.deadline(disk.tick), disk.freeAtMs);
        if (startedMs > now) break;
        const inspection = this.script(name, disk.tick);
        if (inspection === 'hang') {
          disk.hung = true;
          break;
        }
        const totalMs = typeof inspection === 'number' ? inspection : 0;
        const atMs = startedMs + totalMs;
        if (atMs > now) break;
        const created = !disk.made;
        disk.made = true;
        if (typeof inspection === 'number' && !created) {
          const quarter = totalMs / 4;
          records.push({ atMs, record: [name, disk.tick, atMs, 0, quarter, 2 * quarter, quarter, 0, totalMs, startedMs, 0, 0] });
        } else {
          const timings = { openMs: 0, writeMs: totalMs / 4, syncMs: totalMs / 2, readMs: totalMs / 4, closeMs: 0, totalMs, waitMs: 0, startWaitMs: 0 };
          records.push({
            atMs,
            record: { kind: 'inspected', name, tick: disk.tick, atMs, ...(typeof inspection === 'number' ? { timings } : { error: inspection.error }), ...(created ? { created } : {}) },
          });
        }
        disk.freeAtMs = atMs;
        disk.tick++;
      }
    }
    records.sort((a, b) => a.atMs - b.atMs);
    this.reply({ type: 'batch', coveredMs: now, recordsJson: JSON.stringify(records.map(({ record }) => record)) });
  }

  /** Batches at startMs + n * flushPeriodMs + flushSlackMs, as the addon sends them. */
  private nextBatch(): void {
    const { startMs, flushPeriodMs, flushSlackMs } = this.schedule!;
    const n = Math.floor((MONOTONIC_CLOCK.now() - startMs - flushSlackMs) / flushPeriodMs) + 1;
    const at = startMs + n * flushPeriodMs + flushSlackMs;
    this.batchTimer = setTimeout(() => {
      this.batch();
      if (!this.stopping) this.nextBatch();
    }, Math.max(0, at - MONOTONIC_CLOCK.now()));
  }

  private end(): void {
    this.stopping = true;
    clearTimeout(this.batchTimer);
    this.exit(0, null);
  }

  private exit(code: number | null, signal: NodeJS.Signals | null): void {
    clearTimeout(this.batchTimer);
    void Promise.resolve().then(() => {
      this.connected = false;
      this.emit('exit', code, signal);
    });
  }
}

type Fork = typeof import('node:child_process').fork;

/**
 * node:child_process with fork giving a StubProberChild for the prober a run starts; anything
 * else forked is forked for real. For vi.mock('node:child_process', ...).
 */
export function withStubProber<T extends { fork: Fork }>(original: T): T {
  const fork = ((entry: string, ...rest: unknown[]) => {
    if (entry === PROBER_WITH_OUTPUTS.entry) return new StubProberChild(state.script);
    return (original.fork as (...args: unknown[]) => unknown)(entry, ...rest);
  }) as unknown as Fork;
  return { ...original, fork, default: { ...(original as { default?: object }).default, fork } };
}

/** Said the way the addon says it, for a script's failed inspection. */
export function probeFailure(code: string, syscall: string, path: string, message: string): { error: ErrorFields } {
  return { error: { code, errno: 0, syscall, path, message: `${code}: ${syscall} ${path} (${message})` } };
}

