/**
 * Non-negative least squares (Lawson and Hanson, "Solving Least Squares Problems", 1974, ch. 23): the coefficients of a
 * physics model are rates and overheads, so none may be negative. Small dense problems only (a dozen unknowns).
 */

/**
 * argmin ||A x - b|| subject to x >= 0. Columns that are all zero get 0. `start` (a nearby problem's solution) seeds
 * the set of positive coefficients: the answer is the same, found in fewer steps.
 */
export function nnls(a: readonly (readonly number[])[], b: readonly number[], start?: readonly number[]): number[] {
  const n = a[0]?.length ?? 0;
  const g = Array.from({ length: n }, () => new Array<number>(n).fill(0));
  const h = new Array<number>(n).fill(0);
  for (let r = 0; r < a.length; r++) {
    addOuter(g, h, a[r], b[r]);
  }
  return nnlsNormal(g, h, start);
}

/** Adds one row of A (and its b) to the normal equations `g = A^T A`, `h = A^T b`, skipping its zeros. */
export function addOuter(g: number[][], h: number[], row: readonly number[], b: number): void {
  const n = row.length;
  for (let i = 0; i < n; i++) {
    const vi = row[i];
    if (vi === 0) {
      continue;
    }
    h[i] += vi * b;
    const gi = g[i];
    for (let k = 0; k < n; k++) {
      gi[k] += vi * row[k];
    }
  }
}

/** The non-negative least squares of the normal equations `g x = h` (`g = A^T A`, `h = A^T b`). */
export function nnlsNormal(g: readonly (readonly number[])[], h: readonly number[], start?: readonly number[]): number[] {
  const n = h.length;
  // Scale columns to unit norm: the terms differ by orders of magnitude, which the normal equations would not survive.
  const cols: number[] = [];
  const norms = new Array<number>(n).fill(0);
  for (let j = 0; j < n; j++) {
    norms[j] = Math.sqrt(g[j][j]);
    if (norms[j] > 0) {
      cols.push(j);
    }
  }
  const ata = cols.map((i) => cols.map((k) => g[i][k] / (norms[i] * norms[k])));
  const atb = cols.map((i) => h[i] / norms[i]);
  const x = lawsonHanson(ata, atb, start ? cols.map((j) => (start[j] ?? 0) > 0) : undefined);
  const out = new Array<number>(n).fill(0);
  cols.forEach((j, i) => (out[j] = x[i] / norms[j]));
  return out;
}

const TOLERANCE = 1e-12;

/** Lawson-Hanson on the normal equations (Gram matrix `g`, right-hand side `h`), from a seed of positive coefficients. */
function lawsonHanson(g: number[][], h: number[], seed?: readonly boolean[]): number[] {
  const n = h.length;
  const x = new Array<number>(n).fill(0);
  const passive = new Array<boolean>(n).fill(false);
  if (seed) {
    // A feasible start: the seed's least squares, dropping the coefficients it drives to zero or below until none is.
    seed.forEach((p, i) => (passive[i] = p));
    for (let round = 0; round < n && passive.some(Boolean); round++) {
      const z = solvePassive(g, h, passive);
      const negative = z.map((v, i) => passive[i] && v <= 0);
      if (!negative.some(Boolean)) {
        x.splice(0, n, ...z);
        break;
      }
      negative.forEach((neg, i) => (passive[i] = passive[i] && !neg));
    }
    if (!x.some((v) => v > 0)) {
      passive.fill(false);
    }
  }
  for (let outer = 0; outer < 3 * n + 10; outer++) {
    // Gradient of -1/2 ||Ax - b||^2: w = A^T b - A^T A x.
    const w = h.map((hi, i) => hi - g[i].reduce((s, gij, j) => s + gij * x[j], 0));
    let best = -1;
    for (let i = 0; i < n; i++) {
      if (!passive[i] && w[i] > TOLERANCE && (best < 0 || w[i] > w[best])) {
        best = i;
      }
    }
    if (best < 0) {
      break;
    }
    passive[best] = true;
    for (let inner = 0; inner < 3 * n + 10; inner++) {
      const z = solvePassive(g, h, passive);
      if (z.every((v, i) => !passive[i] || v > 0)) {
        x.splice(0, n, ...z);
        break;
      }
      // Step back to the boundary and release the coefficients that reached zero.
      let alpha = 1;
      for (let i = 0; i < n; i++) {
        if (passive[i] && z[i] <= 0) {
          alpha = Math.min(alpha, x[i] / (x[i] - z[i]));
        }
      }
      for (let i = 0; i < n; i++) {
        x[i] += alpha * (z[i] - x[i]);
        if (passive[i] && x[i] <= TOLERANCE) {
          passive[i] = false;
          x[i] = 0;
        }
      }
    }
  }
  return x;
}

/** The unconstrained least squares over the passive set (others 0), by Gaussian elimination with partial pivoting. */
function solvePassive(g: number[][], h: number[], passive: readonly boolean[]): number[] {
  const idx = passive.map((p, i) => (p ? i : -1)).filter((i) => i >= 0);
  const k = idx.length;
  const m = idx.map((i) => [...idx.map((j) => g[i][j]), h[i]]);
  for (let col = 0; col < k; col++) {
    let pivot = col;
    for (let r = col + 1; r < k; r++) {
      if (Math.abs(m[r][col]) > Math.abs(m[pivot][col])) {
        pivot = r;
      }
    }
    [m[col], m[pivot]] = [m[pivot], m[col]];
    const d = m[col][col];
    if (Math.abs(d) < 1e-300) {
      continue;
    }
    for (let r = 0; r < k; r++) {
      if (r !== col) {
        const f = m[r][col] / d;
        for (let c = col; c <= k; c++) {
          m[r][c] -= f * m[col][c];
        }
      }
    }
  }
  const z = new Array<number>(passive.length).fill(0);
  idx.forEach((i, r) => (z[i] = Math.abs(m[r][r]) < 1e-300 ? 0 : m[r][k] / m[r][r]));
  return z;
}
