// A batch's records, as the addon writes them (native/record_json.cc) and the CLI reads them:
// the prober passes the batch's JSON on as it is, so that 640 inspections a second at 64
// disks cost it one string, not 640 objects made only to be serialized again.
import type { ErrorFields, ResolveResult } from './addon.js';

/** Where a directory led, and the filesystem it is on. */
export type Resolution = ResolveResult;

export interface PhaseTimings {
  openMs: number;
  writeMs: number;
  syncMs: number;
  readMs: number;
  closeMs: number;
  totalMs: number;
  /**
   * The time the probe thread was ready to run and waited for a CPU (its run delay) during the
   * inspection. Null where the kernel does not say.
   */
  waitMs: number | null;
  /** The same, from the thread's last reading (after the inspection before) to this one's start. */
  startWaitMs: number | null;
}

/**
 * A plain inspection's result, the bulk of every batch, kept short: name, tick, atMs, then
 * PhaseTimings' six durations in order, then when it started (its tick's lateness is that
 * less the tick's deadline), then its waits for a CPU, during it and before it, where read.
 */
export type TimedRow = [
  name: string,
  tick: number,
  atMs: number,
  openMs: number,
  writeMs: number,
  syncMs: number,
  readMs: number,
  closeMs: number,
  totalMs: number,
  startedMs: number,
  waitMs: number | null,
  startWaitMs: number | null,
];

/** Any other inspection's result. */
export interface InspectedRecord {
  kind: 'inspected';
  name: string;
  tick: number;
  /** When it was recorded, on the schedule's clock. */
  atMs: number;
  timings?: PhaseTimings;
  /** The probe file was (re)created during this inspection. */
  created?: boolean;
  /** Probe files of dead slowdisk runs, removed when this one's file was made. */
  staleRemoved?: string[];
  /**
   * A name race lost (ENAMETAKEN: something was put at the probe file's name, or EEXIST):
   * no inspection was made, and the tick is neither counted nor charged. Each tick without a
   * probe file since is answered so at once, while a fresh one is made, at most one a round.
   */
  lost?: ErrorFields;
  /** With `lost`: the fresh probe file made after the last name race had its name taken too. */
  contested?: boolean;
  error?: ErrorFields;
}

/** A directory resolved otherwise than at the last round. */
export interface ResolvedRecord {
  kind: 'resolved';
  name: string;
  atMs: number;
  resolution?: Resolution;
  error?: ErrorFields;
}

export type BatchRecord = TimedRow | InspectedRecord | ResolvedRecord;
