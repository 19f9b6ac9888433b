// What the predictor is asked, on a disk's series of samples: the ground truth that training
// labels and the benchmark scores, both from the P99s alone.

/**
 * The samples at which a breach starts: the P99 is above the SLA, and it was not in the
 * `quietSamples` samples before (a breach that comes back after a quiet spell is a new one).
 */
export function breachStarts(p99Ms: readonly number[], slaMs: number, quietSamples: number): number[] {
  const starts: number[] = [];
  let lastAbove = -Infinity;
  p99Ms.forEach((p99, i) => {
    if (p99 <= slaMs) return;
    if (i - lastAbove > quietSamples) starts.push(i);
    lastAbove = i;
  });
  return starts;
}

/**
 * The target at each sample: 1 if the P99 exceeds the SLA in one of the next `horizon`
 * samples, 0 if it does not, null if the series ends before that is known or the disk has
 * been above the SLA within the last `window` samples (already in a breach: nothing left to predict).
 */
export function breachTargets(p99Ms: readonly number[], slaMs: number, horizon: number, window: number): (0 | 1 | null)[] {
  return p99Ms.map((_, i) => {
    for (let j = Math.max(0, i - window + 1); j <= i; j += 1) if (p99Ms[j] > slaMs) return null;
    for (let j = i + 1; j <= Math.min(p99Ms.length - 1, i + horizon); j += 1) if (p99Ms[j] > slaMs) return 1;
    return i + horizon <= p99Ms.length - 1 ? 0 : null;
  });
}

/**
 * The targets training and calibration are fitted on: a breach before sample
 * `foreseeableFrom` is unknown (null), as no sample of the disk foretells it (a slowdown still
 * to start, or a chance spike; corpus.ts, foreseeableFrom).
 */
export function foreseeableTargets(targets: readonly (0 | 1 | null)[], foreseeableFrom: number): (0 | 1 | null)[] {
  return targets.map((target, i) => (target === 1 && i < foreseeableFrom ? null : target));
}
