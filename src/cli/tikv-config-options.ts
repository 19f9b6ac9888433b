// --tikv-config: the Raft and KV directories and the inspect interval taken from TiKV's own
// configuration file, so that slowdisk probes what TiKV inspects. A flag given on the command
// line wins over the file.
import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { applyTikvConfig, readTikvSettings } from '../config/tikv-config.js';
import { writeStderrLine } from '../common/visible-text.js';
import { INTERVAL_SPEC } from '../score/score-params.js';
import { rawPath, type TargetOptionValues } from './options.js';
import { attributeOf, HELP_HEADINGS } from './param-options.js';

export interface TikvConfigOptionValues {
  tikvConfig?: string;
  tikvCwd?: string;
}

export function addTikvConfigOptions(command: Command): Command {
  return command
    .optionsGroup(HELP_HEADINGS.targets)
    .option('--tikv-config <file>', "take the Raft and KV directories and the inspect interval from TiKV's configuration file (flags win)")
    .option('--tikv-cwd <dir>', "tikv-server's working directory, against which TiKV resolves relative paths in --tikv-config");
}

/** The option values with what the file gives filled in; notes about the file go to stderr. */
export async function withTikvConfig<Values extends TargetOptionValues & TikvConfigOptionValues & Record<string, unknown>>(
  values: Values,
  command: Command,
): Promise<Values> {
  if (values.tikvConfig === undefined) {
    if (values.tikvCwd !== undefined) throw new InvalidArgumentError('--tikv-cwd is only read with --tikv-config');
    return values;
  }
  const interval = attributeOf(INTERVAL_SPEC);
  const fromConfig = applyTikvConfig(await readTikvSettings(rawPath('--tikv-config', values.tikvConfig)), {
    raft: values.raft,
    kv: values.kv,
    intervalMs: command.getOptionValueSource(interval) === 'cli' ? (values[interval] as number) : undefined,
    tikvCwd: values.tikvCwd === undefined ? undefined : path.resolve(rawPath('--tikv-cwd', values.tikvCwd, 'probe another directory')),
  });
  for (const note of fromConfig.notes) writeStderrLine(note);
  return { ...values, raft: fromConfig.raft, kv: fromConfig.kv, [interval]: fromConfig.intervalMs };
}
