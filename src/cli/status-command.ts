// `slowdisk status`: asks the running service (`watch --store NAME`) for its verdict now.
import { Command, InvalidArgumentError, Option } from 'commander';
import { formatOption } from './format-option.js';
import type { CheckFormat } from '../formats/report-options.js';
import { STATUS_DIR, STORE_NAME } from '../status/status-socket.js';

/** --store NAME, on watch, check and status. */
export function storeName(value: string): string {
  if (!STORE_NAME.test(value)) throw new InvalidArgumentError(`a store's name is 1 to 64 letters, digits, '.', '_', '@' or '-', not starting with a punctuation mark; got '${value}'`);
  return value;
}

export function statusCommand(): Command {
  const summary = "ask the running service (watch --store NAME) for the store's verdict now, as check prints it";
  const command = new Command('status')
    .summary(summary)
    .description(
      `${summary}: the score history, the detectors' states and the disks' summaries it has built up. It answers within 1s or says CRITICAL "slowdisk is not answering"; with no service running it exits 3. It touches no probed disk. The service answers root only, on a socket in ${STATUS_DIR}.`,
    )
    .addOption(new Option('--store <name>', 'the store to ask, as its service was started with --store (needed when several are served)').argParser(storeName))
    .option('--json', 'print the summary as one JSON line, as check --json ends with')
    // check's --format, from a module of its own: status loads none of the probe's option modules.
    .addOption(formatOption("human, or nagios (a monitoring plugin's status line with perfdata)"));
  command.addHelpText(
    'after',
    `
Examples:
  slowdisk status                                  # the one service of this host
  slowdisk status --store kv1 --format nagios      # SLOWDISK OK - store score 1 ... | 'store_score'=1;80;100;1;100 ...
  slowdisk status --store kv1 --json | jq .disks

Exit codes are check's: 0 OK, 1 WARNING, 2 CRITICAL (also a service that does not answer within 1s),
3 UNKNOWN (no service running, several and none named, or bad arguments).
`,
  );
  command.action(async (values: { store?: string; json?: boolean; format?: CheckFormat }) => {
    const format = values.format ?? 'human';
    if (values.json && format !== 'human') throw new InvalidArgumentError(`--json and --format ${format} both say how to print the result: choose one`);
    const { runStatus } = await import('../commands/status.js');
    await runStatus({ json: values.json === true, format, ...(values.store === undefined ? {} : { store: values.store }) });
  });
  return command;
}
