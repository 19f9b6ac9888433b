// What a model reads of a window, so that too little evidence cannot look like a trend: a
// window not yet full is padded, before its oldest sample, with the median of its samples
// (a flat past at the disk's usual level, whichever sample the window began with), and every
// slot with a neighbour on each side is read as the median of the three (a burst of one
// sample that recovered is gone, a ramp is unchanged). Only the newest sample, which may yet
// recover, and the oldest of a full window are read as they are. Value by value: each row is
// one sample's values, and each column is filtered on its own.

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The median of three values, without an array to sort: a window reads one for each of its slots and values. */
function medianOfThree(a: number, b: number, c: number): number {
  return Math.max(Math.min(a, b), Math.min(Math.max(a, b), c));
}

/** The `slots` rows a model reads for a window of 1 to `slots` samples' rows (oldest first). */
export function evidenceWindow(rows: readonly (readonly number[])[], slots: number): number[][] {
  if (rows.length === 0 || rows.length > slots) throw new RangeError(`a window holds 1 to ${slots} samples, got ${rows.length}`);
  // A full window has no padding (the trend's windows and most of the network's are full).
  const padding = rows.length < slots ? rows[0].map((_, k) => median(rows.map((row) => row[k]))) : [];
  const padded = [...Array.from({ length: slots - rows.length }, () => padding), ...rows];
  return padded.map((row, i) =>
    i === 0 || i === padded.length - 1 ? [...row] : row.map((x, k) => medianOfThree(padded[i - 1][k], x, padded[i + 1][k])),
  );
}
