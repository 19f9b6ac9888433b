// The exit codes as each command's help shows them: only its own; the defaults they name come
// from the parameters' specs.
import { defaultText, flagName } from '../common/param-spec.js';
import { formatDuration } from '../common/durations.js';
import { SCORE_SPECS } from '../score/score-params.js';
import { HANG_AFTER_SPEC } from '../probe/probe-params.js';
import { DEFAULT_PREDICTOR_PARAMS, PREDICTOR_SPECS } from '../early-warning/predictor-params.js';
import { EXIT_UNTIL_TIMED_OUT } from '../commands/watch-params.js';

const scoreDefault = (key: (typeof SCORE_SPECS)[number]['key']) => defaultText(SCORE_SPECS.find((spec) => spec.key === key)!);
const predictorFlag = (key: (typeof PREDICTOR_SPECS)[number]['key']) => flagName(PREDICTOR_SPECS.find((spec) => spec.key === key)!);

type Command = 'watch' | 'check' | 'replay';

export function exitCodeHelp(command: Command): string {
  const probes = command !== 'replay';
  const lines = [
    'Exit codes:',
    '  0  OK        the store score stayed below the slow threshold, and nothing below happened',
    `  1  WARNING   the reported store score reached the slow threshold (default ${scoreDefault('slowThreshold')}), not the eviction threshold;`,
    `               or a disk was in state warning (its predicted chance of exceeding ${predictorFlag('slaMs')} within ${formatDuration(DEFAULT_PREDICTOR_PARAMS.horizonMs)}`,
    `               went above ${predictorFlag('warnProbability')} at ${DEFAULT_PREDICTOR_PARAMS.confirmSamples} samples in a row, its P99 rising); or the statistical detector confirmed a slow disk, or the tail detector a tail-slow one;`,
    ...(probes ? ['               or (--all-devices, --devices) a drive is slow now against the peers of its class;'] : []),
    `               or a disk was hung (an inspection in flight for ${flagName(HANG_AFTER_SPEC)}, default ${defaultText(HANG_AFTER_SPEC)})${command === 'check' ? ', or completed no inspection at all,' : ''}`,
    ...(command === 'check' ? ['               or was rising: its rounds, repeated, would evict it;'] : []),
    ...(probes ? ['               or another filesystem was mounted onto a probed path; or a disk was not judged, its path on a read-only bind mid-run'] : []),
    `  2  CRITICAL  the reported store score reached the eviction threshold (default ${scoreDefault('evictThreshold')})${command === 'watch' ? ': watch ends there, unless --keep-going' : ''};`,
    '               or a disk cannot be written (EROFS, EIO, ENOSPC or EACCES), at start or mid-run',
    ...(command === 'replay'
      ? ['  3  UNKNOWN   bad arguments, or a trace that cannot be read or breaks the format (the line is named)']
      : [
          '  3  UNKNOWN   bad arguments, a path that cannot be probed at start (one that does not exist, or on a read-only bind), no class of 4 drives to judge,',
          "               or a state directory that cannot be used (the drives' history not saved)",
        ]),
    ...(command === 'watch' ? [`  ${EXIT_UNTIL_TIMED_OUT}        --duration ran out before any of the --until events came`] : []),
    ...(probes ? ['  129, 130, 143  interrupted by SIGHUP, SIGINT, SIGTERM (probe files removed)'] : []),
  ];
  return lines.join('\n');
}
