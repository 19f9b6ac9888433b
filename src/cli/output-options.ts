// The flags that choose how watch and check report: --json, check's --format, and the
// Prometheus exports --textfile and --listen.
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { parseListenAddress, type ListenAddress } from '../prometheus/listen-address.js';
import type { CheckFormat, OutputOptions } from '../formats/report-options.js';
import { formatOption } from './format-option.js';
import { asArgument, HELP_HEADINGS } from './param-options.js';
import { rawPath } from './options.js';

export interface OutputOptionValues {
  json?: boolean;
  verbose?: boolean;
  utc?: boolean;
  format?: CheckFormat;
  textfile?: string;
  listen?: ListenAddress;
}

function listenArg(value: string): ListenAddress {
  return asArgument(() => parseListenAddress(value));
}

export function addOutputOptions(command: Command): Command {
  return command
    .optionsGroup(HELP_HEADINGS.outputs)
    .option('--json', 'print JSON Lines instead: a line per disk and one for the store every round, one per event')
    .option('--textfile <dir>', "write DIR/slowdisk.prom every round, for node_exporter's textfile collector (atomically); the drives' metrics go to DIR/slowdisk-drives.prom")
    .option('--listen <addr:port>', 'serve Prometheus metrics at http://ADDR:PORT/metrics (e.g. 127.0.0.1:9258, or :9258 for every interface)', listenArg);
}

/** The help of watch's --utc. */
export const UTC_HELP = 'start the plain lines with the time in UTC (2026-12-01T08:27:55Z), not local time with its offset';

/** The help of --verbose, on watch and replay. */
export const VERBOSE_HELP = "also show each block device behind the disks, every round: read, write and flush IOPS and latency, requests in flight, utilisation (the kernel's counters)";

export function addFormatOption(command: Command): Command {
  return command.addOption(
    formatOption("the last line: human, or nagios (a monitoring plugin's status line with perfdata)").helpGroup(HELP_HEADINGS.outputs),
  );
}

export function outputOptionsFrom(values: OutputOptionValues, cwd: string = process.cwd()): OutputOptions {
  const format = values.format ?? 'human';
  if (values.json && format !== 'human') throw new InvalidArgumentError(`--json and --format ${format} both say how to print the result: choose one`);
  return {
    json: values.json === true,
    format,
    ...(values.verbose ? { verbose: true } : {}),
    ...(values.utc ? { utc: true } : {}),
    ...(values.textfile === undefined ? {} : { textfile: path.resolve(cwd, rawPath('--textfile', values.textfile)) }),
    ...(values.listen === undefined ? {} : { listen: values.listen }),
  };
}
