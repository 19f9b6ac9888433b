// watch and check with --all-devices or --devices and no path to probe: the drives alone.
import type { DriveRequest } from '../drives/drive-params.js';
import { DriveRun, DriveStartError } from './drive-run.js';
import { EXIT_SIGHUP, EXIT_SIGINT, EXIT_SIGTERM, EXIT_UNKNOWN } from '../verdict/exit-codes.js';
import { fail } from '../formats/fail.js';
import { OutputWriter, tellNotWritten } from '../output/output-writer.js';
import type { ListenAddress } from '../prometheus/listen-address.js';
import { stoppingRunFlushed, whenReaderGone } from '../terminal/stdout-flushed.js';

export interface DriveOnlyOptions {
  mode: 'watch' | 'check';
  drives: DriveRequest;
  json: boolean;
  /** --textfile: node_exporter's textfile directory. */
  textfile?: string;
  /** --listen: the drives' gauges served at /metrics. */
  listen?: ListenAddress;
  /** check: how long to sample. */
  durationMs?: number;
}

export async function runDrives(options: DriveOnlyOptions): Promise<void> {
  // The state directory and the textfile are written by the output writer, a process of its own here (there is no prober), never by the CLI.
  const writer = OutputWriter.inProcess();
  let run: DriveRun;
  try {
    run = await DriveRun.start(options.drives, { json: options.json, output: writer, textfile: options.textfile, serveMetrics: options.listen !== undefined });
  } catch (error) {
    if (error instanceof DriveStartError) fail(error.message, EXIT_UNKNOWN);
    throw error;
  }
  const listen = options.listen;
  // Imported only here, as for the probes: the server and prom-client are loaded with --listen alone.
  // An address that cannot be bound is told and tried again: the drives are judged meanwhile.
  const server = listen ? await import('../prometheus/metrics-server.js').then(({ MetricsServer }) => new MetricsServer(listen, run.registry!)) : null;
  await server?.start();
  let finishing = false;
  const finish = async (code?: number): Promise<void> => {
    if (finishing) return;
    finishing = true;
    await server?.close();
    const judgement = await run.finish();
    run.report(judgement);
    tellNotWritten(run.notWritten());
    writer.end();
    await stoppingRunFlushed();
    process.exit(code ?? run.exitCode(judgement));
  };
  process.on('SIGINT', () => void finish(EXIT_SIGINT));
  process.on('SIGTERM', () => void finish(EXIT_SIGTERM));
  process.on('SIGHUP', () => void finish(EXIT_SIGHUP));
  whenReaderGone(() => void finish(EXIT_UNKNOWN));
  if (options.mode === 'watch') {
    run.reportChanges();
    run.every(() => run.reportChanges());
    return;
  }
  run.every(() => {});
  setTimeout(() => void finish(), options.durationMs);
}
