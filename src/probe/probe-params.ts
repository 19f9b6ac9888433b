// How each disk is probed, and when an inspection in flight makes it hung: defaults and specs.
import { DAY_MS } from '../common/durations.js';
import type { DurationSpec, ParamSpec } from '../common/param-spec.js';

export type SyncMode = 'fdatasync' | 'fsync';

export interface ProbeParams {
  /** Bytes written and read back per inspection, rounded up to the filesystem's O_DIRECT alignment. */
  ioSize: number;
  /** false only with --buffered, for filesystems that refuse O_DIRECT. */
  direct: boolean;
  sync: SyncMode;
  /**
   * A disk whose inspection has been in flight this long is hung, whatever its score says
   * yet: Pebble warns of a stalled disk write at 5 s. From the clock, not the score, so that
   * even a check shorter than the score's 21 s to eviction names a hang.
   */
  hangAfterMs: number;
}

export const DEFAULT_PROBE_PARAMS: Readonly<ProbeParams> = Object.freeze({
  ioSize: 4096,
  direct: true,
  sync: 'fdatasync',
  hangAfterMs: 5000,
});

/** --hang-after: the CLI asks for a batch at the tick it comes to, the prober marks its stuck disks by it, and replay finds the same hung disks in a trace by it. */
export const HANG_AFTER_SPEC: DurationSpec<'hangAfterMs'> = Object.freeze({
  key: 'hangAfterMs',
  flag: '--hang-after <duration>',
  kind: 'duration',
  default: DEFAULT_PROBE_PARAMS.hangAfterMs,
  range: { minMs: 1, maxMs: DAY_MS },
  meaning: 'a disk whose inspection has been in flight this long is hung (WARNING at least)',
  group: 'probe',
  trace: 'hang_after_ms',
});

/** The probe's flags. How a disk is probed changes what a run measures, not how a trace replays: only --hang-after is recorded. */
export const PROBE_SPECS: readonly ParamSpec<keyof ProbeParams>[] = Object.freeze([
  { key: 'sync', flag: '--sync <call>', kind: 'choice', default: DEFAULT_PROBE_PARAMS.sync, choices: ['fdatasync', 'fsync'], meaning: 'the flush after each write: fdatasync or fsync', group: 'probe' },
  { key: 'direct', flag: '--buffered', kind: 'boolean', default: DEFAULT_PROBE_PARAMS.direct, meaning: 'probe without O_DIRECT, for a filesystem that refuses it (marked in every output)', group: 'probe' },
  {
    key: 'ioSize',
    flag: '--io-size <bytes>',
    kind: 'bytes',
    default: DEFAULT_PROBE_PARAMS.ioSize,
    min: 512,
    max: 1 << 20,
    meaning: 'bytes written and read per inspection, rounded up to the O_DIRECT alignment; the probe file is 65 such blocks (a header and 64 data blocks: 260 KiB at 4096)',
    group: 'probe',
  },
  HANG_AFTER_SPEC,
]);
