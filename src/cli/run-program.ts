// How every entry of the CLI parses and runs: a bad flag ends with one line on stderr (with
// --format nagios, also one status line on stdout) and exit 3, never a stack trace.
import { CommanderError, type Command } from 'commander';
import { fail, failAsNagios } from '../report/fail.js';
import { EXIT_UNKNOWN } from '../verdict/exit-codes.js';

function asksForNagios(argv: readonly string[]): boolean {
  return argv.some((arg, i) => arg === '--format=nagios' || (arg === '--format' && argv[i + 1] === 'nagios'));
}

export async function runProgram(program: Command, argv: string[]): Promise<void> {
  // Known before the flags are parsed: a bad flag is one status line on stdout too.
  if (asksForNagios(argv)) failAsNagios();
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
      if (error.exitCode === 0) process.exit(0);
      fail(error.message.replace(/^error: /, ''), EXIT_UNKNOWN);
    }
    fail(error instanceof Error ? error.message : String(error), EXIT_UNKNOWN);
  }
}
