// The output writer as a process of its own (writer-child.ts), for a run without probes.
// Detached and unreferenced, as the prober: Ctrl-C reaches the CLI alone, and the CLI's exit
// never waits for it. One that dies during the run (an OOM kill, a stray kill -9) is replaced
// at once, as a prober is: what it had under way is lost, the later writes go to the new one.
// At the end of the run one still stuck on a hung disk is killed by PID; it dies when its disk
// lets it, having renamed nothing into place.
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FromWriter, ToWriter, WriterLink } from './writer-protocol.js';
import { OUTPUT_THREADS } from './output-params.js';
import { PACKAGE_ROOT } from '../common/package-root.js';

// Built and bundled by dev/build/bundle.ts.
const CHILD_PATH = path.join(PACKAGE_ROOT, 'dist/bundle/writer-child.js');

export class WriterProcess implements WriterLink {
  private child: ChildProcess;
  private ended = false;
  private readonly replyListeners: ((message: FromWriter) => void)[] = [];
  private readonly endListeners: ((reason: string, replacedBy?: number) => void)[] = [];

  constructor() {
    this.child = this.spawn();
  }

  send(message: ToWriter): boolean {
    if (this.ended || !this.child.connected) return false;
    this.child.send(message);
    return true;
  }

  onReply(listener: (message: FromWriter) => void): void {
    this.replyListeners.push(listener);
  }

  onEnded(listener: (reason: string, replacedBy?: number) => void): void {
    this.endListeners.push(listener);
  }

  end(stuck: boolean): void {
    if (stuck && this.child.pid !== undefined && this.child.exitCode === null) {
      try {
        process.kill(this.child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    this.ended = true;
    if (this.child.connected) this.child.disconnect();
  }

  private spawn(): ChildProcess {
    const child = fork(CHILD_PATH, [], {
      cwd: '/',
      detached: true,
      execArgv: [],
      env: { ...process.env, UV_THREADPOOL_SIZE: OUTPUT_THREADS },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      // A drive history holds NaN.
      serialization: 'advanced',
    });
    child.unref();
    child.channel?.unref();
    child.on('message', (message) => {
      for (const listener of this.replyListeners) listener(message as FromWriter);
    });
    // A send to a writer that just died fails too (EPIPE): its exit, which follows, says how it ended.
    child.on('error', (error) => child.pid === undefined && this.lost(child, `the output writer could not run: ${error.message}`));
    child.on('exit', (code, signal) => this.lost(child, `the output writer (pid ${child.pid}) ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`));
    return child;
  }

  /** One that could not even start would only fail again: not replaced. */
  private lost(child: ChildProcess, reason: string): void {
    if (child !== this.child) return;
    const replace = !this.ended && child.pid !== undefined;
    if (replace) this.child = this.spawn();
    for (const listener of this.endListeners) listener(reason, replace ? this.child.pid : undefined);
  }
}
