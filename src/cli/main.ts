// slowdisk's command line: parses flags into params, then hands over to the run loop.
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { ALLOW_SHORT_FLAG, CHECK_DURATION_SPEC, MINIMUM_CHECK_HELP, shortCheckRefusal } from '../commands/check-params.js';
import { parseUntil, WATCH_DURATION_SPEC, type UntilEvent } from '../commands/watch-params.js';
import { VERSION } from '../common/version.js';
import { exitCodeHelp } from './exit-code-help.js';
import { runProgram } from './run-program.js';
import { addHookOptions, hookParamsFrom } from './hook-options.js';
import {
  addProbeOptions,
  addRecordOption,
  addStatisticalOptions,
  addScoreOptions,
  addTargetOptions,
  verdictParamsFrom,
  probeParamsFrom,
  rawPath,
  scoreParamsFrom,
  statisticalParamsFrom,
  tailParamsFrom,
  targetsFrom,
  type TargetOptionValues,
} from './options.js';
import { asArgument, attributeOf, HELP_HEADINGS, paramOption, type OptionValues } from './param-options.js';
import { addFormatOption, addOutputOptions, outputOptionsFrom, UTC_HELP, VERBOSE_HELP, type OutputOptionValues } from './output-options.js';
import { analyzeCommand } from './analyze-command.js';
import { addDriveOptions, driveRequestFrom, stateDirFrom, type DriveOptionValues } from './drive-options.js';
import { replayCommand } from './replay-command.js';
import { statusCommand, storeName } from './status-command.js';
import { addPredictorOptions, predictorParamsFrom } from './predictor-options.js';
import type { RunOptions } from '../commands/probe-run.js';
import { addTikvConfigOptions, withTikvConfig, type TikvConfigOptionValues } from './tikv-config-options.js';

type ProbeCommandValues = TargetOptionValues & { record?: string; store?: string } & TikvConfigOptionValues & OutputOptionValues & DriveOptionValues & OptionValues;

async function runOptions(mode: RunOptions['mode'], given: ProbeCommandValues, command: Command): Promise<RunOptions> {
  const values = await withTikvConfig(given, command);
  const score = scoreParamsFrom(values);
  const drives = driveRequestFrom(values);
  return {
    mode,
    targets: targetsFrom(values, process.cwd(), drives === null),
    score,
    probe: probeParamsFrom(values),
    // Resolved here: the output writer that creates it runs in /.
    record: values.record === undefined ? undefined : path.resolve(rawPath('--record', values.record)),
    hooks: hookParamsFrom(values),
    output: outputOptionsFrom(values),
    statistical: statisticalParamsFrom(values, score),
    tail: tailParamsFrom(values, score),
    verdict: verdictParamsFrom(values),
    predictor: predictorParamsFrom(values, score),
    ...(drives === null ? {} : { drives }),
    ...(values.store === undefined ? {} : { store: values.store }),
    ...(values.mountpoint === undefined ? {} : { mountpoints: values.mountpoint }),
    ...(values.stateDir === undefined ? {} : { stateDir: stateDirFrom(values) }),
  };
}

/**
 * Without a path to probe, --all-devices and --devices run alone: the flags that need probed
 * paths are refused. Each command loads its own work when it runs (here and in the other
 * commands' actions): --help, --version and a bad flag load none of it, nor a replay the probe.
 */
async function run(options: RunOptions): Promise<void> {
  if (options.targets.length > 0 || !options.drives) return (await import('../commands/probe-run.js')).runProbe(options);
  const needPaths = [
    [options.record !== undefined, '--record'],
    [options.output?.format === 'nagios', '--format nagios'],
    [options.hooks !== undefined, '--on-evict and --on-recover'],
  ] as const;
  const given = needPaths.find(([on]) => on);
  if (given) throw new InvalidArgumentError(`${given[1]} reports on probed paths: give --raft, --kv or --path with it`);
  const { runDrives } = await import('../commands/drives-only.js');
  return runDrives({
    mode: options.mode,
    drives: options.drives,
    json: options.output?.json === true,
    textfile: options.output?.textfile,
    listen: options.output?.listen,
    durationMs: options.durationMs,
  });
}

function probeCommand(name: 'watch' | 'check', summary: string, examples: string): Command {
  const command = new Command(name).summary(summary).description(summary);
  addTargetOptions(command);
  addTikvConfigOptions(command);
  addProbeOptions(command);
  addScoreOptions(command);
  addStatisticalOptions(command);
  addPredictorOptions(command);
  addHookOptions(command);
  addDriveOptions(command);
  addOutputOptions(command);
  addRecordOption(command);
  // The flags added after these, and --help, under commander's own heading.
  command.optionsGroup('Options:');
  return command.addHelpText('after', `\n${examples}\n\n${exitCodeHelp(name)}\n`);
}

export function buildProgram(): Command {
  const program = new Command('slowdisk')
    .description("Tells whether a storage node's disks have gone slow but alive: TiKV's slow score, measured with timed O_DIRECT writes, syncs and reads.")
    .version(VERSION)
    .showHelpAfterError(false)
    .addHelpText('after', `\nEach command's --help lists its exit codes (3: bad arguments).\n`);

  const watch = probeCommand(
    'watch',
    'probe until interrupted, showing live scores; exit CRITICAL at the eviction threshold',
    `Examples:
  slowdisk watch                                   # the filesystem of the current directory
  slowdisk watch --raft /data/tikv/raft --kv /data/tikv/db
  slowdisk watch --path wal=/mnt/nvme0 --path data=/mnt/sdb --keep-going
  slowdisk watch --tikv-config /etc/tikv/tikv.toml --keep-going --on-evict /usr/local/bin/slowdisk-evict --on-recover /usr/local/bin/slowdisk-recover
  slowdisk watch --tikv-config conf/tikv.toml --kv /tidb-data/tikv-20160   # TiUP passes the data dir as tikv-server --data-dir
  slowdisk watch --kv /data/tikv/db --keep-going --listen :9258            # Prometheus scrapes http://HOST:9258/metrics
  slowdisk watch --kv /data/tikv/db --keep-going --textfile /var/lib/prometheus/node-exporter
  slowdisk watch --kv /data/tikv/db --json | jq -c 'select(.type == "store" or .type == "event")'
  slowdisk watch --kv /data/tikv/db --json --until evict,hung --duration 2m > run.jsonl   # a fault-injection script waits on it
  slowdisk watch --all-devices                     # every drive of the host against its peers, over days (no path probed)
  slowdisk watch --devices sdb,sdc,sdd,sde --state-dir /srv/slowdisk --json | jq -c 'select(.type == "drive")'`,
  )
    .addOption(new Option('--keep-going', 'go on past the eviction threshold instead of exiting').helpGroup(HELP_HEADINGS.run))
    .addOption(paramOption(WATCH_DURATION_SPEC))
    .addOption(
      new Option('--until <events>', 'stop at the first of these events (comma-separated: evict, slow, hung, down, back, evict-cleared, ...), with the exit code of the verdict so far')
        .argParser((text: string) => asArgument(() => parseUntil(text)))
        .helpGroup(HELP_HEADINGS.run),
    )
    .addOption(
      new Option('--store <name>', "name this store: `slowdisk status --store NAME` asks this run for its verdict, and the metrics' store label is HOST/NAME")
        .argParser(storeName)
        .helpGroup(HELP_HEADINGS.run),
    )
    .addOption(new Option('--verbose', VERBOSE_HELP).helpGroup(HELP_HEADINGS.outputs))
    .addOption(new Option('--utc', UTC_HELP).helpGroup(HELP_HEADINGS.outputs));
  watch.action(async (values: ProbeCommandValues & { keepGoing?: boolean; until?: UntilEvent[] }, command: Command) => {
    const durationMs = values[attributeOf(WATCH_DURATION_SPEC)] as number | undefined;
    return run({
      ...(await runOptions('watch', values, command)),
      keepGoing: values.keepGoing === true,
      ...(values.until === undefined ? {} : { until: values.until }),
      ...(durationMs === undefined ? {} : { durationMs }),
    });
  });

  const check = probeCommand(
    'check',
    'probe for a while, print one summary line, and exit with the verdict (for cron and monitoring)',
    `Examples:
  slowdisk check                                   # 30 s on the filesystem of the current directory
  slowdisk check --raft /data/tikv/raft --kv /data/tikv/db --duration 1m
  */5 * * * * root out=$(/usr/bin/slowdisk check --kv /data/tikv/db 2>&1) || echo "$out"   # /etc/cron.d: mails what is not OK
  slowdisk check --tikv-config /etc/tikv/tikv.toml --on-evict 'cat > /var/tmp/slowdisk-evict.json'   # the hook's JSON report on stdin
  slowdisk check --kv /data/tikv/db --format nagios      # SLOWDISK OK - store score 1 ... | 'store_score'=1;80;100;1;100 ...
  slowdisk check --kv /data/tikv/db --json | jq -c 'select(.type == "summary")'
  */5 * * * * root /usr/bin/slowdisk check --kv /data/tikv/db --textfile /var/lib/prometheus/node-exporter >/dev/null
  */5 * * * * root out=$(/usr/bin/slowdisk check --all-devices --duration 30s 2>&1) || echo "$out"   # a JBOD host's drives, history in /var/lib/slowdisk
  slowdisk check --raft /data/tikv/raft --kv /data/tikv/db --all-devices --json

${MINIMUM_CHECK_HELP}`,
  )
    .addOption(paramOption(CHECK_DURATION_SPEC))
    .addOption(new Option(ALLOW_SHORT_FLAG, 'run a --duration too short to reach CRITICAL (a slow disk is WARNING at most)').helpGroup(HELP_HEADINGS.run));
  addFormatOption(check);
  check.action(async (values: ProbeCommandValues & { allowShort?: boolean }, command: Command) => {
    const options = await runOptions('check', values, command);
    const durationMs = values[attributeOf(CHECK_DURATION_SPEC)] as number;
    const refusal = options.targets.length > 0 && values.allowShort !== true ? shortCheckRefusal(durationMs, options.score) : null;
    if (refusal) throw new InvalidArgumentError(refusal);
    return run({ ...options, durationMs });
  });

  program.addCommand(watch).addCommand(check);
  program.addCommand(statusCommand());
  program.addCommand(replayCommand());
  program.addCommand(analyzeCommand());
  return program;
}

/** Runs the CLI; a bad flag ends with one line on stderr and exit 3, never a stack trace. */
export async function main(argv: string[]): Promise<void> {
  await runProgram(buildProgram(), argv);
}
