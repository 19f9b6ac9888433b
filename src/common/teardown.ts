// What a run has taken, to be given back the same way whichever way the run ends: in the
// reverse of the order it was taken in, so that nothing is released before what depends on it,
// and those steps marked side by side together, so that their bounded waits overlap.

type Step = { release: () => unknown; sideBySide: boolean };

export class Teardown {
  readonly #steps: Step[] = [];
  #released: Promise<void> | null = null;

  /** `release` runs at release(), before everything added earlier and after everything added later. */
  add(release: () => unknown, options: { sideBySide?: boolean } = {}): void {
    if (this.#released) throw new Error('Teardown: added after its release');
    this.#steps.push({ release, sideBySide: options.sideBySide === true });
  }

  /** Runs every step once, however often it is called; each call resolves when all are done. */
  release(): Promise<void> {
    this.#released ??= this.#run();
    return this.#released;
  }

  async #run(): Promise<void> {
    const steps = this.#steps.reverse();
    for (let i = 0; i < steps.length; ) {
      let end = i + 1;
      if (steps[i]!.sideBySide) while (end < steps.length && steps[end]!.sideBySide) end += 1;
      await Promise.all(steps.slice(i, end).map((step) => step.release()));
      i = end;
    }
  }
}
