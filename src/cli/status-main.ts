// `slowdisk status` on its own: it loads only what asking the service and printing its answer
// take, not the probe's modules, so that it answers in well under a second on a busy host.
import { Command } from 'commander';
import { runProgram } from './run-program.js';
import { statusCommand } from './status-command.js';

export async function statusMain(argv: string[]): Promise<void> {
  await runProgram(new Command('slowdisk').showHelpAfterError(false).addCommand(statusCommand()), argv);
}
