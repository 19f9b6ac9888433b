// The exit codes as help text shows them, under every command's help; the defaults it names
// come from the parameters' specs.
import { defaultText, flagName } from '../common/param-spec.js';
import { formatDuration } from '../common/durations.js';
import { SCORE_SPECS } from '../score/score-params.js';
import { HANG_AFTER_SPEC } from '../prober/probe-params.js';
import { DEFAULT_PREDICTOR_PARAMS, PREDICTOR_SPECS } from '../early-warning/predictor-params.js';

const scoreDefault = (key: (typeof SCORE_SPECS)[number]['key']) => defaultText(SCORE_SPECS.find((spec) => spec.key === key)!);
const predictorFlag = (key: (typeof PREDICTOR_SPECS)[number]['key']) => flagName(PREDICTOR_SPECS.find((spec) => spec.key === key)!);

export const EXIT_CODE_HELP = `Exit codes:
  0  OK        the store score stayed below the slow threshold
  1  WARNING   the reported store score reached the slow threshold (default ${scoreDefault('slowThreshold')}), not the eviction threshold;
               or a disk was in state warning (its predicted chance of exceeding ${predictorFlag('slaMs')} within ${formatDuration(DEFAULT_PREDICTOR_PARAMS.horizonMs)}
               went above ${predictorFlag('warnProbability')} at ${DEFAULT_PREDICTOR_PARAMS.confirmSamples} samples in a row, its P99 rising); or the statistical detector confirmed a slow disk, or the tail detector a tail-slow one;
               or (--all-devices, --devices) a drive is slow now against the peers of its class;
               or a disk was hung (an inspection in flight for ${flagName(HANG_AFTER_SPEC)}, default ${defaultText(HANG_AFTER_SPEC)}), or (check)
               completed no inspection at all
  2  CRITICAL  the reported store score reached the eviction threshold (default ${scoreDefault('evictThreshold')})
  3  UNKNOWN   bad arguments, a path that cannot be probed at start, no class of 4 drives to judge,
               or a state directory that cannot be used (the drives' history not saved)
  130, 143     interrupted by SIGINT, SIGTERM (probe files removed)`;
