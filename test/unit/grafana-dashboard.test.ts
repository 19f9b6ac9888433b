// The shipped Grafana dashboard asks only for metrics slowdisk exports and rules it ships.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SCORE_PARAMS } from '../../src/score/score-params.js';
import { SlowdiskMetrics } from '../../src/report/metrics.js';
import { dashboardQueries, readDashboard } from '../helpers/dashboard-queries.js';

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
