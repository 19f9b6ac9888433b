// The binomial test the tail detector judges a window with: how likely as many slow steps are
// or more, had each been slow at the baseline's rate.

/** log(n!) for the small n of a window (a few hundred steps at most), by summing. */
const LOG_FACTORIALS: number[] = [0];

function logFactorial(n: number): number {
  for (let i = LOG_FACTORIALS.length; i <= n; i += 1) LOG_FACTORIALS.push(LOG_FACTORIALS[i - 1] + Math.log(i));
  return LOG_FACTORIALS[n];
}

/** P(X >= k) for X ~ Binomial(n, p): 1 for k <= 0, 0 for k > n. */
export function binomialUpperTail(k: number, n: number, p: number): number {
  if (k <= 0) return 1;
  if (k > n) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let sum = 0;
  for (let i = k; i <= n; i += 1) {
    const term = Math.exp(logFactorial(n) - logFactorial(i) - logFactorial(n - i) + i * logP + (n - i) * logQ);
    sum += term;
    // The terms fall fast past the mean: the rest cannot change the sum.
    if (i > n * p && term < sum * 1e-12) break;
  }
  return Math.min(1, sum);
}
