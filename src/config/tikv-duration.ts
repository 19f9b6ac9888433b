// TiKV's duration strings (its ReadableDuration): "100ms", "1s", "1h30m", "1.5s", "0s".
// Units run from the largest down, each at most once; TiKV reads "" as zero.

const UNITS_LARGEST_FIRST: ReadonlyArray<readonly [string, number]> = [
  ['d', 86_400_000],
  ['h', 3_600_000],
  ['m', 60_000],
  ['s', 1000],
  ['ms', 1],
  ['us', 0.001],
];

// "ms" and "us" are tried before "m" and "s", so that "100ms" is not read as 100 minutes.
const PART = /\s*(\d+(?:\.\d+)?)\s*(ms|us|d|h|m|s)\s*/y;

/** Milliseconds; throws a RangeError that says what TiKV accepts. */
export function parseTikvDuration(text: string): number {
  const trimmed = text.trim();
  let ms = 0;
  let smallestSoFar = Infinity;
  let at = 0;
  while (at < trimmed.length) {
    PART.lastIndex = at;
    const match = PART.exec(trimmed);
    if (!match) throw new RangeError(`'${text}' is not a TiKV duration (e.g. "100ms", "1s", "1m30s")`);
    at = PART.lastIndex;
    const unitMs = UNITS_LARGEST_FIRST.find(([name]) => name === match[2])![1];
    if (unitMs >= smallestSoFar) throw new RangeError(`'${text}': units must run from the largest down (d, h, m, s, ms, us)`);
    smallestSoFar = unitMs;
    ms += Number(match[1]) * unitMs;
  }
  return ms;
}
