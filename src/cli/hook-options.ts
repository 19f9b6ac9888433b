// The action hooks' flags: what to run on eviction and on recovery, and for how long.
import { InvalidArgumentError, type Command } from 'commander';
import { DEFAULT_HOOK_PARAMS, HOOK_DURATION_RANGES, type HookParams } from '../params.js';
import { durationOption } from './options.js';

export interface HookOptionValues {
  onEvict?: string;
  onRecover?: string;
  hookTimeout: number;
  recoverAfter: number;
}

function commandArg(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('the command is empty');
  return value;
}

export function addHookOptions(command: Command): Command {
  return command
    .option('--on-evict <cmd>', 'run this with /bin/sh once the eviction threshold is reached, with a JSON report of the store on stdin', commandArg)
    .option('--on-recover <cmd>', 'run this with /bin/sh once the store has been back at score 1 for --recover-after after an eviction', commandArg)
    .addOption(durationOption('--hook-timeout <duration>', 'kill a hook (its whole process group) still running after this long', HOOK_DURATION_RANGES.timeoutMs, DEFAULT_HOOK_PARAMS.timeoutMs))
    .addOption(durationOption('--recover-after <duration>', "how long the store must stay at score 1 for --on-recover: PD's recovery duration", HOOK_DURATION_RANGES.recoverAfterMs, DEFAULT_HOOK_PARAMS.recoverAfterMs));
}

/** undefined when no hook is given: nothing then needs to be kept for a report. */
export function hookParamsFrom(values: HookOptionValues): HookParams | undefined {
  if (values.onEvict === undefined && values.onRecover === undefined) return undefined;
  return { onEvict: values.onEvict, onRecover: values.onRecover, timeoutMs: values.hookTimeout, recoverAfterMs: values.recoverAfter };
}
