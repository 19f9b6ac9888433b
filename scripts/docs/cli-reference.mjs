// What the man page and the completion are made from: slowdisk's commands as the CLI builds
// them, with every flag (the parameters' from the registry, src/cli/param-registry.ts, and the
// others), its help group, its value's placeholder and the values it takes.
import { buildProgram } from '../../dist/cli/main.js';
import { ALL_PARAM_SPECS } from '../../dist/cli/param-registry.js';

const CHOICES = new Map(ALL_PARAM_SPECS.filter((spec) => spec.kind === 'choice').map((spec) => [spec.flag.split(' ')[0], spec.choices]));

/** A flag: its terms (`-h, --help`), its long name, its placeholder (`dir`), its values, what help says of it. */
function flag(option, help) {
  return {
    term: help.optionTerm(option),
    long: option.long,
    placeholder: option.required || option.optional ? option.flags.match(/[<[]([^>\]]+)[>\]]/)[1] : null,
    choices: option.argChoices ?? CHOICES.get(option.long) ?? null,
    description: help.optionDescription(option),
    group: option.helpGroupHeading ?? 'Options:',
  };
}

/** The afterHelp text a command adds (its examples, the exit codes), as help prints it. */
function textAfterHelp(command) {
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk), writeErr: () => {} });
  command.outputHelp();
  return text.slice(command.helpInformation().length);
}

export function cliReference() {
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
    version: program.version(),
    description: program.description(),
    flags: help.visibleOptions(program).map((option) => flag(option, help)),
    commands,
  };
}
