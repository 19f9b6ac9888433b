// A real Prometheus scrapes `watch --listen` on a really throttled loop disk, evaluates the
// shipped rules, and fires SlowdiskEvict; the shipped dashboard's queries run against it.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { dashboardQueries, substituteVariables } from '../helpers/dashboard-queries.js';
import { freePort } from '../helpers/free-port.js';
import { requireRootFacilities } from '../helpers/root-facilities.js';
import { startCli, waitFor, type RunningCli } from '../helpers/run-cli.js';
import { makeTestDisk, removeAllTestDisks } from '../helpers/test-disk.js';

const gate = requireRootFacilities(['root', 'loop', 'blkio', 'prometheus']);
const RULES = fileURLToPath(new URL('../../contrib/prometheus/slowdisk-rules.yml', import.meta.url));


/** Ends a process this test started, by its PID: SIGTERM, then SIGKILL if it lingers. */
async function stopProcess(child: ChildProcess | undefined, exited: Promise<unknown>): Promise<void> {
  if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return;
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(() => child.pid && process.kill(child.pid, 'SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

interface PromAlert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
  activeAt: string;
  value: string;
}

async function api<T>(base: string, route: string): Promise<T> {
  const response = await fetch(`${base}${route}`);
  const body = (await response.json()) as { status: string; data: T; error?: string };
  if (body.status !== 'success') throw new Error(`${route}: ${body.error}`);
  return body.data;
}

describe.skipIf(gate.skip)('Prometheus with the shipped rules, scraping watch --listen', () => {
  const work = mkdtempSync(path.join(os.tmpdir(), 'slowdisk-prometheus-'));
  let cli: RunningCli | undefined;
  let prometheus: { child: ChildProcess; exited: Promise<unknown>; stderr: () => string } | undefined;

  afterAll(async () => {
    try {
      await stopProcess(cli?.child, cli?.done ?? Promise.resolve());
      await stopProcess(prometheus?.child, prometheus?.exited ?? Promise.resolve());
      await removeAllTestDisks();
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('fires SlowdiskEvict within a minute of a disk throttled to 2 write IOPS', async () => {
    const disk = await makeTestDisk();
    await disk.throttle({ writeIops: 2 });
    const slowdiskPort = await freePort();
    const prometheusPort = await freePort();
    const base = `http://127.0.0.1:${prometheusPort}`;
    const target = `127.0.0.1:${slowdiskPort}`;

    // --keep-going: past the threshold, watch goes on being scraped instead of exiting.
    const started = performance.now();
    cli = startCli(['watch', '--raft', disk.dir, '--keep-going', '--listen', target]);
    const config = path.join(work, 'prometheus.yml');
    writeFileSync(
      config,
      [
        'global:',
        '  scrape_interval: 1s',
        '  evaluation_interval: 1s',
        'rule_files:',
        `  - ${JSON.stringify(RULES)}`,
        'scrape_configs:',
        '  - job_name: slowdisk',
        '    static_configs:',
        `      - targets: [${JSON.stringify(target)}]`,
        '',
      ].join('\n'),
    );
    const child = spawn(
      'prometheus',
      [`--config.file=${config}`, `--storage.tsdb.path=${path.join(work, 'tsdb')}`, `--web.listen-address=127.0.0.1:${prometheusPort}`, '--log.level=warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    prometheus = { child, exited: new Promise((resolve) => child.once('exit', resolve)), stderr: () => stderr };

    let evict: PromAlert | undefined;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited ${child.exitCode}: ${stderr}`);
        const alerts = await api<{ alerts: PromAlert[] }>(base, '/api/v1/alerts').catch(() => ({ alerts: [] }));
        evict = alerts.alerts.find((alert) => alert.labels.alertname === 'SlowdiskEvict' && alert.state === 'firing');
        return evict !== undefined;
      },
      60_000,
      'SlowdiskEvict to fire',
    );
    const seconds = (performance.now() - started) / 1000;
    console.log(`SlowdiskEvict fired ${seconds.toFixed(1)} s after watch started on a disk throttled to 2 write IOPS`);
    // The store rules count each store once, by the store label slowdisk sets (this host's name).
    expect(evict!.labels).toMatchObject({ store: os.hostname(), severity: 'critical' });
    expect(Number(evict!.value)).toBe(100);
    // The score climbs 2, 4, ... 64, 100 at one doubling per 3 s round: 21 s at the soonest.
    expect(seconds).toBeGreaterThan(20);
    expect(seconds).toBeLessThan(60);

    // The disk is named by its own score.
    const scores = await api<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
      base,
      `/api/v1/query?query=${encodeURIComponent('slowdisk_slow_score')}`,
    );
    expect(scores.result.map(({ metric, value }) => [metric.disk, metric.path, value[1]])).toEqual([['raft', disk.dir, '100']]);

    // Every query of the shipped dashboard is one Prometheus accepts, and those about the
    // disk find it.
    for (const { where, expr } of dashboardQueries()) {
      const query = substituteVariables(expr);
      const result = await api<{ result: unknown[] }>(base, `/api/v1/query?query=${encodeURIComponent(query)}`).catch((error: Error) => {
        throw new Error(`${where}: ${query}: ${error.message}`);
      });
      if (/slowdisk_(slow_score|store_reported_score|disk_up|disk_info|inspection_duration_seconds_bucket)\b/.test(query) && !query.includes(':p99_5m')) {
        expect(result.result.length, `${where}: ${query}`).toBeGreaterThan(0);
      }
    }
  });
});
