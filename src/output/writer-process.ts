// The output writer as a process of its own (writer-child.ts), for a run without probes.
// Detached and unreferenced, as the prober: Ctrl-C reaches the CLI alone, and the CLI's exit
// never waits for it. At the end of the run one still stuck on a hung disk is killed by PID;
// it dies when its disk lets it, having renamed nothing into place.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FromWriter, ToWriter } from './protocol.js';
import type { WriterLink } from './output-writer.js';
import { OUTPUT_THREADS } from './output-threads.js';

// Both src/output and dist/output sit two levels below the package root.
const CHILD_PATH = fileURLToPath(new URL('../../dist/output/writer-child.js', import.meta.url));

export class WriterProcess implements WriterLink {
  private readonly child: ChildProcess;
  private ended = false;

  constructor() {
    this.child = fork(CHILD_PATH, [], {
      cwd: '/',
      detached: true,
      execArgv: [],
      env: { ...process.env, UV_THREADPOOL_SIZE: OUTPUT_THREADS },
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      // A drive history holds NaN.
      serialization: 'advanced',
    });
    this.child.unref();
    this.child.channel?.unref();
  }

  send(message: ToWriter): boolean {
    if (this.ended || !this.child.connected) return false;
    this.child.send(message);
    return true;
  }

  onReply(listener: (message: FromWriter) => void): void {
    this.child.on('message', (message) => listener(message as FromWriter));
  }

  onEnded(listener: (reason: string) => void): void {
    // A send to a writer that just died fails too (EPIPE): its exit, which follows, says how it ended.
    this.child.on('error', (error) => this.child.pid === undefined && listener(`the output writer could not run: ${error.message}`));
    this.child.on('exit', (code, signal) => listener(`the output writer (pid ${this.child.pid}) ${signal ? `was killed by ${signal}` : `exited with code ${code}`}`));
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
}
