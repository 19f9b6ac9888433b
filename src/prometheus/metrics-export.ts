// --textfile and --listen: the run's metrics, kept up to date from the session's rounds and
// inspections, written to node_exporter's textfile directory and/or served for scraping.
import type { Registry } from 'prom-client';
import type { ScoreParams } from '../score/score-params.js';
import type { ProbeSession } from '../live/probe-session.js';
import { formatListenAddress, type ListenAddress } from './listen-address.js';
import type { MetricsServer } from './metrics-server.js';
import { hostname } from 'node:os';
import { TEXTFILE_NAME, type FileReplacer, type TextfileWriter } from './textfile.js';

export interface MetricsTargets {
  /** node_exporter's --collector.textfile.directory. */
  textfile?: string;
  /** Writes the textfile (needed with `textfile`): the output writer the session's prober hosts. */
  output?: FileReplacer | null;
  listen?: ListenAddress;
  /** --store: the store's name, in the store label and the textfile's name. */
  store?: string;
}

/**
 * The store label of every series: this host's name, and the store's after a slash when it is
 * named. A store scraped through the textfile and through /metrics has the same label both
 * ways, so that the fleet rules count it once.
 */
export function storeLabel(store: string | undefined, host: string = hostname()): string {
  return store === undefined ? host : `${host}/${store}`;
}

/** The textfile of a named store is its own, so that one directory serves several. */
export function textfileName(store: string | undefined): string {
  return store === undefined ? TEXTFILE_NAME : `slowdisk-store-${store}.prom`;
}

export class MetricsExport {
  private constructor(
    private readonly textfile: TextfileWriter | null,
    private readonly server: MetricsServer | null,
  ) {}

  /** Binds the port (or says why it cannot, and goes on) and writes the first textfile; rejects with one line when that cannot be done. */
  /** `drives`: the drives' gauges (--all-devices, --devices), served at /metrics beside the probes' (their textfile is their own). */
  static async start(
    targets: MetricsTargets,
    session: ProbeSession,
    params: ScoreParams,
    buffered: boolean,
    drives: Registry | null = null,
  ): Promise<MetricsExport | null> {
    if (targets.textfile === undefined && targets.listen === undefined) return null;
    // Imported only here: prom-client is as much memory as the rest of a run without them.
    // The server only with --listen: it loads node:http.
    const [{ SlowdiskMetrics, ListenMetric }, serverModule, { TextfileWriter }, { Registry }] = await Promise.all([
      import('./metrics.js'),
      targets.listen ? import('./metrics-server.js') : null,
      import('./textfile.js'),
      import('prom-client'),
    ]);
    const metrics = new SlowdiskMetrics(params, buffered);
    metrics.registry.setDefaultLabels({ store: storeLabel(targets.store) });
    metrics.begin(session.statuses(), Date.now());
    const served = drives ? Registry.merge([metrics.registry, drives]) : metrics.registry;
    // A merged registry has default labels of its own: the store label, on the drives' series too.
    served.setDefaultLabels({ store: storeLabel(targets.store) });
    // The textfile says whether the address is served: node_exporter reads it whoever holds the port.
    const listenMetric = targets.listen ? new ListenMetric(formatListenAddress(targets.listen)) : null;
    const written = listenMetric ? Registry.merge([metrics.registry, listenMetric.registry]) : metrics.registry;
    written.setDefaultLabels({ store: storeLabel(targets.store) });
    const textfile = targets.textfile === undefined ? null : new TextfileWriter(targets.output!, targets.textfile, () => written.metrics(), textfileName(targets.store));
    let started = false;
    const server =
      targets.listen && serverModule
        ? new serverModule.MetricsServer(targets.listen, served, (problem) => {
            listenMetric!.set(problem === null);
            if (started) textfile?.update();
          })
        : null;
    await server?.start();
    try {
      await textfile?.start();
    } catch (error) {
      await server?.close();
      throw error;
    }
    started = true;
    session.on('inspection', (record) => metrics.inspection(record));
    session.on('round', (report) => {
      metrics.round(report, session.chargedTimeouts(), Date.now());
      textfile?.update();
    });
    session.on('event', (event) => {
      if (event.kind !== 'hung' && event.kind !== 'contested' && event.kind !== 'back') return;
      metrics.states(session.statuses());
      textfile?.update();
    });
    return new MetricsExport(textfile, server);
  }

  /** Why --listen's address is not served now; null while it is, or without --listen. */
  listenProblem(): string | null {
    return this.server?.problem() ?? null;
  }

  /** "the textfile PATH" when its latest content was not written. */
  notWritten(): string | null {
    return this.textfile?.notWritten() ?? null;
  }

  async stop(): Promise<void> {
    await Promise.all([this.textfile?.stop(), this.server?.close()]);
  }
}
