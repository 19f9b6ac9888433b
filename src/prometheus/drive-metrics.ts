// The drives' verdicts as Prometheus metrics (--all-devices, --devices with --textfile), in a
// registry and a textfile of their own (slowdisk-drives.prom), so that a cron check of the
// drives and one of the probed paths can share node_exporter's directory.
import { Registry, type Gauge } from 'prom-client';
import { gaugesIn } from './registered-gauge.js';
import type { DriveJudgement } from '../drives/drive-monitor.js';

export const DRIVES_TEXTFILE_NAME = 'slowdisk-drives.prom';

export class DriveMetrics {
  readonly registry = new Registry();
  private readonly slow: Gauge<'device' | 'id' | 'class'>;
  private readonly ratio: Gauge<'device'>;
  private readonly history: Gauge;
  private readonly lastSample: Gauge;

  constructor() {
    const gauge = gaugesIn(this.registry);
    this.slow = gauge('slowdisk_drive_slow', 'Whether the drive is slow now against the peers of its class (fail-slow): slow on at least 4 of the last 7 days of the host. 0 once it has recovered.', ['device', 'id', 'class']);
    this.ratio = gauge('slowdisk_drive_latency_ratio', "The drive's latency over its peers' at comparable load, the median of its daily figures over the days judged.", ['device']);
    this.history = gauge('slowdisk_drive_history_seconds', "How much the drives' history holds: its days (a slow verdict needs 4, 345600 s) times 86400.");
    this.lastSample = gauge('slowdisk_drive_last_sample_timestamp_seconds', 'When the drives were last sampled: the staleness check.');
  }

  /** Per-drive gauges are set afresh, so that a drive no longer chosen leaves them. */
  update(judgement: DriveJudgement, wallMs: number): void {
    for (const gauge of [this.slow, this.ratio]) gauge.reset();
    for (const drive of judgement.drives) {
      const verdict = drive.verdict;
      // A drive of a class too small to judge has no verdict: no gauge, rather than a 0 that says ok.
      if (drive.notJudged !== null) continue;
      this.slow.set({ device: drive.device, id: drive.id ?? '', class: drive.peerClass }, verdict?.verdict === 'slow' ? 1 : 0);
      if (verdict && Number.isFinite(verdict.ratio)) this.ratio.set({ device: drive.device }, verdict.ratio);
    }
    this.history.set(judgement.days * 86_400);
    this.lastSample.set(wallMs / 1000);
  }
}
