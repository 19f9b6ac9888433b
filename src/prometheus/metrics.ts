// The Prometheus metrics of one run, for --textfile and --listen. In a registry of their own,
// never prom-client's global one, so that nothing else in the process (and no process_*
// metric, which would clash with node_exporter's own) reaches the textfile or /metrics.
// Base units: seconds; the score is unitless, 1..100.
import { Counter, exponentialBuckets, Gauge, Histogram, Registry } from 'prom-client';
import { DETECTOR_STATES } from '../detectors/statistical-detector.js';
import { TAIL_STATES } from '../detectors/tail-detector.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { ScoreParams } from '../score/score-params.js';
import { shownScore } from '../score/store-score.js';
import { defaultText } from '../common/param-spec.js';
import { HANG_AFTER_SPEC } from '../probe/probe-params.js';
import { VERSION } from '../common/version.js';
import { bytesShown } from '../common/visible-text.js';
import type { PhaseTimings } from '../probe/prober-protocol.js';
import type { DiskStatus, InspectionRecord, RoundReport } from '../live/session-events.js';
import { LISTEN_RETRY_MS } from './listen-address.js';
import { gaugesIn } from './registered-gauge.js';
import { SLOW_CAUSES } from '../verdict/slow-cause.js';

const PHASES: readonly (readonly [phase: string, timing: Exclude<keyof PhaseTimings, 'waitMs' | 'startWaitMs'>])[] = [
  ['open', 'openMs'],
  ['write', 'writeMs'],
  ['sync', 'syncMs'],
  ['read', 'readMs'],
  ['total', 'totalMs'],
];

/** 100 µs to 26 s, doubling: from a fast NVMe's sync to an inspection far past any timeout. */
const INSPECTION_BUCKETS_SECONDS: readonly number[] = exponentialBuckets(0.0001, 2, 19);

const flag = (value: boolean): number => (value ? 1 : 0);

export class SlowdiskMetrics {
  readonly registry = new Registry();
  private readonly slowScore: Gauge<'disk' | 'path'>;
  private readonly storeScore: Gauge;
  private readonly storeReportedScore: Gauge;
  private readonly diskUp: Gauge<'disk' | 'path'>;
  private readonly diskHung: Gauge<'disk' | 'path'>;
  private readonly diskContested: Gauge<'disk' | 'path'>;
  private readonly diskInfo: Gauge<'disk' | 'path' | 'device' | 'fstype' | 'mountpoint' | 'skipped_for'>;
  private readonly memoryBacked: Gauge<'disk'>;
  private readonly filesystemChanged: Gauge<'disk'>;
  private readonly lastRound: Gauge;
  private readonly inspectionDuration: Histogram<'disk' | 'phase'>;
  private readonly timeouts: Counter<'disk'>;
  private readonly errors: Counter<'disk' | 'code'>;
  /** The charged timeouts already counted, per disk. */
  private readonly timeoutsSeen = new Map<string, number>();
  /** Disks whose counter and histogram series exist. */
  private readonly started = new Set<string>();
  private readonly statisticalState: Gauge<'disk' | 'state'>;
  private readonly tailState: Gauge<'disk' | 'state'>;
  private readonly predictedProbability: Gauge<'disk'>;
  private readonly predictedWarning: Gauge<'disk'>;
  private readonly slowCause: Gauge<'disk' | 'cause'>;
  private readonly held: Gauge<'disk'>;
  private readonly blockDeviceInfo: Gauge<'disk' | 'device'>;
  private readonly deviceInFlight: Gauge<'device' | 'disk'>;
  private readonly deviceStalled: Gauge<'device' | 'disk'>;

  constructor(params: ScoreParams, buffered: boolean) {
    const registers = [this.registry];
    const gauge = gaugesIn(this.registry);
    this.slowScore = gauge('slowdisk_slow_score', "TiKV's slow score of the disk, 1 to 100, cut to two decimals (a path skipped for sharing another's filesystem keeps 1).", ['disk', 'path']);
    this.storeScore = gauge('slowdisk_store_score', 'The store score: the maximum over the disks, cut to two decimals (its integer part is the reported score).');
    this.storeReportedScore = gauge('slowdisk_store_reported_score', 'The store score as PD sees it: its integer part. PD evicts leaders at the evict threshold.');
    this.diskUp = gauge('slowdisk_disk_up', 'Whether the inspected disk answers: 0 while its inspections fail (an I/O error, a vanished filesystem) and while it is hung.', ['disk', 'path']);
    this.diskHung = gauge('slowdisk_disk_hung', `Whether an inspection of the disk has been in flight for --hang-after (default ${defaultText(HANG_AFTER_SPEC)}), whatever its score says yet.`, ['disk', 'path']);
    this.diskContested = gauge('slowdisk_disk_contested', "Whether the disk's directory is contested: each probe file made there has its name taken by someone else, so nothing of the disk is seen, and nothing is charged.", ['disk', 'path']);
    this.diskInfo = gauge('slowdisk_disk_info', "Where each path is: the kernel's name of its filesystem's block device (as node_exporter's node_disk_* name it, empty for one sysfs does not know), fstype and mountpoint; skipped_for names the path inspected instead.", ['disk', 'path', 'device', 'fstype', 'mountpoint', 'skipped_for']);
    this.statisticalState = gauge('slowdisk_statistical_state', "The statistical detector's state of each inspected disk: 1 for its state (ok, suspect, confirmed, host-wide), 0 for the others.", ['disk', 'state']);
    this.tailState = gauge('slowdisk_tail_state', "The tail detector's state of each inspected disk: 1 for its state (ok, suspect, confirmed), 0 for the others.", ['disk', 'state']);
    this.predictedProbability = gauge('slowdisk_predicted_breach_probability', "The early-warning predictor's probability that the disk's inspection P99 exceeds the SLA (--sla) within 5 minutes, less the share its peers show too; absent until it has one.", ['disk']);
    this.predictedWarning = gauge('slowdisk_predicted_warning', 'Whether the disk is in state warning: its probability went above --warn-probability at samples in a row with its P99 rising, and has not cleared yet (it holds below the threshold until the disk has stayed under the SLA without a rising trend).', ['disk']);
    this.slowCause = gauge('slowdisk_slow_cause', 'Why each inspected disk was slow in the last round (docs/causes.md): 1 for its cause (device, load, shared, unknown), 0 for the others; all 0 for a disk not slow in it.', ['disk', 'cause']);
    this.held = gauge('slowdisk_disk_held', "Whether the disk is at the eviction threshold but held from eviction because it is busy (cause load, --busy warning): the store is WARNING, not CRITICAL, for it.", ['disk']);
    this.blockDeviceInfo = gauge('slowdisk_disk_block_device_info', "The block devices behind each inspected disk's filesystem, by the kernel's name: the filesystem's own, its whole disk, a stacked device's members, a loop device's backing disk.", ['disk', 'device']);
    // The rates of the kernel's counters (IOPS, latency, utilisation) are node_exporter's to
    // export, as counters (node_disk_*): a rate computed here would only hide the counters'
    // own resolution behind a round's.
    const perDevice = (name: string, help: string) => gauge(name, help, ['device', 'disk']);
    this.deviceInFlight = perDevice('slowdisk_device_in_flight', 'Requests in flight on the block device as the last round closed: its queue depth.');
    this.deviceStalled = perDevice('slowdisk_device_stalled', 'Whether the block device had requests in flight and completed none for the whole last round.');
    this.memoryBacked = gauge('slowdisk_memory_backed', 'Whether the filesystem is memory-backed (tmpfs, ramfs): probed, but never a disk.', ['disk']);
    this.filesystemChanged = gauge('slowdisk_filesystem_changed', 'Whether the path is on another filesystem than it was earlier in the run, or at the last run with the same --state-dir (WARNING).', ['disk']);
    gauge('slowdisk_build_info', 'Always 1: the version of slowdisk that exports these metrics.', ['version']).set({ version: VERSION }, 1);
    gauge('slowdisk_buffered', 'Whether the probes run without O_DIRECT (--buffered), through the page cache.').set(flag(buffered));
    gauge('slowdisk_evict_threshold', 'The reported store score at which PD evicts leaders (CRITICAL).').set(params.evictThreshold);
    gauge('slowdisk_slow_threshold', 'The reported store score at which PD counts the store as slow (WARNING).').set(params.slowThreshold);
    this.lastRound = gauge('slowdisk_last_round_timestamp_seconds', 'When the scores were last updated (a round closed), or the run started: the staleness check.');
    this.inspectionDuration = new Histogram({
      name: 'slowdisk_inspection_duration_seconds',
      help: 'How long each phase of the inspections that completed took; total is open to close.',
      labelNames: ['disk', 'phase'],
      buckets: [...INSPECTION_BUCKETS_SECONDS],
      registers,
    });
    this.timeouts = new Counter({
      name: 'slowdisk_inspection_timeouts_total',
      help: 'Ticks charged as timeouts: an inspection at or over the timeout, one that missed its tick, or one that failed.',
      labelNames: ['disk'],
      registers,
    });
    this.errors = new Counter({
      name: 'slowdisk_inspection_errors_total',
      help: 'Inspections that failed, by errno name (ECORRUPT: the read returned other data than was written).',
      labelNames: ['disk', 'code'],
      registers,
    });
  }

  /** The run started with these disks: every series exists from the start, so rate() has a first sample. */
  begin(disks: readonly DiskStatus[], wallMs: number): void {
    this.storeScore.set(1);
    this.storeReportedScore.set(1);
    this.describe(disks);
    this.lastRound.set(wallMs / 1000);
  }

  /** Between rounds, when a disk hangs or comes back: its state is set at once, the scores wait for the round. */
  states(disks: readonly DiskStatus[]): void {
    this.diskUp.reset();
    this.diskHung.reset();
    this.diskContested.reset();
    for (const disk of disks) if (disk.inspected) this.setState(disk);
  }

  round(report: RoundReport, chargedTimeouts: ReadonlyMap<string, number>, wallMs: number): void {
    this.storeScore.set(shownScore(report.storeScore));
    this.storeReportedScore.set(report.reportedScore);
    this.describe(report.disks);
    this.devices(report.devices);
    for (const [disk, charged] of chargedTimeouts) {
      const seen = this.timeoutsSeen.get(disk) ?? 0;
      if (charged > seen) this.timeouts.inc({ disk }, charged - seen);
      this.timeoutsSeen.set(disk, charged);
    }
    this.lastRound.set(wallMs / 1000);
  }

  inspection(record: InspectionRecord): void {
    const { disk, timings, error } = record;
    this.startSeries(disk);
    if (timings) for (const [phase, timing] of PHASES) this.inspectionDuration.observe({ disk, phase }, timings[timing] / 1000);
    if (error && !record.lost) this.errors.inc({ disk, code: error.code });
  }

  /** Set afresh each round: a device that no longer goes with a disk, or has no figures this round, leaves them. */
  private devices(devices: readonly DeviceFigures[]): void {
    for (const gauge of [this.deviceInFlight, this.deviceStalled]) gauge.reset();
    for (const figures of devices) {
      for (const disk of figures.disks) {
        const labels = { device: figures.name, disk };
        this.deviceInFlight.set(labels, figures.inFlight);
        this.deviceStalled.set(labels, flag(figures.stalled));
      }
    }
  }

  /** Per-disk gauges are set afresh each time, so that a path the layout no longer holds leaves them. */
  private describe(disks: readonly DiskStatus[]): void {
    const perDisk = [this.slowScore, this.diskUp, this.diskHung, this.diskContested, this.diskInfo, this.memoryBacked, this.filesystemChanged, this.statisticalState, this.tailState, this.blockDeviceInfo, this.predictedProbability, this.predictedWarning, this.slowCause, this.held];
    for (const gauge of perDisk) gauge.reset();
    // The block devices start with the filesystem's own (none when sysfs does not know it); a skipped path is on the inspected one's.
    const filesystemDevice = new Map(disks.map((disk) => [disk.name, disk.blockDevices?.[0] ?? '']));
    for (const disk of disks) {
      const name = disk.name;
      const path = bytesShown(disk.dir);
      this.slowScore.set({ disk: name, path }, shownScore(disk.score));
      this.memoryBacked.set({ disk: name }, flag(disk.memoryBacked));
      this.filesystemChanged.set({ disk: name }, flag(disk.filesystemChanged === true));
      this.diskInfo.set(
        {
          disk: name,
          path,
          device: filesystemDevice.get(disk.sameAs ?? disk.name) ?? '',
          fstype: disk.mount?.fsType ?? '',
          mountpoint: bytesShown(disk.mount?.mountPoint ?? ''),
          skipped_for: disk.sameAs ?? '',
        },
        1,
      );
      if (!disk.inspected) continue;
      for (const device of disk.blockDevices ?? []) this.blockDeviceInfo.set({ disk: name, device }, 1);
      this.setState(disk);
      for (const state of DETECTOR_STATES) this.statisticalState.set({ disk: name, state }, flag(disk.statistical === state));
      for (const state of TAIL_STATES) this.tailState.set({ disk: name, state }, flag(disk.tail === state));
      const probability = disk.prediction?.probability;
      if (probability != null) this.predictedProbability.set({ disk: name }, probability);
      this.predictedWarning.set({ disk: name }, flag(disk.prediction?.warning === true));
      for (const cause of SLOW_CAUSES) this.slowCause.set({ disk: name, cause }, flag(disk.cause === cause));
      this.held.set({ disk: name }, flag(disk.held !== undefined));
      this.startSeries(name);
    }
  }

  private setState(disk: DiskStatus): void {
    const labels = { disk: disk.name, path: bytesShown(disk.dir) };
    this.diskUp.set(labels, flag(disk.state !== 'down' && disk.state !== 'hung'));
    this.diskHung.set(labels, flag(disk.state === 'hung'));
    this.diskContested.set(labels, flag(disk.state === 'contested'));
  }

  /** A disk's counter and histograms start at 0 once, before its first inspection is counted. */
  private startSeries(disk: string): void {
    if (this.started.has(disk)) return;
    this.started.add(disk);
    this.timeouts.inc({ disk }, 0);
    for (const [phase] of PHASES) this.inspectionDuration.zero({ disk, phase });
  }
}

/**
 * For the textfile beside --listen: whether the address is served. A port another program
 * took first leaves /metrics unserved (or served by that program) while the run goes on; the
 * textfile, which node_exporter reads whatever the port, says so.
 */
export class ListenMetric {
  readonly registry = new Registry();
  private readonly up: Gauge<'address'>;

  constructor(private readonly address: string) {
    this.up = new Gauge({
      name: 'slowdisk_listen_up',
      help: `Whether --listen's address is bound and serves /metrics: 0 while it cannot be bound (a port taken first), tried again every ${LISTEN_RETRY_MS / 1000} s.`,
      labelNames: ['address'],
      registers: [this.registry],
    });
    this.set(false);
  }

  set(up: boolean): void {
    this.up.set({ address: this.address }, flag(up));
  }
}
