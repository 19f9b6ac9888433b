// What the man page and the completion are made from: slowdisk's commands as the CLI builds
// them, with every flag (the parameters' from the registry, src/cli/param-registry.ts, and the
// others), its help group, its value's placeholder and the values it takes.
import type { Command, Help, Option } from 'commander';
import { buildProgram } from '../../src/cli/main.js';
import { ALL_PARAM_SPECS } from '../../src/cli/param-registry.js';
import type { ChoiceSpec } from '../../src/common/param-spec.js';

/** A flag: its terms (`-h, --help`), its long name, its placeholder (`dir`), its values, what help says of it. */
export interface CliFlag {
  term: string;
  long: string;
  placeholder: string | null;
  choices: readonly string[] | null;
  description: string;
  group: string;
}

export interface CliArgument {
  term: string;
  name: string;
  description: string;
}

export interface CliCommand {
  name: string;
  usage: string;
  summary: string;
  description: string;
  args: CliArgument[];
  flags: CliFlag[];
  examples: string[];
}

export interface CliReference {
  name: string;
  version: string;
  description: string;
  flags: CliFlag[];
  commands: CliCommand[];
}

const CHOICES = new Map(ALL_PARAM_SPECS.filter((spec): spec is ChoiceSpec => spec.kind === 'choice').map((spec): [string, readonly string[]] => [spec.flag.split(' ')[0], spec.choices]));

function flag(option: Option, help: Help): CliFlag {
  // Every flag slowdisk defines has a long name; a value's placeholder sits in <> or [].
  const long = option.long!;
  return {
    term: help.optionTerm(option),
    long,
    placeholder: option.required || option.optional ? option.flags.match(/[<[]([^>\]]+)[>\]]/)![1] : null,
    choices: option.argChoices ?? CHOICES.get(long) ?? null,
    description: help.optionDescription(option),
    group: option.helpGroupHeading ?? 'Options:',
  };
}

/** The afterHelp text a command adds (its examples, the exit codes), as help prints it. */
function textAfterHelp(command: Command): string {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: () => {} });
  command.outputHelp();
  return text.slice(command.helpInformation().length);
}

export function cliReference(): CliReference {
  const program = buildProgram();
  const help = program.createHelp();
  const commands = program.commands.map((command) => ({
    name: command.name(),
    usage: `${command.name()} ${command.usage()}`,
    summary: command.summary() || command.description(),
    description: command.description(),
    args: help.visibleArguments(command).map((arg) => ({ term: help.argumentTerm(arg), name: arg.name(), description: help.argumentDescription(arg) })),
    flags: help.visibleOptions(command).map((option) => flag(option, help)),
    examples: (textAfterHelp(command).match(/^Examples:\n((?:  .*\n?)+)/m)?.[1] ?? '').split('\n').filter(Boolean).map((line) => line.slice(2)),
  }));
  return {
    name: program.name(),
    // buildProgram sets the version: the man page's header names it.
    version: program.version()!,
    description: program.description(),
    flags: help.visibleOptions(program).map((option) => flag(option, help)),
    commands,
  };
}
