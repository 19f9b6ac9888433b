// `slowdisk analyze DIR`'s flags, mapped onto the peer comparison's params (src/commands/analyze.ts runs it).
import { Command, InvalidArgumentError } from 'commander';
import type { AnalyzeRequest } from '../commands/analyze.js';
import { PEER_SPECS, peerParams, type PeerParams } from '../drives/peer-params.js';
import { addParamOptions, asArgument, paramsFrom } from './param-options.js';
import { rawPath } from './options.js';

interface AnalyzeValues {
  json?: boolean;
  all?: boolean;
  slowRatio: number;
  windowDays: number;
  minSlowDays: number;
}

const ANALYZE_EXIT_HELP = `Exit codes:
  0  OK        no drive slow now (a drive that was slow and recovered is listed, not counted)
  1  WARNING   at least one drive slow now (fail-slow: slow but alive, so a warning, not critical)
  3  UNKNOWN   bad arguments, or nothing readable under DIR (one line on stderr)
  Bad rows and bad files are counted and reported, and skipped; they never change the exit code
  while anything else is readable.`;

export function analyzeCommand(): Command {
  const summary = 'find the fail-slow drives of each host in recorded latency and throughput series, against their peers, over days';
  const command = new Command('analyze')
    .summary(summary)
    .description(
      `${summary}. DIR holds one directory per host (DIR/host_*/YYYY-MM-DD.csv, columns ts,disk_id,throughput,latency and an optional class: ` +
        `drives are judged against the drives of their own class), or is one host's directory.`,
    )
    .argument('<dir>', 'the directory of per-host series')
    .option('--json', 'print one JSON line per drive, then a {"type":"summary"} line')
    .option('--all', 'list every host and drive, not only the slow ones');
  return addParamOptions(command, PEER_SPECS)
    .addHelpText(
      'after',
      `
Examples:
  slowdisk analyze /var/lib/disk-series              # DIR/host_*/YYYY-MM-DD.csv
  slowdisk analyze /var/lib/disk-series/host_17      # one host
  slowdisk analyze /var/lib/disk-series --json | jq 'select(.verdict == "slow")'   # slow now

${ANALYZE_EXIT_HELP}
`,
    )
    .action(async (dir: string, values: AnalyzeValues) => (await import('../commands/analyze.js')).runAnalyze(rawPath('the series directory', dir, 'read another directory'), analyzeRequestFrom(values)));
}

function analyzeRequestFrom(values: AnalyzeValues): AnalyzeRequest {
  if (values.minSlowDays > values.windowDays) {
    throw new InvalidArgumentError(`--min-slow-days (${values.minSlowDays}) cannot be more than --window-days (${values.windowDays})`);
  }
  const params = asArgument(() => peerParams(paramsFrom(PEER_SPECS, { ...values }) as Partial<PeerParams>));
  return { params, json: values.json === true, all: values.all === true };
}
