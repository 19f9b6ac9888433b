// Writes completion/slowdisk.bash, bash completion of slowdisk's commands, their flags and
// the values a flag takes (its choices, a directory, a file, the stores served), from the commands and flags as
// the CLI builds them (cli-reference.ts): run by `npm ci` and `npm pack` (prepare).
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { STATUS_DIR } from '../../src/status/status-socket.js';
import { REPO_ROOT } from '../repo-root.js';
import { cliReference, type CliCommand, type CliFlag } from './cli-reference.js';

export const COMPLETION = path.join(REPO_ROOT, 'completion/slowdisk.bash');

/** What completes a value: its choices, directories, files, or nothing (a number, a duration, a name). */
function valueCompletion(placeholder: string, choices: readonly string[] | null): string {
  if (choices) return `COMPREPLY=($(compgen -W '${choices.join(' ')}' -- "$cur"))`;
  if (/^(dir|name=dir)$/.test(placeholder)) return placeholder === 'dir' ? 'COMPREPLY=($(compgen -d -- "$cur"))' : 'COMPREPLY=()';
  if (/^(file|trace|cmd)$/.test(placeholder)) return 'COMPREPLY=($(compgen -f -- "$cur"))';
  return 'COMPREPLY=()';
}

/** status --store: the stores with a socket in the status directory (none for a user who may not read it). */
const SERVED_STORES = `COMPREPLY=($(compgen -W "$(cd ${STATUS_DIR} 2>/dev/null && for socket in *.sock; do [[ -S $socket ]] && printf '%s ' "\${socket%.sock}"; done)" -- "$cur"))`;

/** A flag that takes a value. */
type ValuedFlag = CliFlag & { placeholder: string };

function flagCompletion(command: CliCommand, flag: ValuedFlag): string {
  return command.name === 'status' && flag.long === '--store' ? SERVED_STORES : valueCompletion(flag.placeholder, flag.choices);
}

function commandCase(command: CliCommand): string[] {
  const longs = command.flags.map((flag) => flag.long);
  const valued = command.flags.filter((flag): flag is ValuedFlag => flag.placeholder !== null);
  const positional = command.args.length === 0 ? 'COMPREPLY=()' : command.args[0].name === 'dir' ? 'COMPREPLY=($(compgen -d -- "$cur"))' : 'COMPREPLY=($(compgen -f -- "$cur"))';
  return [
    `    ${command.name})`,
    '      case $prev in',
    ...valued.map((flag) => `        ${flag.long}) ${flagCompletion(command, flag)}; return ;;`),
    '      esac',
    `      if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W '${longs.join(' ')}' -- "$cur")); else ${positional}; fi`,
    '      ;;',
  ];
}

export function bashCompletion(): string {
  const cli = cliReference();
  return [
    '# bash completion for slowdisk: its commands, their flags, and the values a flag takes.',
    '# Generated from the flags slowdisk parses. Install it as',
    '# /usr/share/bash-completion/completions/slowdisk (or source it from ~/.bashrc).',
    '_slowdisk() {',
    '  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}',
    '  if ((COMP_CWORD == 1)); then',
    `    COMPREPLY=($(compgen -W '${[...cli.commands.map((command) => command.name), ...cli.flags.map((flag) => flag.long)].join(' ')}' -- "$cur"))`,
    '    return',
    '  fi',
    '  case ${COMP_WORDS[1]} in',
    ...cli.commands.flatMap(commandCase),
    '  esac',
    '}',
    'complete -o filenames -F _slowdisk slowdisk',
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(path.dirname(COMPLETION), { recursive: true });
  writeFileSync(COMPLETION, bashCompletion());
}
