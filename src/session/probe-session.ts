// Probe orchestration in the CLI process: owns the clock and the scores, sends inspections
// to the prober, and re-resolves the layout every round so that no view of a disk or of
// the mount table goes stale. It never makes a syscall on a disk under test.
import { EventEmitter } from 'node:events';
import { placeDisks, layoutChanged, type DiskPlacement } from '../layout/disk-layout.js';
import { MountTable } from '../mounts/mount-table.js';
import type { ProbeParams, ScoreParams } from '../params.js';
import { ProberClient } from '../prober/prober-client.js';
import type { FromProber, PhaseTimings, ProbeTarget, Resolution, SerializedProbeError } from '../prober/protocol.js';
import { reportedScore } from '../score/store-score.js';
import { InspectionTicker, MONOTONIC_CLOCK } from '../ticks/inspection-ticker.js';
import { StoreTicks } from '../ticks/store-ticks.js';

export type DiskState = 'starting' | 'up' | 'down' | 'skipped';

export interface DiskStatus extends DiskPlacement {
  state: DiskState;
  score: number;
  /** The last inspection that completed. */
  last?: PhaseTimings;
  /** Why the disk is down. */
  error?: SerializedProbeError;
  /** How long the inspection in flight has been running, once it has missed its tick. */
  waitingMs?: number;
  inspections: number;
  errors: number;
}

export interface RoundReport {
  tick: number;
  elapsedMs: number;
  storeScore: number;
  reportedScore: number;
  disks: DiskStatus[];
}

export type SessionEvent =
  | { kind: 'down'; disk: string; error: SerializedProbeError }
  | { kind: 'back'; disk: string }
  | { kind: 'layout'; disks: DiskPlacement[] }
  | { kind: 'stale-removed'; disk: string; paths: string[] };

/** One inspection as it came back: what the recorder and the detectors consume. */
export interface InspectionRecord {
  tick: number;
  disk: string;
  timings?: PhaseTimings;
  error?: SerializedProbeError;
  /** It finished under the interval but reached the CLI after its tick had ended: charged. */
  late: boolean;
  /** Wall-clock time it arrived, ms since the epoch. */
  wallMs: number;
}

export interface SessionEvents {
  round: [RoundReport];
  inspection: [InspectionRecord];
  event: [SessionEvent];
  /** The run cannot go on: a path that cannot be probed at start, or a lost prober. */
  fatal: [string];
}

interface DiskRecord {
  status: DiskStatus;
  inFlightSinceMs: number | null;
  /** Whether any inspection of this disk has completed or failed yet. */
  attempted: boolean;
}

export class StartupError extends Error {}

const RESOLVE_TIMEOUT_MS = 5000;

export class ProbeSession extends EventEmitter<SessionEvents> {
  private readonly ticks: StoreTicks;
  private readonly ticker: InspectionTicker;
  private readonly disks = new Map<string, DiskRecord>();
  private readonly resolutions = new Map<string, Resolution>();
  private readonly resolving = new Set<string>();
  private layout: DiskPlacement[] = [];

  private constructor(
    private readonly targets: ProbeTarget[],
    private readonly score: ScoreParams,
    private readonly prober: ProberClient,
  ) {
    super();
    this.ticks = new StoreTicks(score);
    this.ticker = new InspectionTicker(score.intervalMs, (_index, scheduled) => this.onTick(scheduled));
    prober.on('message', (message) => this.onMessage(message));
    prober.on('lost', (reason) => this.emit('fatal', reason));
  }

  /** Starts the prober and resolves every path; a path that does not exist fails here. */
  static async open(targets: ProbeTarget[], score: ScoreParams, probe: ProbeParams): Promise<ProbeSession> {
    const session = new ProbeSession(targets, score, new ProberClient(targets, probe));
    try {
      await session.resolveAtStart();
    } catch (error) {
      await session.prober.stop(1000);
      throw error;
    }
    return session;
  }

  get currentTick(): number {
    return this.ticks.currentTick;
  }

  start(): void {
    this.ticker.start();
  }

  /**
   * Stops ticking and asks the prober to remove its probe files. Waits for that unless a
   * disk is hung (an inspection has missed its tick), so a stuck disk never holds up exit.
   */
  async stop(): Promise<void> {
    this.ticker.stop();
    const now = MONOTONIC_CLOCK.now();
    const hung = [...this.disks.values()].some(
      (disk) => disk.inFlightSinceMs !== null && now - disk.inFlightSinceMs > this.score.intervalMs,
    );
    if (hung) {
      this.prober.detach();
      return;
    }
    await this.prober.stop(2000);
  }

  statuses(): DiskStatus[] {
    const now = MONOTONIC_CLOCK.now();
    return [...this.disks.values()].map((disk) => {
      const status = { ...disk.status, score: this.ticks.scoreOf(disk.status.name) ?? 1 };
      const running = disk.inFlightSinceMs === null ? 0 : now - disk.inFlightSinceMs;
      if (running > this.score.intervalMs) status.waitingMs = running;
      return status;
    });
  }

  private async resolveAtStart(): Promise<void> {
    const pending = new Map<string, (message: FromProber & { type: 'resolved' }) => void>();
    const results = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => resolve(), RESOLVE_TIMEOUT_MS);
      const onMessage = (message: FromProber) => {
        if (message.type !== 'resolved') return;
        pending.get(message.name)?.(message);
        pending.delete(message.name);
        if (pending.size === 0) {
          clearTimeout(timer);
          this.prober.off('message', onMessage);
          resolve();
        }
      };
      this.prober.on('message', onMessage);
      this.prober.on('lost', (reason) => reject(new StartupError(reason)));
    });
    const failures: string[] = [];
    for (const { name, dir } of this.targets) {
      pending.set(name, (message) => {
        if (message.error) failures.push(`${name}=${dir}: ${describeError(message.error)}`);
      });
      this.prober.send({ type: 'resolve', name });
    }
    await results;
    if (failures.length > 0) throw new StartupError(`cannot probe ${failures.join('; ')}`);
    // Resolutions recorded by onMessage; a path that did not answer in time is inspected
    // as its own disk until it does.
    this.applyLayout(false);
  }

  /** `sinceStartMs`: the tick's scheduled time, the clock the scores run on. */
  private onTick(sinceStartMs: number): void {
    const tick = this.ticks.tick(sinceStartMs);
    const now = MONOTONIC_CLOCK.now();
    for (const name of tick.start) {
      const disk = this.disks.get(name);
      if (disk) disk.inFlightSinceMs = now;
      this.prober.send({ type: 'inspect', name, tick: tick.tickId });
    }
    if (!tick.updated) return;
    this.resolveAll();
    this.emitRound(tick.tickId, sinceStartMs);
  }

  private emitRound(tick: number, sinceStartMs: number): void {
    const storeScore = this.ticks.storeScore();
    this.emit('round', {
      tick,
      elapsedMs: sinceStartMs,
      storeScore,
      reportedScore: reportedScore(storeScore),
      disks: this.statuses(),
    });
  }

  private resolveAll(): void {
    for (const { name } of this.targets) {
      // A path whose last statx has not come back (a hung filesystem) is not asked again.
      if (this.resolving.has(name)) continue;
      this.resolving.add(name);
      this.prober.send({ type: 'resolve', name });
    }
  }

  private onMessage(message: FromProber): void {
    switch (message.type) {
      case 'resolved':
        this.resolving.delete(message.name);
        if (message.resolution) this.resolutions.set(message.name, message.resolution);
        if (this.layout.length > 0) this.applyLayout(true);
        return;
      case 'inspected':
        this.onInspected(message);
        return;
      case 'released':
      case 'stopped':
        return;
    }
  }

  private onInspected(message: FromProber & { type: 'inspected' }): void {
    const disk = this.disks.get(message.name);
    if (!disk) return;
    if (this.ticks.inFlightTick(message.name) === message.tick) disk.inFlightSinceMs = null;
    const firstAttempt = !disk.attempted;
    disk.attempted = true;
    const status = disk.status;
    if (message.staleRemoved) this.emit('event', { kind: 'stale-removed', disk: message.name, paths: message.staleRemoved });
    if (message.timings) {
      const counted = this.ticks.finished(message.name, message.tick, message.timings.totalMs);
      const late = !counted && message.timings.totalMs < this.score.intervalMs;
      this.emit('inspection', { tick: message.tick, disk: message.name, timings: message.timings, late, wallMs: Date.now() });
      status.last = message.timings;
      status.inspections += 1;
      const wasDown = status.state === 'down';
      status.state = 'up';
      delete status.error;
      if (wasDown) this.emit('event', { kind: 'back', disk: message.name });
      return;
    }
    const error = message.error!;
    this.ticks.failed(message.name, message.tick);
    this.emit('inspection', { tick: message.tick, disk: message.name, error, late: false, wallMs: Date.now() });
    status.errors += 1;
    if (firstAttempt) {
      this.emit('fatal', `cannot probe ${message.name}=${status.dir}: ${describeError(error, status)}`);
      return;
    }
    const changed = status.state !== 'down' || status.error?.code !== error.code;
    status.state = 'down';
    status.error = error;
    if (changed) this.emit('event', { kind: 'down', disk: message.name, error });
  }

  /** Recomputes which paths are inspected; tells the outputs when anything changed. */
  private applyLayout(announce: boolean): void {
    const next = placeDisks(this.targets, this.resolutions, MountTable.read());
    if (!layoutChanged(this.layout, next) && this.disks.size > 0) return;
    for (const placement of next) {
      const disk = this.disks.get(placement.name);
      const state: DiskState = placement.inspected ? 'starting' : 'skipped';
      if (!disk) {
        this.disks.set(placement.name, {
          status: { ...placement, state, score: 1, inspections: 0, errors: 0 },
          inFlightSinceMs: null,
          attempted: !placement.inspected,
        });
        continue;
      }
      const wasInspected = disk.status.inspected;
      if (placement.inspected) delete disk.status.sameAs;
      Object.assign(disk.status, placement);
      if (placement.inspected && !wasInspected) {
        disk.status.state = 'starting';
      } else if (!placement.inspected && wasInspected) {
        disk.status.state = 'skipped';
        delete disk.status.error;
        disk.inFlightSinceMs = null;
        this.prober.send({ type: 'release', name: placement.name });
      }
    }
    this.layout = next;
    this.ticks.setInspected(
      next.filter((placement) => placement.inspected).map((placement) => placement.name),
      this.ticks.currentTick * this.score.intervalMs,
    );
    if (announce) this.emit('event', { kind: 'layout', disks: next });
  }
}

/** One line that keeps the errno name, the syscall and the path, and says what to do. */
export function describeError(error: SerializedProbeError, placement?: DiskPlacement): string {
  if (error.code === 'EINVAL' && error.syscall === 'open' && placement?.mount) {
    const { fsType, mountPoint } = placement.mount;
    return `the ${fsType} filesystem at ${mountPoint} refuses O_DIRECT (EINVAL: open ${error.path}); --buffered probes it through the page cache instead`;
  }
  if (error.code === 'ELOOP' && error.syscall === 'open') {
    return `refusing to follow a symbolic link at the probe file's name (ELOOP: open ${error.path})`;
  }
  return error.message;
}
