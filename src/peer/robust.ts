// Order statistics for the peer detector, over typed arrays and without per-call allocation
// where it matters.

/** The median of the first `length` values of `values`, which it sorts in place. NaN when empty. */
export function medianInPlace(values: Float64Array, length = values.length): number {
  if (length <= 0) return NaN;
  if (length <= SMALL) {
    // An insertion sort: no subarray view, and faster than the built-in sort on a window of minutes.
    for (let i = 1; i < length; i += 1) {
      const value = values[i];
      let j = i - 1;
      while (j >= 0 && values[j] > value) {
        values[j + 1] = values[j];
        j -= 1;
      }
      values[j + 1] = value;
    }
  } else {
    (length === values.length ? values : values.subarray(0, length)).sort();
  }
  const mid = length >> 1;
  return length % 2 === 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

const SMALL = 32;

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
