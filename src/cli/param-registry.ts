// Every stage's parameter specs, in the order help lists their groups: what the docs tables
// are generated from, and what a test checks every flag against.
import type { ParamSpec } from '../common/param-spec.js';
import { CRITICAL_ON_SPEC, STATISTICAL_SPECS } from '../detectors/statistical-params.js';
import { TAIL_SPECS } from '../detectors/tail-params.js';
import { HOOK_SPECS } from '../hooks/hook-params.js';
import { SCORE_SPECS } from '../score/score-params.js';
import { BUSY_SPEC } from '../verdict/busy-verdict.js';
import { PROBE_SPECS } from '../probe/probe-params.js';
import { CHECK_DURATION_SPEC } from '../commands/check-params.js';
import { WATCH_DURATION_SPEC } from '../commands/watch-params.js';
import { PEER_SPECS } from '../drives/peer-params.js';
import { PREDICTOR_SPECS } from '../early-warning/predictor-params.js';

export const ALL_PARAM_SPECS: readonly ParamSpec[] = Object.freeze([
  ...PROBE_SPECS,
  ...SCORE_SPECS,
  BUSY_SPEC,
  CHECK_DURATION_SPEC,
  WATCH_DURATION_SPEC,
  ...STATISTICAL_SPECS,
  CRITICAL_ON_SPEC,
  ...TAIL_SPECS,
  ...PREDICTOR_SPECS,
  ...HOOK_SPECS,
  ...PEER_SPECS,
]);
