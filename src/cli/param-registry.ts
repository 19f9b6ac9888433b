// Every stage's parameter specs, in the order help lists their groups: what the docs tables
// are generated from, and what a test checks every flag against.
import type { ParamSpec } from '../common/param-spec.js';
import { CRITICAL_ON_SPEC, STATISTICAL_SPECS } from '../detect/statistical-params.js';
import { HOOK_SPECS } from '../hooks/hook-params.js';
import { CHECK_DURATION_SPEC, PROBE_SPECS, SCORE_SPECS } from '../params.js';
import { PEER_SPECS } from '../peer/params.js';
import { PREDICTOR_SPECS } from '../predict/predictor-params.js';

export const ALL_PARAM_SPECS: readonly ParamSpec[] = Object.freeze([
  ...PROBE_SPECS,
  ...SCORE_SPECS,
  CHECK_DURATION_SPEC,
  ...STATISTICAL_SPECS,
  CRITICAL_ON_SPEC,
  ...PREDICTOR_SPECS,
  ...HOOK_SPECS,
  ...PEER_SPECS,
]);
