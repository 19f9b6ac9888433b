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
