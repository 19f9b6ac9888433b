// Where a session's paths are, as their directories last resolved: which path is inspected on
// which filesystem (src/layout/), recomputed from the mount table whenever a resolution came
// back otherwise. A directory is resolved once a round whatever the number of names given it
// (2,000 --path to one directory were 2,000 statx, messages and answers a round, which cost
// the inspections their ticks).
import { placeDisks, layoutChanged, type DiskPlacement } from '../layout/disk-layout.js';
import { MountTable } from '../mounts/mount-table.js';
import type { FromProber, ProbeTarget, Resolution, ToProber } from '../probe/prober-protocol.js';
import { describeError } from './shown-error.js';

/** A session that cannot start: a path that cannot be probed, or a prober lost at once. */
export class StartupError extends Error {}

/** How long the start waits for every directory's first resolution. */
const RESOLVE_TIMEOUT_MS = 5000;

/** The prober, as the start's resolution talks to it. */
export interface ResolvingProber {
  send(message: ToProber): void;
  on(event: 'message', listener: (message: FromProber) => void): unknown;
  on(event: 'lost', listener: (reason: string) => void): unknown;
  off(event: 'message', listener: (message: FromProber) => void): unknown;
}

export class SessionLayout {
  /** The names given each directory, the first of them the one resolved. */
  private readonly namesOfDir = new Map<string, string[]>();
  private readonly targetOfName = new Map<string, ProbeTarget>();
  private readonly resolutions = new Map<string, Resolution>();
  /** Names asked about whose answer has not come: a path whose last statx hangs is not asked again. */
  private readonly resolving = new Set<string>();
  /** Resolutions came back since the layout was last placed. */
  private stale = false;
  private layout: DiskPlacement[] = [];

  constructor(
    private readonly targets: ProbeTarget[],
    private readonly readMounts: () => MountTable = () => MountTable.read(),
  ) {
    for (const target of targets) {
      this.targetOfName.set(target.name, target);
      const names = this.namesOfDir.get(target.dir);
      if (names) names.push(target.name);
      else this.namesOfDir.set(target.dir, [target.name]);
    }
  }

  /** The names given the directory of `name`: the first of them is the one the prober resolves. */
  private namesOf(name: string): string[] {
    const target = this.targetOfName.get(name);
    return (target && this.namesOfDir.get(target.dir)) ?? [name];
  }

  /**
   * Resolves every directory once, through the prober, waiting for them all (at most 5 s: one
   * that does not answer in time is placed as its own disk until it does). A directory that
   * cannot be probed fails the start, naming every path given it.
   */
  async resolveAtStart(prober: ResolvingProber): Promise<void> {
    const pending = new Map<string, (message: FromProber & { type: 'resolved' }) => void>();
    const results = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => resolve(), RESOLVE_TIMEOUT_MS);
      const onMessage = (message: FromProber) => {
        if (message.type !== 'resolved') return;
        pending.get(message.name)?.(message);
        pending.delete(message.name);
        if (pending.size === 0) {
          clearTimeout(timer);
          prober.off('message', onMessage);
          resolve();
        }
      };
      prober.on('message', onMessage);
      prober.on('lost', (reason: string) => reject(new StartupError(reason)));
    });
    const failures: string[] = [];
    for (const { name, dir } of this.targets) {
      if (this.namesOf(name)[0] !== name) continue;
      pending.set(name, (message) => {
        if (!message.error) return;
        for (const each of this.namesOf(name)) failures.push(`${each}=${dir}: ${describeError(message.error)}`);
      });
    }
    prober.send({ type: 'resolve', names: [...pending.keys()] });
    await results;
    if (failures.length > 0) throw new StartupError(`cannot probe ${failures.join('; ')}`);
  }

  /** The names to ask the prober about for these paths: one per directory, none already asked. */
  toResolve(names: readonly string[]): string[] {
    const firsts = new Set(names.map((name) => this.namesOf(name)[0]!));
    const asked = [...firsts].filter((name) => !this.resolving.has(name));
    for (const name of asked) this.resolving.add(name);
    return asked;
  }

  /** The answer for `name` came: whether every answer asked for has. */
  answered(name: string): boolean {
    this.resolving.delete(name);
    return this.resolving.size === 0;
  }

  /** A new prober answers nothing the dead one was asked. */
  forgetAsked(): void {
    this.resolving.clear();
  }

  /**
   * A directory resolved (otherwise, perhaps). Placed once for a batch's resolutions, not once
   * per path: each reads and parses the mount table and places every path, and 64 paths'
   * answers in a row held the event loop for most of a tick (dev/bench/scale.ts).
   */
  resolved(name: string, resolution: Resolution | undefined): void {
    if (resolution) {
      // Pinned once: a restarted prober probes where the first one did, and nowhere else.
      for (const each of this.namesOf(name)) {
        this.resolutions.set(each, resolution);
        const target = this.targetOfName.get(each);
        if (target) target.resolvedDir ??= resolution.resolvedDir;
      }
    }
    if (this.layout.length > 0) this.stale = true;
  }

  /** Whether a resolution came since the layout was last placed; it is not from now on. */
  takeStale(): boolean {
    const stale = this.stale;
    this.stale = false;
    return stale;
  }

  /**
   * Places every path from the mount table as it is now; whether anything changed. A path
   * whose filesystem vanished keeps its place.
   */
  place(): { placements: DiskPlacement[]; changed: boolean } {
    const next = placeDisks(this.targets, this.resolutions, this.readMounts(), this.layout);
    const changed = layoutChanged(this.layout, next);
    this.layout = next;
    return { placements: next, changed };
  }

  /** The paths inspected, as last placed. */
  inspected(): DiskPlacement[] {
    return this.layout.filter((placement) => placement.inspected);
  }
}
