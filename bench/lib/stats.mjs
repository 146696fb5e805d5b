// Percentiles over samples (linear interpolation between closest ranks, like numpy's default).

/** The p-th percentile (0..100) of the numbers, ignoring null/NaN; null when there are none. */
export function percentile(values, p) {
  const xs = values
    .filter((v) => typeof v === "number" && Number.isFinite(v))
    .sort((a, b) => a - b);
  if (xs.length === 0) return null;
  if (xs.length === 1) return xs[0];
  const rank = (p / 100) * (xs.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return xs[lo] + (xs[hi] - xs[lo]) * (rank - lo);
}

export const median = (values) => percentile(values, 50);

export function min(values) {
  const xs = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  return xs.length ? Math.min(...xs) : null;
}

export function max(values) {
  const xs = values.filter((v) => typeof v === "number" && Number.isFinite(v));
  return xs.length ? Math.max(...xs) : null;
}
