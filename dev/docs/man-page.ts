// Writes man/slowdisk.1, the manual page npm links in place on a global install (package.json
// `man`), from the commands and flags as the CLI builds them (cli-reference.ts) and the exit
// codes as help shows them: run by `npm ci` and `npm pack` (prepare), never edited by hand.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { exitCodeHelp } from '../../src/cli/exit-code-help.js';
import { DEFAULT_STATE_DIR } from '../../src/drives/drive-params.js';
import { REGISTRY_DIR } from '../../src/prober/prober-registry.js';
import { STATUS_DIR } from '../../src/status/status-socket.js';
import { REPO_ROOT } from '../repo-root.js';
import { cliReference, type CliCommand, type CliFlag } from './cli-reference.js';

export const MAN_PAGE = path.join(REPO_ROOT, 'man/slowdisk.1');

/** The probe file's name, as the addon makes it (native/probe_file.h). */
const PROBE_PREFIX = '.slowdisk-probe-';

/** Text as roff prints it: backslashes and hyphens literal, no line taken for a request. */
const roff = (text: string): string => text.replaceAll('\\', '\\e').replaceAll('-', '\\-').replace(/^(?=[.'])/gm, '\\&');

function flagItems(flags: CliFlag[]): string[] {
  const lines: string[] = [];
  let group: string | null = null;
  for (const flag of flags) {
    if (flag.group !== group) {
      group = flag.group;
      lines.push('.PP', `.B ${roff(group.replace(/:$/, ''))}`);
    }
    lines.push('.TP', `.B ${roff(flag.term)}`, roff(flag.description));
  }
  return lines;
}

function commandSection(command: CliCommand): string[] {
  const lines = ['.SS ' + `"${roff(command.usage)}"`, roff(command.description)];
  for (const arg of command.args) lines.push('.TP', `.I ${roff(arg.term)}`, roff(arg.description));
  lines.push(...flagItems(command.flags));
  if (command.examples.length > 0) lines.push('.PP', 'Examples:', '.PP', '.RS 4', '.nf', ...command.examples.map(roff), '.fi', '.RE');
  return lines;
}

export function manPage(): string {
  const cli = cliReference();
  const [first, ...rest] = cli.description.split(': ');
  return [
    `.TH SLOWDISK 1 "" "slowdisk ${roff(cli.version)}" "User Commands"`,
    // No hyphenation, no justification: every flag stays whole and searchable.
    '.nh',
    '.ad l',
    '.SH NAME',
    `slowdisk \\- ${roff(first.replace(/^Tells/, 'tells'))}`,
    '.SH SYNOPSIS',
    ...cli.commands.flatMap((command) => ['.B slowdisk', roff(command.usage.replace(/^\S+ /, `${command.name} `)), '.br']),
    '.B slowdisk',
    '\\-\\-version | \\-\\-help',
    '.SH DESCRIPTION',
    roff([first, ...rest].join(': ')),
    '.PP',
    'Run as root on the storage node. Every command lists its flags with \\fB\\-\\-help\\fR; the flags below are the same, with their defaults and the values they take.',
    '.SH OPTIONS',
    ...flagItems(cli.flags),
    '.SH COMMANDS',
    ...cli.commands.flatMap(commandSection),
    '.SH EXIT STATUS',
    ...(['watch', 'check', 'replay'] as const).flatMap((command) => [
      '.TP',
      `.B ${command}`,
      '.nf',
      ...exitCodeHelp(command).split('\n').slice(1).map((line) => roff(line.slice(2))),
      '.fi',
    ]),
    '.SH FILES',
    '.TP',
    `.I DIR/${roff(PROBE_PREFIX)}PID\\-HEX`,
    'The probe file, in each probed directory, made with O_EXCL under a random name while a run probes there, and removed when it ends; one left by a run that was killed is removed by the next.',
    '.TP',
    `.I ${roff(STATUS_DIR)}/STORE.sock`,
    'The status socket of \\fBwatch \\-\\-store\\fR STORE, which \\fBslowdisk status\\fR asks; the directory is root\\(aqs alone (0700).',
    '.TP',
    `.I ${roff(REGISTRY_DIR)}/`,
    'The registry of running probers, so that a prober stuck on a hung disk is found by the next run; root\\(aqs alone (0700).',
    '.TP',
    `.I ${roff(DEFAULT_STATE_DIR)}/`,
    'The state directory (\\fB\\-\\-state\\-dir\\fR): each probed path\\(aqs filesystem, remembered between runs (filesystems.state, filesystems\\-STORE.state), and the drives\\(aq history (drives.state).',
    '.PP',
    'The package holds, beside the program:',
    '.TP',
    '.I contrib/',
    'Prometheus alert rules with their promtool tests, a Grafana dashboard, and the systemd unit.',
    '.TP',
    '.I completion/slowdisk.bash',
    'Bash completion of the commands, flags and their values.',
    '.SH SEE ALSO',
    'The manual, one page per topic, is in the package\\(aqs docs/ (\\fB$(npm root \\-g)/slowdisk/docs\\fR after \\fBnpm install \\-g\\fR).',
    '',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(path.dirname(MAN_PAGE), { recursive: true });
  writeFileSync(MAN_PAGE, manPage());
}
