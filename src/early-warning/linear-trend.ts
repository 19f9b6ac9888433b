// The baseline the network is measured against: the least-squares line through the window's
// P99s, extrapolated over the horizon, and a probability-like score from its margin to the SLA.

/** Slope (per sample) and the fitted value at the last sample of the least-squares line through `values`. */
export function leastSquaresLine(values: readonly number[]): { slope: number; last: number } {
  const n = values.length;
  if (n === 0) throw new RangeError('a line needs at least one value');
  const meanX = (n - 1) / 2;
  let meanY = 0;
  for (const y of values) meanY += y / n;
  let sxy = 0;
  let sxx = 0;
  values.forEach((y, x) => {
    sxy += (x - meanX) * (y - meanY);
    sxx += (x - meanX) * (x - meanX);
  });
  const slope = sxx === 0 ? 0 : sxy / sxx;
  return { slope, last: meanY + slope * (n - 1 - meanX) };
}

/**
 * The highest P99 the line reaches between now and `horizonSamples` samples ahead (ms), and
 * its score: a logistic function of (projected - SLA) / (softness x SLA).
 */
export function linearTrendScore(
  p99Ms: readonly number[],
  horizonSamples: number,
  slaMs: number,
  softness: number,
): { projectedMs: number; probability: number } {
  const { slope, last } = leastSquaresLine(p99Ms);
  const projectedMs = Math.max(last, last + slope * horizonSamples);
  return { projectedMs, probability: 1 / (1 + Math.exp(-(projectedMs - slaMs) / (softness * slaMs))) };
}
