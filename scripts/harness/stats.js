'use strict';
// The few statistics the checks need, kept dependency-free.

function sorted(values) {
  return [...values].sort((a, b) => a - b);
}

/** Percentile by linear interpolation; p in [0, 100]. */
function percentile(values, p) {
  if (values.length === 0) return NaN;
  const s = sorted(values);
  const rank = (p / 100) * (s.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return s[lo] + (s[hi] - s[lo]) * (rank - lo);
}

function median(values) {
  return percentile(values, 50);
}

/**
 * Least-squares slope and intercept of y over x, with the slope's standard
 * error (how far the slope could be off, given the scatter about the line).
 */
function linearFit(xs, ys) {
  const n = xs.length;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i] - mx) * (ys[i] - my);
    sxx += (xs[i] - mx) ** 2;
  }
  const slope = sxx === 0 ? 0 : sxy / sxx;
  const intercept = my - slope * mx;
  let residuals = 0;
  for (let i = 0; i < n; i++) residuals += (ys[i] - (intercept + slope * xs[i])) ** 2;
  const slopeError = n > 2 && sxx > 0 ? Math.sqrt(residuals / (n - 2) / sxx) : Infinity;
  return { slope, intercept, slopeError };
}

/**
 * Theil–Sen slope: the median of the slopes between every pair of points.
 * A few points knocked off the line (a collection that freed a cache's
 * batch, the JIT throwing code away) move it far less than a least-squares
 * fit.
 */
function medianSlope(xs, ys) {
  const slopes = [];
  for (let i = 0; i < xs.length; i++) {
    for (let j = i + 1; j < xs.length; j++) if (xs[j] !== xs[i]) slopes.push((ys[j] - ys[i]) / (xs[j] - xs[i]));
  }
  return median(slopes);
}

/** Largest value divided by smallest: 1 means perfectly steady. */
function spread(values) {
  const s = sorted(values);
  return s[s.length - 1] / s[0];
}

/**
 * A distribution-free confidence interval for the median (the sign test's):
 * the k-th smallest and k-th largest values, with k the largest rank for
 * which fewer than k values fall below the true median with probability at
 * most (1 - confidence) / 2 (binomial with p = 1/2, whatever the values'
 * distribution). Null when there are too few values to reach `confidence`
 * (fewer than 5 for 90%).
 * @returns {[number, number] | null}
 */
function medianInterval(values, confidence = 0.9) {
  const n = values.length;
  const tail = (1 - confidence) / 2;
  // P(X <= j) for X ~ Binomial(n, 1/2), accumulated term by term.
  let term = 0.5 ** n;
  let below = term;
  let k = 0;
  for (let j = 0; below <= tail && j < n; j++) {
    k = j + 1;
    term = (term * (n - j)) / (j + 1);
    below += term;
  }
  if (k === 0) return null;
  const s = sorted(values);
  return [s[k - 1], s[n - k]];
}

module.exports = { percentile, median, linearFit, medianSlope, spread, medianInterval };
