/**
 * Quantile tables: a distribution as its values at {@link QUANTILE_PROBABILITIES}, built from sorted data and read
 * back by linear interpolation (the distribution whose density is uniform between two points).
 */
import { QUANTILE_PROBABILITIES } from './types';

/**
 * The `p` quantile of sorted values: the smallest value at least a share `p` of them are at or below (the inverse of
 * the empirical distribution function; numpy's `inverted_cdf`).
 */
export function sortedQuantile(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  return sorted[Math.min(n - 1, Math.max(0, Math.ceil(p * n - 1e-9) - 1))];
}

/** The table of sorted values: their quantile at each of {@link QUANTILE_PROBABILITIES}, rounded by `round`. */
export function quantileTable(sorted: ArrayLike<number>, round: (value: number) => number = (v) => v): number[] {
  return QUANTILE_PROBABILITIES.map((p) => round(sortedQuantile(sorted, p)));
}

/**
 * The table's value at probability `p` (0 to 1), interpolated between its points.
 *
 * @throws RangeError when the table does not have one value per point of the grid
 */
export function quantileAt(table: readonly number[], p: number): number {
  const grid = QUANTILE_PROBABILITIES;
  if (table.length !== grid.length) {
    throw new RangeError(`a quantile table holds ${grid.length} values (one per QUANTILE_PROBABILITIES point); got ${table.length}`);
  }
  if (!(p > 0)) {
    return table[0];
  }
  if (!(p < 1)) {
    return table[table.length - 1];
  }
  // Binary search for the segment [grid[lo], grid[lo + 1]] holding p.
  let lo = 0;
  let hi = grid.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (grid[mid] <= p) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const share = (p - grid[lo]) / (grid[hi] - grid[lo]);
  return table[lo] + share * (table[hi] - table[lo]);
}

/** True when `table` is a quantile table: one finite value of at least 0 per grid point, never decreasing. */
export function isQuantileTable(table: readonly number[]): boolean {
  return table.length === QUANTILE_PROBABILITIES.length && table.every((v, i) => Number.isFinite(v) && v >= 0 && (i === 0 || v >= table[i - 1]));
}

/** The mean of the distribution the table stands for (uniform between points): what draws from it average. */
export function tableMean(table: readonly number[]): number {
  const grid = QUANTILE_PROBABILITIES;
  let sum = 0;
  for (let i = 0; i + 1 < grid.length; i++) {
    sum += (grid[i + 1] - grid[i]) * (table[i] + table[i + 1]) / 2;
  }
  return sum;
}

/** The squared coefficient of variation of the distribution the table stands for. */
export function tableScv(table: readonly number[]): number {
  const grid = QUANTILE_PROBABILITIES;
  let first = 0;
  let second = 0;
  for (let i = 0; i + 1 < grid.length; i++) {
    const w = grid[i + 1] - grid[i];
    const a = table[i];
    const b = table[i + 1];
    first += (w * (a + b)) / 2;
    // E[X^2] of a uniform on [a, b] is (a^2 + ab + b^2) / 3.
    second += (w * (a * a + a * b + b * b)) / 3;
  }
  return first > 0 ? Math.max(0, second / (first * first) - 1) : 0;
}

/** `value` to `digits` significant digits: gap tables need no more, and every byte of a proof's environment counts. */
export function significant(value: number, digits = 4): number {
  return value === 0 ? 0 : Number(value.toPrecision(digits));
}
