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
  return stdoutFlushed(STOPPING_FLUSH_CAP_MS);
}

/**
 * A reader that went away (`| head`, a jq that exited) ends the run through `stop`, as a
 * signal would, rather than with a stack trace.
 */
export function whenReaderGone(stop: () => void): void {
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    stop();
  });
}
