// The Prometheus metrics follow the layout: a path's series change when its place does, and
// the counters only ever grow.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { SlowdiskMetrics } from '../../src/prometheus/metrics.js';
import { VERSION } from '../../src/common/version.js';
import type { DeviceFigures } from '../../src/kernel/device-counters.js';
import type { DiskStatus, RoundReport } from '../../src/live/session-events.js';

const mount = { mountPoint: '/data', fsType: 'xfs', source: '/dev/nvme1n1', device: '259:3' };
const raft: DiskStatus = { name: 'raft', dir: '/data/raft', inspected: true, device: '259:3', mount, memoryBacked: false, state: 'up', score: 1, inspections: 0, errors: 0 };
const kvSkipped: DiskStatus = { ...raft, name: 'kv', dir: '/data/kv', inspected: false, sameAs: 'raft', state: 'skipped' };

function round(disks: DiskStatus[], storeScore: number, devices: DeviceFigures[] = []): RoundReport {
  return { tick: 30, elapsedMs: 3000, storeScore, reportedScore: Math.trunc(storeScore), disks, devices, severity: 'ok', crossings: [], actedScore: storeScore };
}

const loop3: DeviceFigures = {
  device: '7:3',
  name: 'loop3',
  disks: ['raft'],
  role: 'filesystem',
  readIops: 0,
  writeIops: 12.5,
  flushIops: null,
  readLatencyMs: null,
  writeLatencyMs: 250,
  flushLatencyMs: null,
  inFlight: 2,
  averageQueueDepth: 1.5,
  utilisation: 0.97,
  stalled: true,
};

/** The sample lines of one metric, in the text format. */
async function samples(metrics: SlowdiskMetrics, name: string): Promise<string[]> {
  return (await metrics.registry.metrics()).split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

describe('the metrics', () => {
  it('start with every series of an inspected disk at zero, and a skipped path scored 1 without an up series', async () => {
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    metrics.begin([{ ...raft, blockDevices: ['nvme1n1'] }, kvSkipped], 1_700_000_000_000);
    expect(await samples(metrics, 'slowdisk_store_reported_score')).toEqual(['slowdisk_store_reported_score 1']);
    expect(await samples(metrics, 'slowdisk_slow_score')).toEqual(['slowdisk_slow_score{disk="raft",path="/data/raft"} 1', 'slowdisk_slow_score{disk="kv",path="/data/kv"} 1']);
    expect(await samples(metrics, 'slowdisk_disk_up')).toEqual(['slowdisk_disk_up{disk="raft",path="/data/raft"} 1']);
    expect(await samples(metrics, 'slowdisk_disk_info')).toEqual([
      'slowdisk_disk_info{disk="raft",path="/data/raft",device="nvme1n1",fstype="xfs",mountpoint="/data",skipped_for=""} 1',
      'slowdisk_disk_info{disk="kv",path="/data/kv",device="nvme1n1",fstype="xfs",mountpoint="/data",skipped_for="raft"} 1',
    ]);
    expect(await samples(metrics, 'slowdisk_inspection_timeouts_total')).toEqual(['slowdisk_inspection_timeouts_total{disk="raft"} 0']);
    expect(await samples(metrics, 'slowdisk_inspection_duration_seconds_count')).toHaveLength(5);
    expect(await samples(metrics, 'slowdisk_last_round_timestamp_seconds')).toEqual(['slowdisk_last_round_timestamp_seconds 1700000000']);
  });

  it('observe each phase in seconds, count errors by errno, and add the timeouts charged since the last round', async () => {
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    metrics.begin([raft], 0);
    metrics.inspection({ tick: 1, disk: 'raft', late: false, wallMs: 0, timings: { openMs: 0.05, writeMs: 0.3, syncMs: 250, readMs: 0.2, closeMs: 0.01, totalMs: 250.6 } });
    metrics.inspection({ tick: 2, disk: 'raft', late: false, wallMs: 0, error: { code: 'EIO', errno: 5, syscall: 'pwrite', path: '/data/raft/x', message: 'EIO' } });
    metrics.round(round([{ ...raft, score: 2, state: 'down' }], 2), new Map([['raft', 3]]), 3000);
    metrics.round(round([{ ...raft, score: 4, state: 'down' }], 4), new Map([['raft', 5]]), 6000);
    const text = await metrics.registry.metrics();
    expect(text).toContain('slowdisk_inspection_duration_seconds_bucket{le="0.2048",disk="raft",phase="sync"} 0');
    expect(text).toContain('slowdisk_inspection_duration_seconds_bucket{le="0.4096",disk="raft",phase="sync"} 1');
    expect(text).toContain('slowdisk_inspection_duration_seconds_sum{disk="raft",phase="sync"} 0.25');
    expect(text).toContain('slowdisk_inspection_errors_total{disk="raft",code="EIO"} 1');
    expect(text).toContain('slowdisk_inspection_timeouts_total{disk="raft"} 5');
    expect(text).toContain('slowdisk_disk_up{disk="raft",path="/data/raft"} 0');
    expect(text).toContain('slowdisk_store_score 4\n');
    expect(text).toContain('slowdisk_last_round_timestamp_seconds 6\n');
  });

  it('follow the layout: a path that moves to its own filesystem gets an up series, one that leaves loses its gauges', async () => {
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    metrics.begin([raft, kvSkipped], 0);
    const kvOwn: DiskStatus = { ...kvSkipped, inspected: true, state: 'up', device: '259:4', mount: { ...mount, mountPoint: '/data/kv', source: '/dev/nvme2n1' }, blockDevices: ['nvme2n1'] };
    delete kvOwn.sameAs;
    metrics.round(round([raft, kvOwn], 1), new Map(), 3000);
    expect(await samples(metrics, 'slowdisk_disk_up')).toEqual(['slowdisk_disk_up{disk="raft",path="/data/raft"} 1', 'slowdisk_disk_up{disk="kv",path="/data/kv"} 1']);
    expect(await samples(metrics, 'slowdisk_disk_info')).toContain('slowdisk_disk_info{disk="kv",path="/data/kv",device="nvme2n1",fstype="xfs",mountpoint="/data/kv",skipped_for=""} 1');
    metrics.round(round([raft], 1), new Map(), 6000);
    expect(await samples(metrics, 'slowdisk_slow_score')).toEqual(['slowdisk_slow_score{disk="raft",path="/data/raft"} 1']);
    expect(await samples(metrics, 'slowdisk_disk_info')).toHaveLength(1);
  });

  it("carry each block device's queue and stall per disk, by the kernel's name, and drop a device that has none this round", async () => {
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    metrics.begin([raft], 0);
    metrics.round(round([{ ...raft, blockDevices: ['loop3', 'nvme0n1'] }], 1, [loop3]), new Map(), 3000);
    expect(await samples(metrics, 'slowdisk_disk_block_device_info')).toEqual([
      'slowdisk_disk_block_device_info{disk="raft",device="loop3"} 1',
      'slowdisk_disk_block_device_info{disk="raft",device="nvme0n1"} 1',
    ]);
    expect(await samples(metrics, 'slowdisk_disk_info')).toEqual(['slowdisk_disk_info{disk="raft",path="/data/raft",device="loop3",fstype="xfs",mountpoint="/data",skipped_for=""} 1']);
    expect(await samples(metrics, 'slowdisk_device_in_flight')).toEqual(['slowdisk_device_in_flight{device="loop3",disk="raft"} 2']);
    // The rates of the kernel's counters are node_exporter's (node_disk_*), not re-exported.
    expect(await metrics.registry.metrics()).not.toMatch(/^slowdisk_device_(iops|latency_seconds|utilisation_ratio)\b/m);
    expect(await samples(metrics, 'slowdisk_device_stalled')).toEqual(['slowdisk_device_stalled{device="loop3",disk="raft"} 1']);
    metrics.round(round([raft], 1), new Map(), 6000);
    expect(await samples(metrics, 'slowdisk_device_stalled')).toEqual([]);
    expect(await samples(metrics, 'slowdisk_disk_block_device_info')).toEqual([]);
  });

  it("carry why each inspected disk was slow in the last round, and whether it is held from eviction because it is busy", async () => {
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    metrics.begin([raft, kvSkipped], 0);
    metrics.round(round([raft, kvSkipped], 1), new Map(), 3000);
    const causes = ['device', 'load', 'cpu', 'throttle', 'shared', 'unknown'];
    expect(await samples(metrics, 'slowdisk_slow_cause')).toEqual(causes.map((cause) => `slowdisk_slow_cause{disk="raft",cause="${cause}"} 0`));
    expect(await samples(metrics, 'slowdisk_disk_held')).toEqual(['slowdisk_disk_held{disk="raft"} 0']);
    metrics.round(round([{ ...raft, score: 100, cause: 'cpu', held: 'cpu' }, kvSkipped], 100), new Map(), 6000);
    expect(await samples(metrics, 'slowdisk_slow_cause')).toEqual(causes.map((cause) => `slowdisk_slow_cause{disk="raft",cause="${cause}"} ${cause === 'cpu' ? 1 : 0}`));
    expect(await samples(metrics, 'slowdisk_disk_held')).toEqual(['slowdisk_disk_held{disk="raft"} 1']);
  });

  it('carry the version that exports them', async () => {
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    expect(await samples(metrics, 'slowdisk_build_info')).toEqual([`slowdisk_build_info{version="${VERSION}"} 1`]);
  });

  it("carry each inspected disk's early warning: its probability once it has one, and whether it is in state warning", async () => {
    const metrics = new SlowdiskMetrics(DEFAULT_SCORE_PARAMS, false);
    metrics.begin([raft, kvSkipped], 0);
    // Before its first probability: not in warning, no probability.
    expect(await samples(metrics, 'slowdisk_predicted_breach_probability')).toEqual([]);
    expect(await samples(metrics, 'slowdisk_predicted_warning')).toEqual(['slowdisk_predicted_warning{disk="raft"} 0']);
    const prediction = { atMs: 60_000, probability: 0.82, warning: true, model: 'network', samples: 4, p99Ms: 120, missing: [], ignored: [] } as const;
    metrics.round(round([{ ...raft, prediction }, kvSkipped], 1), new Map(), 3000);
    expect(await samples(metrics, 'slowdisk_predicted_breach_probability')).toEqual(['slowdisk_predicted_breach_probability{disk="raft"} 0.82']);
    expect(await samples(metrics, 'slowdisk_predicted_warning')).toEqual(['slowdisk_predicted_warning{disk="raft"} 1']);
    metrics.round(round([{ ...raft, prediction: { ...prediction, probability: 0.3, warning: false } }, kvSkipped], 1), new Map(), 6000);
    expect(await samples(metrics, 'slowdisk_predicted_warning')).toEqual(['slowdisk_predicted_warning{disk="raft"} 0']);
  });

  it('flag a buffered run and carry the thresholds of the run', async () => {
    const metrics = new SlowdiskMetrics({ ...DEFAULT_SCORE_PARAMS, slowThreshold: 50, evictThreshold: 90 }, true);
    expect(await samples(metrics, 'slowdisk_buffered')).toEqual(['slowdisk_buffered 1']);
    expect(await samples(metrics, 'slowdisk_slow_threshold')).toEqual(['slowdisk_slow_threshold 50']);
    expect(await samples(metrics, 'slowdisk_evict_threshold')).toEqual(['slowdisk_evict_threshold 90']);
  });
});
