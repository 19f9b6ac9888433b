// Messages between the CLI process and the prober child (Node IPC, JSON). The CLI asks once
// per tick for all disks, as every message costs both processes a wakeup, a JSON round and a
// syscall; the prober answers path by path, so that one hung disk never holds up another.
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

export interface SerializedProbeError {
  code: string;
  errno: number;
  syscall: string;
  path: string;
  message: string;
  offset?: number;
}

export interface Resolution {
  mntId: number;
  devMajor: number;
  devMinor: number;
  fsMagic: number;
  resolvedDir: string;
}

export interface PhaseTimings {
  openMs: number;
  writeMs: number;
  syncMs: number;
  readMs: number;
  closeMs: number;
  totalMs: number;
}

export interface InspectOrder {
  name: string;
  /** Also write a block the filesystem has to allocate (see InspectRequest.freshBlock). */
  freshBlock: boolean;
  /** MAJ:MIN of the filesystem the path is placed on: a probe file is made there only. */
  device?: string;
}

export type ToProber =
  | { type: 'configure'; targets: ProbeTarget[]; probe: ProbeParams }
  /** One message for all the paths asked about at once; each is answered on its own. */
  | { type: 'resolve'; names: string[] }
  /** A tick's inspections, one message for all its disks; each is answered as it finishes. */
  | { type: 'inspect'; tick: number; disks: InspectOrder[] }
  | { type: 'release'; name: string }
  /** `leaving`: the paths the CLI will not wait for (hung): the prober records them as stuck. */
  | { type: 'stop'; leaving?: string[] };

export type FromProber =
  | { type: 'resolved'; name: string; resolution?: Resolution; error?: SerializedProbeError }
  | {
      type: 'inspected';
      name: string;
      tick: number;
      timings?: PhaseTimings;
      /** The probe file was (re)created during this inspection. */
      created?: boolean;
      /** Probe files of dead slowdisk runs, removed when this one's file was made. */
      staleRemoved?: string[];
      /**
       * The probe file's name held something else (ENAMETAKEN, its message says what): it
       * was left alone, and this inspection ran on a new probe file under a fresh name.
       */
      nameTaken?: SerializedProbeError;
      error?: SerializedProbeError;
    }
  /** A path's probe file was removed: on request, and for each path as the prober stops. */
  | { type: 'released'; name: string; error?: SerializedProbeError }
  /** The prober has recorded the paths it is left stuck on, and is removing its probe files. */
  | { type: 'stopping' }
  | { type: 'stopped' };
