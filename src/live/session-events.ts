// What a live session tells its outputs: each disk's status, each round, each inspection as it
// came back, and the events between rounds (the outputs, src/hooks/ and src/record/ read them).
import type { DiskPlacement } from '../layout/disk-layout.js';
import type { FilesystemIdentity } from '../layout/filesystem-memory.js';
import type { DeviceFigures } from '../kernel/device-counters.js';
import type { Confirmation, DetectorState } from '../detectors/statistical-detector.js';
import type { Prediction } from '../early-warning/predictor.js';
import type { TailState } from '../detectors/tail-detector.js';
import type { PhaseTimings, SerializedProbeError } from '../probe/prober-protocol.js';
import type { Severity } from '../score/store-score.js';
import type { ThresholdCrossing } from '../verdict/threshold-crossings.js';
import type { SlowCause } from '../verdict/slow-cause.js';
import type { WarningBasis } from '../verdict/busy-verdict.js';

/** `hung`: an inspection has been in flight for --hang-after, from the clock, whatever the score says yet. */
/** `contested`: each probe file made in its directory has its name taken by someone else; nothing of the disk is seen, nothing charged. */
export type DiskState = 'starting' | 'up' | 'down' | 'hung' | 'contested' | 'skipped';

export interface DiskStatus extends DiskPlacement {
  state: DiskState;
  score: number;
  /** The last inspection that completed. */
  last?: PhaseTimings;
  /** Why the disk is down. */
  error?: SerializedProbeError;
  /** How long the inspection in flight has been running, once it has missed its tick. */
  waitingMs?: number;
  /** A hung disk: when the inspection in flight started, wall-clock ms since the epoch. */
  hungSinceMs?: number;
  /** A hung disk left to the prober of an earlier run, stuck there: that prober's pid. */
  stuckProber?: number;
  inspections: number;
  errors: number;
  /** The statistical detector's state, for an inspected disk. */
  statistical?: DetectorState;
  /** The tail detector's state, for an inspected disk. */
  tail?: TailState;
  /** The kernel's names of the block devices behind its filesystem, from the filesystem's own down. */
  blockDevices?: string[];
  /** Those of them that stalled in the last round: requests in flight, none completed. */
  stalledDevices?: string[];
  /** The early-warning predictor's latest answer, for an inspected disk, once it has a sample. */
  prediction?: Prediction;
  /** The statistical detector has judged it against a baseline (else its state is no verdict yet: warming up). */
  statisticalJudged?: boolean;
  /** Confirmed by the statistical detector: by which path, and how long after its deviation began. */
  confirmation?: Confirmation;
  /** The tail detector has a baseline for it (else its state is no verdict yet: warming up). */
  tailJudged?: boolean;
  /** How long a continuous run repeating its recent rounds would take to evict it: null if never. */
  evictionInMs?: number | null;
  /** Why it was slow in the last round, if it was (src/verdict/slow-cause.ts). */
  cause?: SlowCause;
  /** At the eviction threshold, held from eviction because it is busy: the cause that says so (src/verdict/busy-verdict.ts). */
  held?: SlowCause;
  /** In state warning: what the warning is of, load or the device (src/verdict/busy-verdict.ts). */
  warningOf?: WarningBasis;
  /** Another filesystem was mounted onto its directory during the run, or since the last run that remembers it: WARNING. */
  filesystemChanged?: boolean;
  /** The filesystem it was on before that change, as describeFilesystem says it. */
  filesystemWas?: string;
}

export interface RoundReport {
  tick: number;
  elapsedMs: number;
  storeScore: number;
  reportedScore: number;
  disks: DiskStatus[];
  /** What each block device behind the inspected disks did over the round, from the kernel's counters. */
  devices: DeviceFigures[];
  /** What the round made the run: the score's severity and the detectors' (a hang is the verdict's between rounds). */
  severity: Severity;
  /** The thresholds the reported store score crossed at this round. */
  crossings: readonly ThresholdCrossing[];
  /** The store's score over the disks not held busy: what the evict hook acts on. */
  actedScore: number;
}

export type SessionEvent =
  | { kind: 'down'; disk: string; error: SerializedProbeError }
  | { kind: 'back'; disk: string }
  /** An inspection of the disk has been in flight for --hang-after, since `sinceMs` (wall clock). */
  | { kind: 'hung'; disk: string; sinceMs: number; waitingMs: number; stuckProber?: number }
  | { kind: 'layout'; disks: DiskPlacement[] }
  /** The path is on another filesystem than at the last run with this --state-dir. */
  | { kind: 'filesystem-changed'; disk: string; dir: string; was: FilesystemIdentity; now: FilesystemIdentity }
  | { kind: 'stale-removed'; disk: string; paths: string[] }
  /** The probe file's name held someone else's file (the error says what): left alone, and probed under a fresh name. */
  | { kind: 'name-taken'; disk: string; error: SerializedProbeError }
  /** The fresh probe file's name was taken too: the directory is contested, its ticks neither counted nor charged. */
  | { kind: 'contested'; disk: string; error: SerializedProbeError }
  /** The CLI itself was held up this long (stopped, or starved of CPU): the prober's records were read late, judged on their own clock. */
  | { kind: 'held-up'; ms: number }
  /** The prober died (`reason` names its pid and how) and a new one took over. */
  | { kind: 'prober-restarted'; reason: string; pid?: number };

/** One inspection as it came back: what the recorder and the detectors consume. */
export interface InspectionRecord {
  tick: number;
  disk: string;
  timings?: PhaseTimings;
  error?: SerializedProbeError;
  /** It finished under the interval but was recorded after its tick had ended: charged. */
  late: boolean;
  /** No inspection was made: its probe file's name was taken (`error` says by what), neither counted nor charged. */
  lost?: boolean;
  /** Wall-clock time the prober recorded it, ms since the epoch. */
  wallMs: number;
}

export interface SessionEvents {
  round: [RoundReport];
  inspection: [InspectionRecord];
  event: [SessionEvent];
  /** The run cannot go on: a path that cannot be probed at start, or a lost prober. */
  fatal: [string];
}
