import { writeStderrLine } from '../common/visible-text.js';
import { MONOTONIC_CLOCK } from '../common/monotonic-clock.js';
import { relayedStdoutSettled } from './file-stdio.js';

// process.exit() drops what is still queued for a pipe: a reader slower than the writer (a
// replay of a day into jq) would lose the end of the output. Exits wait for this first.

/**
 * Resolves once everything written to stdout so far has been handed to the kernel, or after
 * `capMs` when given, so that a reader that stopped reading cannot hold a stopping watch.
 */
export function stdoutFlushed(capMs?: number): Promise<void> {
  if (process.stdout.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = capMs === undefined ? undefined : setTimeout(resolve, capMs);
    process.stdout.write('', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** How long a stopping run waits for its reader: one that stopped reading does not hold it longer. */
const STOPPING_FLUSH_CAP_MS = 2000;

/** Before a run exits: what was printed reaches the reader, unless it stopped reading for 2 s. */
export function stoppingRunFlushed(): Promise<void> {
  const startedMs = MONOTONIC_CLOCK.now();
  return stdoutFlushed(STOPPING_FLUSH_CAP_MS).then(() => relayedStdoutSettled(Math.max(0, STOPPING_FLUSH_CAP_MS - (MONOTONIC_CLOCK.now() - startedMs))));
}

let onUnwritable: { stop: () => void; goesOn: boolean } | null = null;

/**
 * stdout that cannot be written any more never ends the process with a stack trace. A reader
 * that went away (`| head`, a jq that exited) ends the run through `stop`, as a signal would,
 * silently. A write that failed (`>/dev/full`, a full or failing disk under a log) is one line
 * on stderr; then a run that `goesOn` (watch and check: the monitoring, hooks and metrics do
 * not depend on stdout) goes on and ends with its verdict's exit code, and any other ends
 * through `stop` (exit 3: nothing was decided). A later call replaces the first.
 */
export function whenReaderGone(stop: () => void, goesOn = false): void {
  const listening = onUnwritable !== null;
  onUnwritable = { stop, goesOn };
  if (listening) return;
  let told = false;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (told || !onUnwritable) return;
    told = true;
    const readerGone = error.code === 'EPIPE';
    if (!readerGone) writeStderrLine(`cannot write to stdout: ${error.message}${onUnwritable.goesOn ? '; the run goes on without it' : ''}`);
    if (readerGone || !onUnwritable.goesOn) onUnwritable.stop();
  });
}
