// Order statistics for the peer detector, over typed arrays and without per-call allocation
// where it matters; the in-place median is the detectors' shared one.
import { medianInPlace } from '../common/robust-stats.js';

/** The median of an array, left untouched. NaN when empty. */
export function median(values: ArrayLike<number>): number {
  return medianInPlace(Float64Array.from(values));
}

/** The median absolute deviation of `values` around `center`. NaN when empty. */
export function medianAbsoluteDeviation(values: ArrayLike<number>, center: number): number {
  const deviations = new Float64Array(values.length);
  for (let i = 0; i < values.length; i += 1) deviations[i] = Math.abs(values[i] - center);
  return medianInPlace(deviations);
}

/**
 * Sorts the first `length` entries of `order` (indices into `values`) by value, in place: an
 * insertion sort, for the few drives of one host at one minute.
 */
export function sortIndicesByValue(order: Int32Array, values: Float64Array, length: number): void {
  for (let i = 1; i < length; i += 1) {
    const index = order[i];
    const value = values[index];
    let j = i - 1;
    while (j >= 0 && values[order[j]] > value) {
      order[j + 1] = order[j];
      j -= 1;
    }
    order[j + 1] = index;
  }
}

/**
 * The median of the values `values[order[0..length)]` (ascending) without the one at rank
 * `skip`: the median of a drive's peers, for each drive in turn, from one sort.
 */
export function medianWithoutRank(order: Int32Array, values: Float64Array, length: number, skip: number): number {
  const n = length - 1;
  if (n <= 0) return NaN;
  const at = (rank: number): number => values[order[rank < skip ? rank : rank + 1]];
  const mid = n >> 1;
  return n % 2 === 1 ? at(mid) : (at(mid - 1) + at(mid)) / 2;
}
