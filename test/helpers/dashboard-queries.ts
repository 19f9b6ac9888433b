// The PromQL queries of contrib/grafana/slowdisk-dashboard.json, for checking them against
// the metrics and rules slowdisk ships, and against a live Prometheus.
import { readFileSync } from 'node:fs';

export const DASHBOARD_FILE = new URL('../../contrib/grafana/slowdisk-dashboard.json', import.meta.url);

export interface DashboardQuery {
  /** The panel title, the variable or annotation name it comes from. */
  where: string;
  expr: string;
}

interface Panel {
  title: string;
  targets?: { expr: string }[];
  panels?: Panel[];
}

interface Dashboard {
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string | { query: string } }[] };
  annotations: { list: { name: string; expr?: string }[] };
}

export function readDashboard(): Dashboard {
  return JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
}

/** Every query: the panels' targets, the query variables' and the annotations'. */
export function dashboardQueries(dashboard: Dashboard = readDashboard()): DashboardQuery[] {
  const queries: DashboardQuery[] = [];
  const walk = (panels: Panel[]) => {
    for (const panel of panels) {
      for (const target of panel.targets ?? []) queries.push({ where: `panel "${panel.title}"`, expr: target.expr });
      walk(panel.panels ?? []);
    }
  };
  walk(dashboard.panels);
  for (const variable of dashboard.templating.list) {
    if (variable.type !== 'query') continue;
    const query = typeof variable.query === 'string' ? variable.query : variable.query.query;
    // label_values(SELECTOR, label) is Grafana's, not PromQL: its selector is the query.
    queries.push({ where: `variable ${variable.name}`, expr: query.replace(/^label_values\((.*), *\w+\)$/, '$1') });
  }
  for (const annotation of dashboard.annotations.list) {
    if (annotation.expr) queries.push({ where: `annotation "${annotation.name}"`, expr: annotation.expr });
  }
  return queries;
}

/** A query as Grafana would send it with every host and disk chosen, and one phase. */
export function substituteVariables(expr: string, phase = 'sync'): string {
  return expr
    .replaceAll('$__rate_interval', '1m')
    .replaceAll('$job', '.*')
    .replaceAll('$store', '.*')
    .replaceAll('$disk', '.*')
    .replaceAll('$phase', phase);
}
