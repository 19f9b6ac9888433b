// `watch --json` read round by round, for the tests of why a disk was slow: each disk line's
// cause and hold, the store lines, the events, and a wait that says what the rounds showed
// when what it waits for never comes.
import { jsonLines, waitFor, type RunningCli } from './run-cli.js';

/** The complete lines printed so far. */
export const linesOf = (watch: RunningCli) => {
  const out = watch.stdout();
  return out.includes('\n') ? jsonLines(out.slice(0, out.lastIndexOf('\n') + 1)) : [];
};
export const diskLines = (watch: RunningCli, disk = 'a') => linesOf(watch).filter((line) => line.type === 'disk' && line.disk === disk);
export const storeLines = (watch: RunningCli) => linesOf(watch).filter((line) => line.type === 'store');
export const events = (watch: RunningCli) => linesOf(watch).filter((line) => line.type === 'event').map((line) => line.event);
/** The cause of each of disk a's rounds from the `from`th on; undefined where it was not slow. */
export const causesOf = (watch: RunningCli, from = 0) => diskLines(watch).slice(from).map((line) => line.cause as string | undefined);

/** Waits for `predicate`; if it never holds, says what the rounds showed. */
export function waitForRounds(watch: RunningCli, predicate: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const lastRounds = () =>
    linesOf(watch)
      .filter((line) => line.type === 'disk' || line.type === 'device')
      .slice(-30)
      .map((line) => (line.type === 'disk' ? `tick ${line.tick}: score ${line.score} stat ${line.statistical} cause ${line.cause}` : `  ${line.device} ${line.w_iops} w/s ${line.w_ms} ms`));
  return waitFor(predicate, timeoutMs, what, () => `the last rounds:\n${lastRounds().join('\n')}`);
}
