// Keeps a prober running for a session. A prober that dies after it has answered an
// inspection is replaced at once: a long watch should outlive an OOM kill or a stray
// kill -9, and the new prober removes the dead one's probe files as stale. One that dies
// before it ever answered would only die again, so that is reported as lost.
import { EventEmitter } from 'node:events';
import type { ProbeParams } from './probe-params.js';
import { ProberClient } from './prober-client.js';
import type { FromProber, ProberProgram, ProbeTarget, ToProber } from './prober-protocol.js';

/**
 * The channel to what the session's prober process hosts beside the probes. A prober that
 * dies takes what it hosted with it; the one that replaces it hosts anew from its first message.
 */
export interface HostedChannel {
  /** False when no prober is there to take it. */
  send(message: unknown): boolean;
  onMessage(listener: (message: unknown) => void): void;
  /** A prober process ended (its reason names its pid and how). */
  onEnded(listener: (reason: string) => void): void;
}

export interface RestartingProberEvents {
  message: [FromProber];
  /** The prober died and was not replaced; the reason names its pid and how it ended. */
  lost: [string];
  /** The prober died and a new one took over, on the same schedule, nothing placed yet; inspections in flight will not come back. */
  restarted: [{ reason: string; pid: number | undefined }];
  hosted: [unknown];
  ended: [string];
}

export class RestartingProber extends EventEmitter<RestartingProberEvents> {
  private client: ProberClient;
  private answered = false;
  /** The schedule given: a new prober keeps it, and is placed anew by whoever listens to `restarted`. */
  private schedule: ToProber | null = null;

  constructor(
    private readonly program: ProberProgram,
    private readonly targets: ProbeTarget[],
    private readonly probe: ProbeParams,
  ) {
    super();
    this.client = this.spawn();
  }

  get pid(): number | undefined {
    return this.client.pid;
  }

  send(message: ToProber): void {
    if (message.type === 'schedule') this.schedule = message;
    this.client.send(message);
  }

  readonly hosted: HostedChannel = {
    send: (message) => this.client.sendHosted(message),
    onMessage: (listener) => this.on('hosted', listener),
    onEnded: (listener) => this.on('ended', listener),
  };

  /** See ProberClient.stop. */
  stop(waitMs: number, only?: readonly string[], leaving?: readonly string[]): Promise<void> {
    return this.client.stop(waitMs, only, leaving);
  }

  /** See ProberClient.detach. */
  detach(): void {
    this.client.detach();
  }

  private spawn(): ProberClient {
    const client = new ProberClient(this.program, this.targets, this.probe);
    this.answered = false;
    client.on('message', (message) => {
      // The addon writes a batch without records as exactly [].
      if (message.type === 'batch' && message.recordsJson !== '[]') this.answered = true;
      this.emit('message', message);
    });
    client.on('hosted', (message) => this.emit('hosted', message));
    client.on('ended', (reason) => this.emit('ended', reason));
    client.on('lost', (reason) => client === this.client && this.onLost(reason));
    return client;
  }

  private onLost(reason: string): void {
    if (!this.answered) {
      this.emit('lost', reason);
      return;
    }
    this.client = this.spawn();
    if (this.schedule) this.client.send(this.schedule);
    this.emit('restarted', { reason, pid: this.client.pid });
  }
}
