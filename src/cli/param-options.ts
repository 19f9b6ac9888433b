// Commander options made from the stages' parameter specs: one flag per spec, parsed and
// range-checked, its default shown in units, listed under its stage's heading; and the
// values parsed back into the stage's params.
import { InvalidArgumentError, Option, type Command } from 'commander';
import { defaultText, parseParam, rangeText, type HelpGroup, type ParamSpec, type ParamValue } from '../common/param-spec.js';

/** The headings of help, for the specs' groups and for the flags that set no parameter. */
export const HELP_HEADINGS: Readonly<Record<HelpGroup | 'targets' | 'drives' | 'outputs', string>> = {
  targets: 'Targets:',
  probe: 'Probe:',
  scoring: 'Scoring:',
  statistical: 'Statistical detector:',
  tail: 'Tail detector:',
  'early-warning': 'Early warning:',
  drives: 'Drives:',
  outputs: 'Outputs:',
  hooks: 'Hooks:',
  peer: 'Peer detector:',
  run: 'Run:',
};

/** The option values commander hands an action, by attribute name. */
export type OptionValues = Record<string, unknown>;

/** What `make` gives; a stage's RangeError becomes a bad argument: one line, exit 3. */
export function asArgument<T>(make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

/** Parses a flag's text to what the value allows; an error names what it expected. */
export function valueArg(value: ParamValue) {
  return (text: string): number | string => asArgument(() => parseParam(value, text));
}

export function paramOption(spec: ParamSpec): Option {
  const range = spec.kind === 'choice' || spec.kind === 'boolean' ? undefined : rangeText(spec);
  const option = new Option(spec.flag, range === undefined ? spec.meaning : `${spec.meaning} (${range})`).helpGroup(HELP_HEADINGS[spec.group]);
  if (spec.kind === 'boolean') return option;
  option.argParser(valueArg(spec));
  return spec.default === undefined ? option : option.default(spec.default, defaultText(spec));
}

export function addParamOptions(command: Command, specs: readonly ParamSpec[]): Command {
  for (const spec of specs) command.addOption(paramOption(spec));
  return command;
}

/** The name commander stores the flag's value under: --stat-threshold → statThreshold. */
export function attributeOf(spec: ParamSpec): string {
  return new Option(spec.flag).attributeName();
}

/** The stage's params from the option values: every spec's value, a flag without a value flipping its default. */
export function paramsFrom<Key extends string>(specs: readonly ParamSpec<Key>[], values: OptionValues): Partial<Record<Key, unknown>> {
  const params: Partial<Record<Key, unknown>> = {};
  for (const spec of specs) {
    const value = values[attributeOf(spec)];
    if (spec.kind === 'boolean') params[spec.key] = value === true ? !spec.default : spec.default;
    else if (value !== undefined) params[spec.key] = value;
  }
  return params;
}

/** A number flag that sets no stage parameter (replay --ticks), or a stage's own (analyze). */
export function numberArg(min: number, max: number, integer: boolean) {
  return valueArg({ kind: integer ? 'integer' : 'number', min, max }) as (text: string) => number;
}
