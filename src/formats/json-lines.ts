// --json on watch, check and replay: JSON Lines, one object per disk and one for the store at
// every round, one per event, and check's summary. Every line has a "type"; a timing's unit
// is in its name; docs/json-lines.md lists the fields. Replay's lines keep the keys of the
// trace format ({"tick","disk","score"}, {"tick","store_score","evict"}; docs/trace-format.md)
// and add these.
// A block device's line ("type": "device") has the keys of the trace's device line.
// Scores are written as JavaScript prints a double: the shortest text that reads back exactly.
import type { FilesystemIdentity } from '../layout/filesystem-memory.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { DiskPlacement } from '../layout/disk-layout.js';
import type { ScoreParams } from '../score/score-params.js';
import type { SerializedProbeError } from '../probe/prober-protocol.js';
import { SEVERITY_LABELS, reportedScore, severityOf, shownScore, worseSeverity, type Severity } from '../score/store-score.js';
import type { DiskStatus, SessionEvent } from '../live/session-events.js';
import { deviceFields } from '../trace/trace-format.js';
import type { CheckOutcome } from './check-summary.js';
import type { Reporter } from './round-lines.js';
import type { ThresholdCrossing } from '../verdict/threshold-crossings.js';
import type { DiskSummary } from './disk-summary.js';
import { LATENCY_PHASES } from './phase-latencies.js';

type Thresholds = Pick<ScoreParams, 'slowThreshold' | 'evictThreshold'>;

/** A disk at a round: replay knows its name and score, a live run its whole status. */
export type RoundDisk = (Pick<DiskStatus, 'name' | 'score' | 'statistical' | 'tail'> & Partial<Pick<DiskStatus, 'blockDevices' | 'stalledDevices' | 'prediction' | 'statisticalJudged' | 'confirmation' | 'tailJudged' | 'cause' | 'held' | 'warningOf'>>) | DiskStatus;

export interface JsonRound {
  tick: number;
  /** Since the start, on the ticks' clock (replay's is virtual). */
  elapsedMs: number;
  storeScore: number;
  /** The store's score over the disks not held busy (src/verdict/busy-verdict.ts): what `evict` and `severity` say; the store score if not given. */
  actedScore?: number;
  disks: readonly RoundDisk[];
  /** The block devices behind the disks, over the round. */
  devices?: readonly DeviceFigures[];
  /** The thresholds the reported store score crossed at the round. */
  crossings?: readonly ThresholdCrossing[];
}

/** What only a live run knows. */
export interface LiveContext {
  /** Wall-clock ms since the epoch: each line's "time". */
  now: () => number;
  /** The tick an event happened at. */
  currentTick: () => number;
  /** --buffered: no O_DIRECT. */
  buffered: boolean;
}

type Json = Record<string, unknown>;

function errorFields(error: SerializedProbeError): Json {
  return { code: error.code, errno: error.errno, syscall: error.syscall, path: error.path, message: error.message };
}

/** Where a path is and whether it is inspected: in disk lines and in layout events. */
function placementFields(disk: DiskPlacement): Json {
  return {
    path: disk.dir,
    resolved_path: disk.resolvedDir,
    inspected: disk.inspected,
    skipped_for: disk.sameAs,
    device: disk.mount?.source ?? disk.device,
    major_minor: disk.device,
    fstype: disk.mount?.fsType,
    mountpoint: disk.mount?.mountPoint,
    memory_backed: disk.memoryBacked,
    vanished: disk.vanished,
  };
}

/** A statistical confirmation: by which path (`fast` or `rules`), and the seconds from the start of the deviation. */
function confirmationFields(disk: RoundDisk): Json {
  if (disk.statistical !== 'confirmed' || !disk.confirmation) return {};
  return { statistical_by: disk.confirmation.path, statistical_after_seconds: disk.confirmation.afterMs / 1000 };
}

/** A detector that has not had the data it needs: null, with the reason, never `ok`; live and replayed alike. */
function warmingUpFields(disk: RoundDisk): Json {
  if ('inspected' in disk && !disk.inspected) return {};
  const fields: Json = {};
  if (disk.statistical === 'ok' && disk.statisticalJudged === false) {
    fields.statistical = null;
    fields.statistical_reason = 'warming up: no step judged against a baseline yet';
  }
  if (disk.tail === 'ok' && disk.tailJudged === false) {
    fields.tail = null;
    fields.tail_reason = 'warming up: no baseline of its inspections yet';
  }
  if (disk.prediction?.probability == null) fields.early_warning_reason = 'warming up: too few samples for a prediction yet';
  return fields;
}

function statusFields(disk: DiskStatus, buffered: boolean): Json {
  const last = disk.last;
  return {
    ...placementFields(disk),
    state: disk.state,
    buffered,
    last_open_ms: last?.openMs,
    last_write_ms: last?.writeMs,
    last_sync_ms: last?.syncMs,
    last_read_ms: last?.readMs,
    last_total_ms: last?.totalMs,
    waiting_ms: disk.waitingMs,
    hung_since: disk.hungSinceMs === undefined ? undefined : new Date(disk.hungSinceMs).toISOString(),
    stuck_prober_pid: disk.stuckProber,
    inspections: disk.inspections,
    errors: disk.errors,
    filesystem_changed: disk.filesystemChanged,
    filesystem_was: disk.filesystemWas,
    error: disk.error && errorFields(disk.error),
  };
}

/**
 * The early warning of an inspected disk: a probability (null until the predictor has one),
 * whether it is in state warning, and at the sample a warning ended, why (else null).
 */
function predictionFields(disk: RoundDisk): Json {
  const prediction = disk.prediction;
  if (!prediction) return { predicted_breach_probability: null, warning: false, warning_cleared: null };
  return {
    predicted_breach_probability: prediction.probability,
    warning: prediction.warning,
    ...(prediction.warning && disk.warningOf ? { warning_of: disk.warningOf } : {}),
    warning_cleared: prediction.cleared,
    predictor_model: prediction.model,
  };
}

function filesystemFields(identity: FilesystemIdentity): Json {
  return { device: identity.device, source: identity.source, fstype: identity.fsType, mountpoint: identity.mountPoint };
}

/** An event's own fields after its `scope`: `disk` for one about a disk, `store` for one about them all. */
function eventFields(event: SessionEvent): Json {
  switch (event.kind) {
    case 'down':
      return { scope: 'disk', disk: event.disk, error: errorFields(event.error) };
    case 'back':
      return { scope: 'disk', disk: event.disk };
    case 'hung':
      return { scope: 'disk', disk: event.disk, hung_since: new Date(event.sinceMs).toISOString(), waiting_ms: event.waitingMs, stuck_prober_pid: event.stuckProber };
    case 'stale-removed':
      return { scope: 'disk', disk: event.disk, paths: event.paths };
    case 'name-taken':
      return { scope: 'disk', disk: event.disk, path: event.error.path, error: errorFields(event.error) };
    case 'contested':
      return { scope: 'disk', disk: event.disk, path: event.error.path, error: errorFields(event.error) };
    case 'held-up':
      return { scope: 'store', held_ms: Math.round(event.ms) };
    case 'prober-restarted':
      return { scope: 'store', reason: event.reason, pid: event.pid };
    case 'filesystem-changed':
      return { scope: 'disk', disk: event.disk, path: event.dir, was: filesystemFields(event.was), now: filesystemFields(event.now) };
    case 'layout':
      return { scope: 'store', disks: event.disks.map((disk) => ({ disk: disk.name, ...placementFields(disk) })) };
  }
}

/** A threshold event: the store's, naming the disk whose score is the store's. */
function crossingFields(crossing: ThresholdCrossing): Json {
  return {
    event: crossing.event,
    scope: 'store',
    disk: crossing.disk,
    threshold: crossing.threshold,
    threshold_score: crossing.thresholdScore,
    clear_score: crossing.clearScore,
    reported_score: crossing.reportedScore,
  };
}

export class JsonLines implements Reporter {
  /**
   * `write` takes whole lines, each ending in a newline: a round's lines in one call, so that
   * a long replay makes one write per round.
   */
  constructor(
    private readonly params: Thresholds,
    private readonly write: (lines: string) => void = (lines) => process.stdout.write(lines),
    private readonly live?: LiveContext,
  ) {}

  /** A line per disk, one for the store, and an event for each threshold crossed. */
  round(round: JsonRound): void {
    // One time for the whole round, so that its lines group by it.
    const at = { ...this.time(), tick: round.tick, elapsed_seconds: round.elapsedMs / 1000 };
    const lines: Json[] = [];
    for (const disk of round.disks) {
      const status = 'state' in disk && this.live ? statusFields(disk, this.live.buffered) : {};
      const devices = { block_devices: disk.blockDevices, stalled_devices: disk.stalledDevices };
      const inspected = !('inspected' in disk) || disk.inspected;
      const predicted = inspected ? predictionFields(disk) : {};
      // Only a disk slow in the round has a cause.
      const cause = disk.cause ? { cause: disk.cause } : {};
      // Only a disk held from eviction because it is busy has `held`.
      const held = disk.held ? { held: disk.held } : {};
      lines.push({ type: 'disk', ...at, disk: disk.name, score: shownScore(disk.score), statistical: disk.statistical, ...confirmationFields(disk), tail: disk.tail, ...cause, ...held, ...predicted, ...devices, ...status, ...warmingUpFields(disk) });
    }
    for (const device of round.devices ?? []) lines.push({ type: 'device', ...at, ...deviceFields(device) });
    const reported = reportedScore(round.storeScore);
    // A disk held busy at the eviction threshold makes the store WARNING, not evicted.
    const held: Severity = round.disks.some((disk) => disk.held) ? 'slow' : 'ok';
    const severity = worseSeverity(severityOf(round.actedScore ?? round.storeScore, this.params), held);
    lines.push({ type: 'store', ...at, store_score: shownScore(round.storeScore), reported_score: reported, evict: severity === 'evict', severity });
    for (const crossing of round.crossings ?? []) lines.push({ type: 'event', ...at, ...crossingFields(crossing) });
    this.lines(...lines);
  }

  event(event: SessionEvent): void {
    this.lines({ type: 'event', ...this.time(), tick: this.live?.currentTick(), event: event.kind, ...eventFields(event) });
  }

  /** check's last line: the verdict over the whole run, with its exit code. */
  summary(outcome: CheckOutcome): void {
    const { verdict, interruptedBy } = outcome;
    this.lines({
      type: 'summary',
      ...this.time(),
      status: interruptedBy ? 'UNKNOWN' : SEVERITY_LABELS[verdict.severity],
      store: outcome.store,
      exit_code: outcome.exitCode,
      severity: verdict.severity,
      store_score: shownScore(outcome.storeScore),
      reported_score: reportedScore(outcome.storeScore),
      max_reported_score: verdict.maxReported,
      elapsed_seconds: outcome.elapsedMs / 1000,
      slow_threshold: this.params.slowThreshold,
      evict_threshold: this.params.evictThreshold,
      interrupted_by: interruptedBy,
      problems: outcome.problems,
      disks: this.live ? outcome.disks.map((disk) => this.summaryDisk(disk, outcome.summaries.get(disk.name))) : undefined,
    });
  }

  stop(): void {}

  /** A disk in the summary: every field of its disk line, and its summary over the check. */
  private summaryDisk(disk: DiskStatus, summary: DiskSummary | undefined): Json {
    const fields: Json = { disk: disk.name, score: shownScore(disk.score), statistical: disk.statistical, ...confirmationFields(disk) };
    if (disk.inspected) Object.assign(fields, predictionFields(disk));
    Object.assign(fields, { block_devices: disk.blockDevices, stalled_devices: disk.stalledDevices }, statusFields(disk, this.live!.buffered), warmingUpFields(disk));
    if (!summary || !disk.inspected) return fields;
    fields.max_score = shownScore(summary.maxScore);
    fields.timeouts = summary.timeouts;
    for (const phase of LATENCY_PHASES) {
      const figures = summary.phases[phase];
      fields[`${phase}_median_ms`] = figures?.medianMs ?? null;
      fields[`${phase}_p99_ms`] = figures?.p99Ms ?? null;
      fields[`${phase}_max_ms`] = figures?.maxMs ?? null;
    }
    return fields;
  }

  /** A live line's wall-clock time; replay's clock is virtual. */
  private time(): { time?: string } {
    return this.live ? { time: new Date(this.live.now()).toISOString() } : {};
  }

  private lines(...lines: Json[]): void {
    this.write(lines.map((fields) => `${JSON.stringify(fields)}\n`).join(''));
  }
}
