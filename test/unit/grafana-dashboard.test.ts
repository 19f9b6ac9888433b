// The shipped Grafana dashboard asks only for metrics slowdisk exports and rules it ships.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { SlowdiskMetrics } from '../../src/prometheus/metrics.js';
import { dashboardQueries, readDashboard } from '../helpers/dashboard-queries.js';

/**
 * The label sets the per-disk series of `expr` are grouped by before anything else is done
 * with them: null when one is read as it is, which a store scraped through the textfile and
 * /metrics at once would show twice (the two copies differ in job and instance).
 */
function perDiskGroupings(expr: string): (string[] | null)[] {
  const groupings: (string[] | null)[] = [];
  for (const match of expr.matchAll(/\bslowdisk_(disk_up|slow_score|inspection_\w+|device_\w+|disk_info|disk_block_device_info|memory_backed)\{/g)) {
    // The innermost aggregation around the selector: `max by (...) (` or `max by (...) (rate(`.
    const before = expr.slice(0, match.index);
    const aggregation = /(?:max|min|sum) by \(([^)]*)\) \((?:rate\()?$/.exec(before);
    groupings.push(aggregation ? aggregation[1]!.split(',').map((label) => label.trim()) : null);
  }
  return groupings;
}

const rules = readFileSync(new URL('../../contrib/prometheus/slowdisk-rules.yml', import.meta.url), 'utf8');
const recorded = new Set([...rules.matchAll(/- record: (\S+)/g)].map((match) => match[1]));

/** The series names slowdisk exports, histogram series included. */
async function exportedNames(): Promise<Set<string>> {
  const metrics = new SlowdiskMetrics({ ...DEFAULT_SCORE_PARAMS }, false);
  const names = new Set<string>();
  for (const metric of await metrics.registry.getMetricsAsJSON()) {
    names.add(metric.name);
    // prom-client's typings say a numeric enum; the objects carry the type's name.
    if (String(metric.type) === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(metric.name + suffix);
  }
  return names;
}

describe('contrib/grafana/slowdisk-dashboard.json', () => {
  it('shows the verdict, the scores with their thresholds, latency per phase, timeouts, errors, disks up and the block devices behind them', () => {
    const titles = readDashboard().panels.map((panel) => panel.title);
    expect(titles).toEqual(
      expect.arrayContaining([
        'Store score (as PD sees it)',
        'Store score',
        'Disks up',
        'Slow score per disk',
        'Timeouts charged per second',
        'Inspection errors per second',
        'Latency heatmap: $phase',
        'p50 and p99 latency: $phase',
        "p99 against the fleet's median (5m)",
        'Block device latency',
        'Block device IOPS',
        'Block devices: requests in flight, stalls',
      ]),
    );
  });

  it('shows each disk once when its store is scraped through the textfile and /metrics at once: grouped by store and disk, not by job', () => {
    const perDisk = dashboardQueries().filter(({ expr }) => expr.includes('disk=~"$disk"') && !expr.includes(':p99_5m'));
    expect(perDisk.length).toBeGreaterThan(10);
    for (const { where, expr } of perDisk) {
      for (const labels of perDiskGroupings(expr)) {
        expect(labels, `${where}: ${expr}`).not.toBeNull();
        expect(labels, `${where}: ${expr}`).toEqual(expect.arrayContaining(['store', 'disk']));
        expect(labels, `${where}: ${expr}`).not.toContain('job');
        // node_exporter's instance only where the series is joined with node_exporter's own,
        // which only the textfile's copy (scraped with node_exporter's instance) matches.
        if (labels!.includes('instance')) expect(expr, where).toMatch(/\* on \(instance, device\) group_left \(\) \(rate\(node_disk_/);
      }
    }
    // The host is chosen by store, which both scrapes carry alike.
    expect(readDashboard().templating.list.map((variable) => variable.name)).toEqual(expect.arrayContaining(['job', 'store', 'disk']));
  });

  it('queries only metrics slowdisk exports and the rules of contrib/prometheus', async () => {
    const exported = await exportedNames();
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThan(10);
    for (const { where, expr } of queries) {
      for (const [name] of expr.matchAll(/\b[a-z_]*:?slowdisk[a-z_:0-9]*/g)) {
        const known = exported.has(name) || recorded.has(name);
        expect(known, `${where}: ${name} is neither exported nor recorded`).toBe(true);
      }
    }
  });
});
