// How every entry of the CLI parses and runs: a bad flag ends with one line on stderr (with
// --format nagios, also one status line on stdout) and exit 3, never a stack trace.
import { CommanderError, type Command } from 'commander';
import { fail, failAsNagios } from '../formats/fail.js';
import { relayFileStdio } from '../terminal/file-stdio.js';
import { stdoutFlushed, whenReaderGone } from '../terminal/stdout-flushed.js';
import { EXIT_UNKNOWN } from '../verdict/exit-codes.js';

function asksForNagios(argv: readonly string[]): boolean {
  return argv.some((arg, i) => arg === '--format=nagios' || (arg === '--format' && argv[i + 1] === 'nagios'));
}

export async function runProgram(program: Command, argv: string[]): Promise<void> {
  // Known before the flags are parsed: a bad flag is one status line on stdout too.
  if (asksForNagios(argv)) failAsNagios();
  relayFileStdio();
  // stderr that cannot be written leaves nothing to tell it on; stdout that cannot is one
  // line and exit 3 until a command says what its end is.
  process.stderr.on('error', () => {});
  whenReaderGone(() => process.exit(EXIT_UNKNOWN));
  program.exitOverride();
  program.configureOutput({ writeErr: () => {} });
  for (const command of program.commands) {
    command.exitOverride();
    command.configureOutput({ writeErr: () => {} });
  }
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version: written, or not (exit 3, see whenReaderGone).
      if (error.exitCode === 0) await stdoutFlushed().then(() => process.exit(0));
      // No command at all: the usage, where the error would go, and bad arguments' exit code.
      if (error.code === 'commander.help') {
        process.stderr.write(program.helpInformation());
        process.exit(EXIT_UNKNOWN);
      }
      // One line: commander puts its "(Did you mean --format?)" on a line of its own.
      fail(error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '), EXIT_UNKNOWN);
    }
    fail(error instanceof Error ? error.message : String(error), EXIT_UNKNOWN);
  }
}
