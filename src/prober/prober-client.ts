// The CLI's side of the prober: spawns it, talks to it, and never waits on it for long.
import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { fileURLToPath } from 'node:url';
import { PendingReplies } from '../common/pending-replies.js';
import type { ProbeParams } from './probe-params.js';
import type { FromProber, ProbeTarget, ToProber } from './protocol.js';

// Both src/prober and dist/prober sit two levels below the package root.
const CHILD_PATH = fileURLToPath(new URL('../../dist/prober/child.js', import.meta.url));
const STDERR_KEPT = 4096;

export interface ProberClientEvents {
  message: [FromProber];
  /** The prober ended without being asked to. */
  lost: [string];
}

export class ProberClient extends EventEmitter<ProberClientEvents> {
  private readonly child: ChildProcess;
  private stderrTail = '';
  private stopRequested = false;
  private exited = false;
  private readonly replacing = new PendingReplies();

  constructor(targets: ProbeTarget[], probe: ProbeParams) {
    super();
    // Detached: a Ctrl-C on the terminal reaches the CLI, which then stops the prober in
    // order; stdout is not inherited, so `out=$(slowdisk check)` returns when the CLI exits.
    this.child = fork(CHILD_PATH, [], {
      cwd: '/',
      detached: true,
      execArgv: [],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.child.unref();
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_KEPT);
    });
    (this.child.stderr as unknown as { unref?: () => void })?.unref?.();
    this.child.on('message', (message) => this.receive(message as FromProber));
    this.child.on('error', (error) => this.lose(error.message));
    this.child.on('exit', (code, signal) => {
      this.exited = true;
      this.replacing.failAll(new Error(this.endedText()));
      if (!this.stopRequested) {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        const detail = this.stderrTail.trim().split('\n').pop();
        this.lose(`the prober (pid ${this.child.pid}) ${how}${detail ? `: ${detail}` : ''}`);
      }
    });
    this.send({ type: 'configure', targets, probe });
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
    const pending = new Set(only);
    let recorded = leaving === undefined;
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.off('message', onMessage);
        this.child.off('exit', done);
        resolve();
      };
      const onMessage = (message: FromProber) => {
        if (message.type === 'released') pending.delete(message.name);
        if (message.type === 'stopping') recorded = true;
        if (message.type === 'stopped' || (only && pending.size === 0 && recorded)) done();
      };
      const timer = setTimeout(done, waitMs);
      this.on('message', onMessage);
      this.child.once('exit', done);
      this.send({ type: 'stop', ...(leaving === undefined ? {} : { leaving: [...leaving] }) });
    });
  }

  /**
   * Has the prober put `text` at dir/name atomically (an output file: the CLI makes no
   * syscall on its path). Rejects with the prober's error, or if it ends first; never settles
   * while the directory's disk hangs, so the caller bounds the wait.
   */
  replace(dir: string, name: string, text: string, mode: number): Promise<void> {
    if (this.exited || !this.child.connected) return Promise.reject(new Error(this.endedText()));
    return this.replacing.add((id) => this.child.send({ type: 'replace', id, dir, name, text, mode } satisfies ToProber));
  }

  /** Closes the channel without waiting; the prober then cleans up and exits by itself. */
  detach(): void {
    this.stopRequested = true;
    if (this.child.connected) this.child.disconnect();
  }

  private receive(message: FromProber): void {
    if (message.type !== 'replaced') {
      this.emit('message', message);
      return;
    }
    this.replacing.settle(message.id, message.error ? Object.assign(new Error(message.error.message), { code: message.error.code }) : null);
  }

  private endedText(): string {
    return `the prober (pid ${this.child.pid}) ended`;
  }

  private lose(reason: string): void {
    if (!this.stopRequested) this.emit('lost', reason);
  }
}
