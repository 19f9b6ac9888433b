// What a test on a frozen disk may leave behind: watches still running (a failed assertion
// skips their stop) and probers stuck on the disk until it thaws.
import { isAlive, startCli, waitFor } from './run-cli.js';
import { removeAllTestDisks } from './test-disk.js';

export class FrozenDiskLeftovers {
  /** Probers stuck on a frozen disk: they exit once it thaws. */
  readonly stuck = new Set<number>();
  /** Watches a failed test left running. */
  readonly watches = new Set<ReturnType<typeof startCli>>();

  /** For afterEach: stops the watches, thaws and removes the disks, and waits for the stuck probers to exit. */
  async cleanUp(): Promise<void> {
    for (const watch of this.watches) if (watch.child.exitCode === null && watch.child.signalCode === null) watch.child.kill('SIGTERM');
    await Promise.all([...this.watches].map((watch) => watch.done));
    this.watches.clear();
    // remove-disk thaws first; the probers stuck there then finish and exit.
    await removeAllTestDisks();
    await waitFor(() => [...this.stuck].every((pid) => !isAlive(pid)), 15_000, 'the stuck probers to exit');
    this.stuck.clear();
  }
}
