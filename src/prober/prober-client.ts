// The CLI's side of the session's prober: spawns it, talks to it, never waits on it for
// long, and keeps one running. A prober that dies after it has answered an inspection is
// replaced at once: a long watch should outlive an OOM kill or a stray kill -9, and the new
// prober removes the dead one's probe files as stale. One that dies before it ever answered
// would only die again, so that is reported as lost.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { TaskLimitWatch } from '../common/task-limit.js';
import type { HostedChannel } from '../output/output-writer.js';
import type { ProbeParams } from '../probe/probe-params.js';
import { EXIT_NO_ADDON, type FromProber, type ProberProgram, type ProbeTarget, type ToProber } from '../probe/prober-protocol.js';
import { MONOTONIC_CLOCK } from '../common/monotonic-clock.js';

const STDERR_KEPT = 4096;

/**
 * How long a prober may take to start (Node's start-up, loading the program) before it is
 * taken for one that cannot: Node waits forever for a thread the kernel refused it.
 */
export const PROBER_START_MS = 20_000;

export interface ProberClientEvents {
  message: [FromProber];
  /** The prober died and was not replaced; the reason names its pid and how it ended. */
  lost: [string];
  /** The prober died and a new one took over, on the same schedule, nothing placed yet; inspections in flight will not come back. */
  restarted: [{ reason: string; pid: number | undefined }];
  hosted: [unknown];
  ended: [string];
}

export class ProberClient extends EventEmitter<ProberClientEvents> {
  private child: ProberChild;
  private answered = false;
  /** The schedule given: a new prober keeps it, and is placed anew by whoever listens to `restarted`. */
  private schedule: ToProber | null = null;

  constructor(
    private readonly program: ProberProgram,
    private readonly targets: ProbeTarget[],
    private readonly probe: ProbeParams,
  ) {
    super();
    this.child = this.spawn();
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: ToProber): void {
    if (message.type === 'schedule') this.schedule = message;
    this.child.send(message);
  }

  readonly hosted: HostedChannel = {
    send: (message) => this.child.sendHosted(message),
    onMessage: (listener) => this.on('hosted', listener),
    onEnded: (listener) => this.on('ended', listener),
  };

  /** See ProberChild.stop. */
  stop(waitMs: number, only?: readonly string[], leaving?: readonly string[]): Promise<void> {
    return this.child.stop(waitMs, only, leaving);
  }

  /** See ProberChild.detach. */
  detach(): void {
    this.child.detach();
  }

  private spawn(): ProberChild {
    this.answered = false;
    const child: ProberChild = new ProberChild(this.program, this.targets, this.probe, {
      message: (message) => {
        // The addon writes a batch without records as exactly [].
        if (message.type === 'batch' && message.recordsJson !== '[]') this.answered = true;
        this.emit('message', message);
      },
      hosted: (message) => this.emit('hosted', message),
      ended: (reason) => this.emit('ended', reason),
      lost: (reason) => child === this.child && this.onLost(reason),
    });
    return child;
  }

  private onLost(reason: string): void {
    if (!this.answered) {
      this.emit('lost', reason);
      return;
    }
    this.child = this.spawn();
    if (this.schedule) this.child.send(this.schedule);
    this.emit('restarted', { reason, pid: this.child.pid });
  }
}

/** What one prober process tells its client. */
interface ChildHandlers {
  message(message: FromProber): void;
  /** A message from what the prober process hosts. */
  hosted(message: unknown): void;
  /** The prober process ended, asked to or not: what it hosted is gone with it. */
  ended(reason: string): void;
  /** The prober ended without being asked to. */
  lost(reason: string): void;
}

/** One prober process: spawned, talked to, stopped; never waited on for long. */
class ProberChild {
  private readonly child: ChildProcess;
  private stderrTail = '';
  private stopRequested = false;
  private exited = false;
  private started = false;
  /** Why the prober was killed before it started: the reason its end is told with. */
  private startFailure: string | null = null;

  /** Who waits for a stop's answers, besides the handlers. */
  private readonly stopListeners = new Set<(message: FromProber) => void>();

  constructor(
    program: ProberProgram,
    targets: ProbeTarget[],
    probe: ProbeParams,
    private readonly handlers: ChildHandlers,
  ) {
    const limit = new TaskLimitWatch();
    // Detached: a Ctrl-C on the terminal reaches the CLI, which then stops the prober in
    // order; stdout is not inherited, so `out=$(slowdisk check)` returns when the CLI exits.
    this.child = fork(program.entry, [], {
      cwd: '/',
      detached: true,
      execArgv: [],
      env: { ...process.env, ...program.env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
    });
    this.child.unref();
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_KEPT);
    });
    (this.child.stderr as unknown as { unref?: () => void })?.unref?.();
    this.child.on('message', (message) => this.receive(message as FromProber));
    // A send to a prober that just died fails too (EPIPE): its exit, which follows, says how it ended.
    this.child.on('error', (error) => this.child.pid === undefined && this.lose(error.message));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      const detail = this.stderrTail.trim().split('\n').pop();
      // Without its addon the prober cannot probe anything: its own line says which file and why.
      const reason = this.startFailure ?? (code === EXIT_NO_ADDON && detail ? detail : `the prober (pid ${this.child.pid}) ${how}${detail ? `: ${detail}` : ''}`);
      this.handlers.ended(reason);
      if (!this.stopRequested) this.lose(reason);
    });
    this.send({ type: 'configure', targets, probe });
    this.watchStart(limit);
  }

  /**
   * A prober refused a thread or a process (a cgroup's pids.max, ulimit -u) waits forever in
   * Node's start-up: killed, so that nothing is left behind, and its end told with the reason.
   */
  private watchStart(limit: TaskLimitWatch): void {
    const startedAt = MONOTONIC_CLOCK.now();
    const timer = setInterval(() => {
      if (this.started || this.exited) {
        clearInterval(timer);
        return;
      }
      const refused = limit.refusedSince();
      if (refused === null && MONOTONIC_CLOCK.now() - startedAt < PROBER_START_MS) return;
      clearInterval(timer);
      this.startFailure = refused
        ? `the prober (pid ${this.child.pid}) could not make its threads: ${refused}`
        : `the prober (pid ${this.child.pid}) did not start within ${PROBER_START_MS / 1000} s: are too few processes or threads allowed (ulimit -u, a cgroup's pids.max)?`;
      this.kill();
    }, 100);
    timer.unref();
  }

  private kill(): void {
    try {
      process.kill(this.child.pid!, 'SIGKILL');
    } catch {
      // Gone already: its exit tells.
    }
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  send(message: ToProber): void {
    if (this.child.connected) this.child.send(message);
  }

  /**
   * Asks the prober to remove its probe files and exit, and waits for that at most
   * `waitMs`; with `only`, waits only until those paths' files are removed, and until the
   * prober has recorded the others as stuck. A prober stuck on a hung disk finishes on its
   * own once the disk lets it.
   */
  stop(waitMs: number, only?: readonly string[], leaving?: readonly string[]): Promise<void> {
    this.stopRequested = true;
    if (this.exited || !this.child.connected) return Promise.resolve();
    // One that never started has made no probe file, and would never read the stop.
    if (!this.started) {
      this.kill();
      return Promise.resolve();
    }
    const pending = new Set(only);
    let recorded = leaving === undefined;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.stopListeners.delete(onMessage);
        this.child.off('exit', done);
        resolve();
      };
      const onMessage = (message: FromProber) => {
        if (message.type === 'released') pending.delete(message.name);
        if (message.type === 'stopping') recorded = true;
        if (message.type === 'stopped' || (only && pending.size === 0 && recorded)) done();
      };
      const timer = setTimeout(done, waitMs);
      this.stopListeners.add(onMessage);
      this.child.once('exit', done);
      this.send({ type: 'stop', ...(leaving === undefined ? {} : { leaving: [...leaving] }) });
    });
  }

  /** A message for what the prober process hosts; dropped once the prober is gone. */
  sendHosted(message: unknown): boolean {
    if (this.exited || !this.child.connected) return false;
    this.child.send({ type: 'hosted', message } satisfies ToProber);
    return true;
  }

  /** Closes the channel without waiting; the prober then cleans up and exits by itself. */
  detach(): void {
    this.stopRequested = true;
    if (!this.started) this.kill();
    if (this.child.connected) this.child.disconnect();
  }

  private receive(message: FromProber): void {
    if (message.type === 'started') {
      this.started = true;
      return;
    }
    if (message.type === 'hosted') {
      this.handlers.hosted(message.message);
      return;
    }
    for (const listener of this.stopListeners) listener(message);
    this.handlers.message(message);
  }

  private lose(reason: string): void {
    if (!this.stopRequested) this.handlers.lost(reason);
  }
}
