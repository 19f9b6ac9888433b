// The action hooks' parameters: what runs on eviction and on recovery, and the two durations
// that bound them, with their specs.
import { DAY_MS } from '../common/durations.js';
import type { ParamSpec } from '../common/param-spec.js';

export interface HookParams {
  /** Shell command run once when the reported store score reaches the eviction threshold. */
  onEvict?: string;
  /** Shell command run once when, after an eviction, the store has stayed at reported score 1 for recoverAfterMs. */
  onRecover?: string;
  /** A hook still running after this long is killed with its process group. */
  timeoutMs: number;
  /** PD's recovery duration: how long a store must stay at 1 before its eviction is lifted. */
  recoverAfterMs: number;
}

export const DEFAULT_HOOK_PARAMS: Readonly<Omit<HookParams, 'onEvict' | 'onRecover'>> = Object.freeze({
  timeoutMs: 30_000,
  recoverAfterMs: 1_800_000,
});

/** When a hook runs, and whether, never changes the verdict: none is recorded in a trace. */
export const HOOK_SPECS: readonly ParamSpec<'timeoutMs' | 'recoverAfterMs'>[] = Object.freeze([
  {
    key: 'timeoutMs',
    flag: '--hook-timeout <duration>',
    kind: 'duration',
    default: DEFAULT_HOOK_PARAMS.timeoutMs,
    range: { minMs: 1, maxMs: DAY_MS },
    meaning: 'kill a hook (its whole process group) still running after this long',
    group: 'hooks',
  },
  {
    key: 'recoverAfterMs',
    flag: '--recover-after <duration>',
    kind: 'duration',
    default: DEFAULT_HOOK_PARAMS.recoverAfterMs,
    range: { minMs: 1, maxMs: 7 * DAY_MS },
    meaning: "how long the store must stay at score 1 for --on-recover: PD's recovery duration",
    group: 'hooks',
  },
]);
