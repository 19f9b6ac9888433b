// Messages between the CLI process and the prober child (Node IPC, advanced serialization: a
// hosted output's messages hold NaN). The CLI gives the
// prober a schedule and the disks to inspect; the prober's native threads keep the ticks, and
// their records come back in batches, about once a round: every message costs both processes
// a wakeup, a JSON round and a syscall, and a tick's worth of them cost far more than its I/O.
import type { ErrorFields } from '../native/addon.js';
import type { Resolution } from '../native/batch-records.js';
import type { ProbeParams } from './probe-params.js';

export interface ProbeTarget {
  name: string;
  dir: string;
  /**
   * Where `dir` led at start, every symlink resolved: probed there only, by every prober of
   * the session. Set by the first resolution.
   */
  resolvedDir?: string;
}

/** A ProbeError's fields, as they cross to the CLI. */
export type SerializedProbeError = ErrorFields;

export type { BatchRecord, InspectedRecord, PhaseTimings, ResolvedRecord, Resolution, TimedRow } from '../native/batch-records.js';

/**
 * When the prober's ticks and batches are due, on CLOCK_MONOTONIC in ms (both processes read
 * it): tick k at startMs + k * intervalMs; a batch at startMs + n * flushPeriodMs +
 * flushSlackMs, just after a round's close, and at once for what changes what a user sees.
 */
export interface ProberSchedule {
  startMs: number;
  intervalMs: number;
  roundTicks: number;
  flushPeriodMs: number;
  flushSlackMs: number;
}

/** A disk to inspect; `device`: MAJ:MIN of the filesystem it is placed on, where alone a probe file is made. */
export interface Placement {
  name: string;
  device?: string;
}

export type ToProber =
  | { type: 'configure'; targets: ProbeTarget[]; probe: ProbeParams }
  /** From now on the prober inspects on the schedule by itself. */
  | { type: 'schedule'; schedule: ProberSchedule }
  /** The disks to inspect from tick `fromTick` on; any other is let go (its probe file removed). */
  | { type: 'place'; disks: Placement[]; fromTick: number }
  /** One message for all the paths asked about at once; each is answered on its own. */
  | { type: 'resolve'; names: string[] }
  /** A batch now, not at its time. */
  | { type: 'flush' }
  /** `leaving`: the paths the CLI will not wait for (hung): the prober records them as stuck. */
  | { type: 'stop'; leaving?: string[] }
  /** For what the prober process hosts beside the probes (the output writer, src/output/); the prober reads none of it. */
  | { type: 'hosted'; message: unknown };

export type FromProber =
  /** The prober's first message: Node started in it, its threads made. */
  | { type: 'started' }
  | { type: 'resolved'; name: string; resolution?: Resolution; error?: SerializedProbeError }
  /**
   * Every record made before `coveredMs`, in the order they were made, that no earlier batch
   * held: a BatchRecord[] as JSON text, which the addon wrote and only the CLI parses.
   */
  | { type: 'batch'; coveredMs: number; recordsJson: string }
  /** A path's probe file was removed: when it was let go, and for each path as the prober stops. */
  | { type: 'released'; name: string; error?: SerializedProbeError }
  /** The prober has recorded the paths it is left stuck on, and is removing its probe files. */
  | { type: 'stopping' }
  | { type: 'stopped' }
  /** From what the process hosts beside the probes. */
  | { type: 'hosted'; message: unknown };

/** How a prober exits when the addon cannot be loaded; its last line on stderr names the file tried and why. */
export const EXIT_NO_ADDON = 78;

/** The program a prober runs as: a module that calls startProber, and its environment. */
export interface ProberProgram {
  entry: string;
  env?: Record<string, string>;
}
