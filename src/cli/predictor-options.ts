// The early-warning predictor's flags on watch, check and replay, mapped onto its params.
import { InvalidArgumentError, type Command } from 'commander';
import type { ScoreParams } from '../params.js';
import { DEFAULT_PREDICTOR_PARAMS, PREDICTOR_MODELS, predictorParams, SLA_RANGE, type PredictorModel, type PredictorParams } from '../predict/predictor-params.js';
import { durationOption } from './options.js';

export interface PredictorOptionValues {
  sla: number;
  warnProbability: number;
  predictor: PredictorModel;
}

function probabilityArg(value: string): number {
  const p = Number(value);
  if (value.trim() === '' || !(p > 0 && p < 1)) throw new InvalidArgumentError(`expected a probability above 0 and below 1, got '${value}'`);
  return p;
}

function modelArg(value: string): PredictorModel {
  const model = PREDICTOR_MODELS.find((name) => name === value);
  if (model === undefined) throw new InvalidArgumentError(`expected ${PREDICTOR_MODELS.join(' or ')}, got '${value}'`);
  return model;
}

export function addPredictorOptions(command: Command): Command {
  const d = DEFAULT_PREDICTOR_PARAMS;
  return command
    .addOption(durationOption('--sla <duration>', "early warning: the SLA on each disk's inspection P99 (15 s samples); a disk is warned of before it exceeds it", SLA_RANGE, d.slaMs))
    .option('--warn-probability <p>', "early warning: a disk whose predicted chance of exceeding the SLA within 5 minutes is above this at two samples in a row, its P99 rising, is in state 'warning' (at least WARNING), until it has held under the SLA without a rising trend for 2.5m", probabilityArg, d.warnProbability)
    .option('--predictor <model>', `early warning: the model, ${PREDICTOR_MODELS.join(' or ')} (a linear trend of the P99)`, modelArg, d.model);
}

/** The predictor's parameters; a tick with no result counts as an inspection of at least the timeout. */
export function predictorParamsFrom(options: PredictorOptionValues, score: ScoreParams): PredictorParams {
  try {
    return predictorParams({ slaMs: options.sla, warnProbability: options.warnProbability, model: options.predictor, timeoutMs: score.timeoutMs });
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}
