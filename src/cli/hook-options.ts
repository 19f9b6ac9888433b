// The action hooks' flags: what to run on eviction and on recovery (by hand), and for how long (from the specs).
import { InvalidArgumentError, type Command } from 'commander';
import { HOOK_SPECS, type HookParams } from '../hooks/hook-params.js';
import { addParamOptions, HELP_HEADINGS, paramsFrom, type OptionValues } from './param-options.js';

function commandArg(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('the command is empty');
  return value;
}

export function addHookOptions(command: Command): Command {
  command
    .optionsGroup(HELP_HEADINGS.hooks)
    .option('--on-evict <cmd>', 'run this with /bin/sh once the eviction threshold is reached, with a JSON report of the store on stdin', commandArg)
    .option('--on-recover <cmd>', 'run this with /bin/sh once the store has been back at score 1 for --recover-after after an eviction', commandArg);
  return addParamOptions(command, HOOK_SPECS);
}

/** undefined when no hook is given: nothing then needs to be kept for a report. */
export function hookParamsFrom(values: OptionValues): HookParams | undefined {
  const onEvict = values.onEvict as string | undefined;
  const onRecover = values.onRecover as string | undefined;
  if (onEvict === undefined && onRecover === undefined) return undefined;
  return { onEvict, onRecover, ...(paramsFrom(HOOK_SPECS, values) as Pick<HookParams, 'timeoutMs' | 'recoverAfterMs'>) };
}
