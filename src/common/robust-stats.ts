// Small order statistics for the statistical and the peer detectors, on typed arrays: nothing allocated on the hot paths but a view of one.

/** The median of an ascending array of `length` values (the mean of the two middle ones when even). */
export function sortedMedian(sorted: ArrayLike<number>, length = sorted.length): number {
  if (length === 0) return NaN;
  const mid = length >> 1;
  return length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * The median of the ascending `sorted` values without the one at index `skip`: what "the
 * median of the other disks" is, for each disk in turn, from one sort.
 */
export function sortedMedianWithout(sorted: ArrayLike<number>, skip: number, length = sorted.length): number {
  const n = length - 1;
  if (n <= 0) return NaN;
  const at = (rank: number): number => sorted[rank < skip ? rank : rank + 1];
  const mid = n >> 1;
  return n % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}

/** The mean absolute deviation of the first `length` values around `center`. */
export function meanAbsoluteDeviation(values: ArrayLike<number>, center: number, length = values.length): number {
  if (length === 0) return NaN;
  let sum = 0;
  for (let i = 0; i < length; i += 1) sum += Math.abs(values[i] - center);
  return sum / length;
}

/**
 * The median of the first `length` values, reordering them in place: sorted by the engine's
 * own sort of a typed array. watch runs unoptimised code (bin/slowdisk.js), where a
 * quickselect written here boxed every value it moved and took three times the CPU (1.1
 * against 0.4 ms a second at 64 disks). The mean of the two middle ones when even.
 */
export function medianInPlace(values: Float64Array, length = values.length): number {
  const sorted = length === values.length ? values : values.subarray(0, length);
  sorted.sort();
  return sortedMedian(sorted);
}
