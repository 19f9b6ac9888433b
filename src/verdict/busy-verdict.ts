// A disk slow because it is busy (slow-cause.ts: others' I/O on a device under it, a prober
// that waited for a CPU, or an I/O limit of slowdisk's cgroup used to its edge) has no fault to evict it for: evicting it moves the load elsewhere,
// and the store may lose a healthy replica. By default such a disk at the eviction threshold makes the verdict WARNING, not
// CRITICAL, and runs no evict hook: it is *held*. `--busy critical` lets the score alone decide,
// as TiKV and PD do. The score, its rounds and its events are TiKV's either way. A hung disk is
// never held (no inspection of it completes: the load cannot be told from a dead disk), nor is
// one whose last slow round had any other cause.
import type { ChoiceSpec } from '../common/param-spec.js';
import { SCORE_FLOOR } from '../score/score-params.js';
import type { SlowCause } from './slow-cause.js';

const BUSY_VERDICTS = ['warning', 'critical'] as const;
export type BusyVerdict = (typeof BUSY_VERDICTS)[number];

/** --busy: what a disk at the eviction threshold makes the verdict when it is slow because it is busy. */
export const BUSY_SPEC: ChoiceSpec<'busy'> = Object.freeze({
  key: 'busy',
  flag: '--busy <verdict>',
  kind: 'choice',
  default: 'warning',
  choices: BUSY_VERDICTS,
  meaning: "a disk at the eviction threshold slow from others' I/O, a starved prober or an I/O limit (cause load, cpu or throttle): warning, and no evict hook; critical: the score alone decides, as in TiKV",
  group: 'scoring',
  trace: 'busy',
});

/** The causes that say a disk is busy, not failing. */
const BUSY_CAUSES: ReadonlySet<SlowCause> = new Set(['load', 'cpu', 'throttle']);

export function isBusyCause(cause: SlowCause | undefined): boolean {
  return cause !== undefined && BUSY_CAUSES.has(cause);
}

/**
 * What an early warning forecasts, from the cause of the disk's round (slow-cause.ts, judged
 * for a warned disk too): `load`, a busy disk's latency climbing with its load, which ends
 * with it; `device`, its device serving slowly; `unknown` where the round does not tell.
 */
export type WarningBasis = 'load' | 'device' | 'unknown';

export function warningBasisOf(cause: SlowCause): WarningBasis {
  if (isBusyCause(cause)) return 'load';
  return cause === 'device' || cause === 'shared' ? 'device' : 'unknown';
}

/** "busy, not evicted: kv (load)", or '': why a store at the eviction threshold is WARNING. */
export function busyNotes(disks: readonly { name: string; held?: SlowCause }[]): string {
  const held = disks.filter((disk) => disk.held !== undefined);
  return held.length === 0 ? '' : `busy, not evicted: ${held.map((disk) => `${disk.name} (${disk.held})`).join(', ')}`;
}

/** The store's score over the disks not held: what the verdict and the evict hook act on (at least 1). */
export function actedScoreOf(disks: Iterable<{ score: number; held?: SlowCause }>): number {
  let max = SCORE_FLOOR;
  for (const disk of disks) if (disk.held === undefined && disk.score > max) max = disk.score;
  return max;
}
