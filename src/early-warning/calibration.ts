// Calibration of the network's output: Platt scaling, a logistic function of the output's
// log-odds, fitted on examples training never saw (the validation selection), so that a
// probability of 0.8 is followed by a breach about 8 times in 10. Monotone: it changes no
// ranking, only what the numbers mean.

export interface PlattScaling {
  /** p = 1 / (1 + exp(-(slope x logit(raw) + intercept))). */
  slope: number;
  intercept: number;
}

/** Outputs are clipped this close to 0 and 1 before their log-odds are taken. */
const EDGE = 1e-6;

/** The log-odds of an output, clipped off 0 and 1. */
export const logit = (p: number): number => {
  const q = Math.min(1 - EDGE, Math.max(EDGE, p));
  return Math.log(q / (1 - q));
};

export function calibrated(scaling: PlattScaling, raw: number): number {
  return 1 / (1 + Math.exp(-(scaling.slope * logit(raw) + scaling.intercept)));
}
