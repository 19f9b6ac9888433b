// Each disk of a live session as its results say it is: starting, up, down or contested, told
// to the outputs when that changes, and each result handed to the verdict pipeline. A disk
// whose placement changes (skipped, inspected again, another filesystem mounted onto its
// directory) starts over here.
import type { DiskPlacement } from '../layout/disk-layout.js';
import { describeFilesystem, identityOf, type FilesystemChange } from '../layout/filesystem-memory.js';
import { wallOf } from '../common/monotonic-clock.js';
import type { InspectedRecord, PhaseTimings, Placement, SerializedProbeError } from '../probe/prober-protocol.js';
import type { StuckProber } from '../prober/prober-registry.js';
import { isUnwritable } from '../verdict/down-verdict.js';
import type { HungDisk, VerdictPipeline } from '../verdict/verdict-pipeline.js';
import type { DiskState, DiskStatus, InspectionRecord, SessionEvent } from './session-events.js';
import { readOnlyBindAt } from '../mounts/read-only-bind.js';
import { readOnlyBindError, shownError } from './shown-error.js';

export interface DiskRecord {
  status: DiskStatus;
  /** The prober of an earlier run stuck on this disk's filesystem: no inspection is started there while it is. */
  stuckProber: StuckProber | null;
  /** Whether any inspection of this disk has completed or failed yet. */
  attempted: boolean;
  /** Its last tick was lost: its probe file's name was taken, and no fresh file was inspected since. */
  losing: boolean;
  /** Each probe file made in its directory has had its name taken: nothing of it is seen until one is inspected. */
  contested: boolean;
  /**
   * The wall-clock start of its inspection in flight, read once: the wall clock less the
   * monotonic one moves by fractions of a millisecond between readings, and the event and
   * every line after it must name the same start.
   */
  hungWall?: { sinceMs: number; wallMs: number };
}

/** Where the disks' news goes: the session's listeners. */
export interface DiskNews {
  event(event: SessionEvent): void;
  inspection(record: InspectionRecord): void;
  /** The run cannot go on. */
  fatal(message: string): void;
  /** The disk's directory is to be resolved anew. */
  resolve(name: string): void;
}

/**
 * When a hung disk's inspection started, on the wall clock, from when the pipeline has it
 * start (`sinceMs`, on the schedule's clock); one left to an earlier run's prober, since
 * that prober got stuck, as its registry entry says.
 */
export function hungSinceWallMs(disk: DiskRecord, sinceMs: number): number {
  if (disk.stuckProber) return disk.stuckProber.stuckSinceMs;
  if (disk.hungWall?.sinceMs !== sinceMs) disk.hungWall = { sinceMs, wallMs: wallOf(sinceMs) };
  return disk.hungWall.wallMs;
}

export class LiveDisks {
  private readonly records = new Map<string, DiskRecord>();

  constructor(
    private readonly pipeline: VerdictPipeline,
    private readonly news: DiskNews,
    /** Whether the mount at a mount point is a read-only bind: an EROFS there is not the disk's. */
    private readonly isReadOnlyBind: (mountPoint: string) => boolean = (mountPoint) => readOnlyBindAt(mountPoint),
  ) {}

  all(): IterableIterator<DiskRecord> {
    return this.records.values();
  }

  forEach(each: (disk: DiskRecord) => void): void {
    this.records.forEach((disk) => each(disk));
  }

  /** The disks the prober inspects: those inspected, but for any left to an earlier run's stuck prober. */
  placements(): Placement[] {
    return [...this.records.values()]
      .filter((disk) => disk.status.inspected && disk.stuckProber === null)
      .map(({ status: { name, device } }) => ({ name, ...(device === undefined ? {} : { device }) }));
  }

  /** The disks whose inspection in flight at `nowMs` has missed its tick, but for those left to a stuck prober. */
  waiting(nowMs: number): string[] {
    return [...this.records.values()]
      .filter((disk) => disk.stuckProber === null && this.pipeline.disk(disk.status.name, nowMs)?.waitingMs !== undefined)
      .map((disk) => disk.status.name);
  }

  /** This run's prober died: what it had in flight will never come back. */
  abandonInFlight(): void {
    for (const disk of this.records.values()) {
      // A disk left to an earlier run's prober stays so: this run's prober had nothing in flight there.
      if (!disk.stuckProber) this.pipeline.abandoned(disk.status.name);
    }
  }

  /** One event per hang, on the first tick at which it reaches --hang-after. */
  announceHung({ disk: name, waitingMs, sinceMs }: HungDisk): void {
    const disk = this.records.get(name);
    if (!disk) return;
    const stuckProber = disk.stuckProber?.pid;
    this.news.event({ kind: 'hung', disk: name, sinceMs: hungSinceWallMs(disk, sinceMs), waitingMs, ...(stuckProber === undefined ? {} : { stuckProber }) });
  }

  /** An inspection that completed; `wallOffset` turns its clock reading into the wall clock's. */
  timed(name: string, tick: number, atMs: number, timings: PhaseTimings, wallOffset: number, told: boolean): void {
    const disk = this.records.get(name);
    // A skipped path's last inspection, come back after its release, says nothing of it.
    if (!disk?.status.inspected) return;
    disk.attempted = true;
    const status = disk.status;
    const wasContested = disk.contested;
    disk.losing = false;
    disk.contested = false;
    const out = this.pipeline.inspection({ tick, disk: name, ms: timings.totalMs, waitMs: timings.waitMs, startWaitMs: timings.startWaitMs, atMs });
    // Made for a listener only (an output, a hook): 640 a second at 64 disks.
    if (told) this.news.inspection({ tick, disk: name, timings, late: out?.late ?? false, wallMs: atMs + wallOffset });
    status.last = timings;
    const wasDown = status.state === 'down';
    status.state = 'up';
    if (status.error !== undefined) delete status.error;
    if (wasDown || wasContested || out?.hangEnded) this.news.event({ kind: 'back', disk: name });
  }

  /** Any other result: a lost tick, a failure, or an inspection that made its probe file. */
  inspected(message: InspectedRecord, wallOffset: number, told: boolean): void {
    const disk = this.records.get(message.name);
    if (!disk?.status.inspected) return;
    if (message.staleRemoved) this.news.event({ kind: 'stale-removed', disk: message.name, paths: message.staleRemoved });
    const { atMs } = message;
    if (message.lost) {
      // No inspection: the directory's finding, never the disk's, at start as later.
      disk.attempted = true;
      this.pipeline.inspection({ tick: message.tick, disk: message.name, ms: null, lost: true, atMs });
      this.news.inspection({ tick: message.tick, disk: message.name, error: message.lost, late: false, lost: true, wallMs: atMs + wallOffset });
      // The first tick lost since the disk was last seen tells what took the name; a fresh
      // file taken in its turn, that the directory is contested.
      if (!disk.losing) this.news.event({ kind: 'name-taken', disk: message.name, error: message.lost });
      disk.losing = true;
      if (message.contested && !disk.contested) this.news.event({ kind: 'contested', disk: message.name, error: message.lost });
      disk.contested ||= message.contested === true;
      return;
    }
    disk.losing = false;
    disk.contested = false;
    if (message.timings) {
      this.timed(message.name, message.tick, atMs, message.timings, wallOffset, told);
      return;
    }
    const firstAttempt = !disk.attempted;
    disk.attempted = true;
    const status = disk.status;
    // The mount table is read on an EROFS only, not on every failure.
    const error = this.shownError(message.error!, status);
    const wasHung = this.pipeline.inspection({ tick: message.tick, disk: message.name, ms: null, atMs, error: error.code })?.hangEnded ?? false;
    this.news.inspection({ tick: message.tick, disk: message.name, error, late: false, wallMs: atMs + wallOffset });
    // A disk that cannot be written is a finding (down, CRITICAL), not a path that cannot be
    // probed; a path on a read-only bind (NOT_JUDGED_CODE) is one, at start.
    if (firstAttempt && !isUnwritable(error.code)) {
      this.news.fatal(`cannot probe ${message.name}=${status.dir}: ${error.message}`);
      return;
    }
    if (error.code === 'EOTHERFS') {
      // The directory is on another filesystem now. Placed again at once, the path is either
      // shown as down (its filesystem vanished) or followed onto the new one.
      this.news.resolve(message.name);
      return;
    }
    const changed = wasHung || status.state !== 'down' || status.error?.code !== error.code;
    status.state = 'down';
    status.error = error;
    if (changed) this.news.event({ kind: 'down', disk: message.name, error });
  }

  private shownError(error: SerializedProbeError, status: DiskStatus): SerializedProbeError {
    const mountPoint = status.mount?.mountPoint;
    if (error.code === 'EROFS' && mountPoint !== undefined && this.isReadOnlyBind(mountPoint)) return readOnlyBindError(error, status.dir, mountPoint);
    return shownError(error, status);
  }

  /** The disk as the layout places it now. */
  place(placement: DiskPlacement): void {
    const disk = this.records.get(placement.name);
    if (!disk) {
      const state: DiskState = placement.inspected ? 'starting' : 'skipped';
      this.records.set(placement.name, {
        status: { ...placement, state, score: 1, inspections: 0, errors: 0 },
        stuckProber: null,
        attempted: !placement.inspected,
        losing: false,
        contested: false,
      });
      return;
    }
    const status = disk.status;
    const wasInspected = status.inspected;
    const deviceBefore = status.device;
    const filesystemBefore = identityOf(status);
    if (placement.inspected) delete status.sameAs;
    if (!placement.vanished) delete status.vanished;
    Object.assign(status, placement);
    if (!placement.inspected) {
      if (!wasInspected) return;
      // The pipeline forgets it with the layout's inspected disks (ProbeSession.applyLayout).
      status.state = 'skipped';
      delete status.error;
      disk.stuckProber = null;
    } else if (!wasInspected) {
      status.state = 'starting';
    } else if (deviceBefore !== undefined && placement.device !== undefined && placement.device !== deviceBefore) {
      // Another filesystem was mounted onto the directory: another disk, probed from 1 with
      // a probe file of its own. The old file stays where it is, out of reach under the mount.
      status.state = 'starting';
      delete status.error;
      disk.stuckProber = null;
      if (filesystemBefore !== null) status.filesystemWas = describeFilesystem(filesystemBefore);
      this.pipeline.restart(placement.name);
    }
  }

  /** The path is on another filesystem than at the last run that remembers it: an event, and WARNING from now on. */
  filesystemChangedSince(change: FilesystemChange): void {
    const disk = this.records.get(change.disk);
    if (!disk) return;
    disk.status.filesystemChanged = true;
    disk.status.filesystemWas = describeFilesystem(change.was);
    this.pipeline.filesystemChanged(change.disk);
    this.news.event({ kind: 'filesystem-changed', disk: change.disk, dir: change.dir, was: change.was, now: change.now });
  }
}
