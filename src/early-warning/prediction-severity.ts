// What the early-warning predictor adds to a run's verdict (and so to the exit code): a disk
// in state `warning` makes it at least WARNING. Never CRITICAL: the disk still serves, and
// the warning is a forecast.
import type { Severity } from '../score/store-score.js';
import type { Prediction } from './predictor.js';

export function predictionSeverity(predictions: Iterable<Pick<Prediction, 'warning'>>): Severity {
  for (const prediction of predictions) if (prediction.warning) return 'slow';
  return 'ok';
}
