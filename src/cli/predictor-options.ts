// The early-warning predictor's flags on watch, check and replay, from its specs.
import type { Command } from 'commander';
import type { ScoreParams } from '../score/score-params.js';
import { PREDICTOR_SPECS, predictorParams, type PredictorParams } from '../early-warning/predictor-params.js';
import { addParamOptions, asArgument, paramsFrom, type OptionValues } from './param-options.js';

export function addPredictorOptions(command: Command): Command {
  return addParamOptions(command, PREDICTOR_SPECS);
}

/** The predictor's parameters; a tick with no result counts as an inspection of at least the timeout. */
export function predictorParamsFrom(values: OptionValues, score: ScoreParams): PredictorParams {
  return asArgument(() => predictorParams({ ...(paramsFrom(PREDICTOR_SPECS, values) as Partial<PredictorParams>), timeoutMs: score.timeoutMs }));
}
