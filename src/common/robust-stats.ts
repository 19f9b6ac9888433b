// Small order statistics for the statistical and the peer detectors: no allocation on the hot paths.

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
 * The median of the first `length` values, reordering them in place (quickselect: linear on
 * average, where a sort would be n log n). The mean of the two middle ones when even.
 */
export function medianInPlace(values: Float64Array | number[], length = values.length): number {
  if (length === 0) return NaN;
  const mid = length >> 1;
  const upper = selectInPlace(values, length, mid);
  if (length % 2 === 1) return upper;
  // After selection everything left of mid is <= values[mid]: the lower middle is their maximum.
  let lower = values[0];
  for (let i = 1; i < mid; i += 1) if (values[i] > lower) lower = values[i];
  return (lower + upper) / 2;
}

/** Puts the k-th smallest (from 0) of the first `length` values at index k, smaller ones before it; returns it. */
export function selectInPlace(values: Float64Array | number[], length: number, k: number): number {
  let lo = 0;
  let hi = length - 1;
  while (hi > lo) {
    // Median of three as the pivot, moved to hi.
    const m = (lo + hi) >> 1;
    if (values[m] < values[lo]) swap(values, m, lo);
    if (values[hi] < values[lo]) swap(values, hi, lo);
    if (values[m] < values[hi]) swap(values, m, hi);
    const pivot = values[hi];
    let store = lo;
    for (let i = lo; i < hi; i += 1) {
      if (values[i] < pivot) {
        swap(values, i, store);
        store += 1;
      }
    }
    swap(values, store, hi);
    if (store === k) return values[k];
    if (store < k) lo = store + 1;
    else hi = store - 1;
  }
  return values[k];
}

function swap(values: Float64Array | number[], a: number, b: number): void {
  const t = values[a];
  values[a] = values[b];
  values[b] = t;
}
