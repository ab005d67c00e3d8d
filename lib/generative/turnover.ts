/**
 * How many prefills can land in one request's decode, whatever the arrival rate: a bound from slot turnover, for the
 * TPOT tail of `continuous-batching.ts`.
 *
 * A prefill that lands between a request's first and last token admits a sequence into one of the other N - 1 slots.
 * Each other slot admits at most one sequence when its current one ends, and another only after that one, admitted
 * inside the window, has ended too. Output lengths are drawn independently, so with `gap` decode steps in the window
 * a slot admits at most `1 + R` sequences, `P(R >= i) = P(S_i <= gap - 1)`, S_i the decode steps (output - 1) of i
 * fresh sequences, and the first only if the slot is free or its sequence ends within the gap (its remaining steps
 * follow the equilibrium residual of the decode length). With fixed lengths every running sequence ends first and R
 * is 0: at most N - 1 land, exactly. The Poisson count of arrivals, which the TPOT tail also uses, knows nothing of
 * this bound, and at a few slots it is what binds.
 */
import { lengthDistribution } from './engine-timing';
import type { TokenLength } from './types';

/** Output lengths the per-slot renewal count is computed over: midpoints of this many quantiles. */
const RENEWAL_POINTS = 256;

/** Renewals per slot beyond which the count's tail is taken as zero (P(S_i <= gap - 1) below 1e-12). */
const NEGLIGIBLE = 1e-12;

interface RenewalTable {
  /** Per gap: `atLeast[i] = P(S_i <= gap - 1)`, i from 0. */
  readonly atLeast: readonly (readonly number[])[];
  /** Per gap: P(a running sequence's remaining decode steps <= gap - 1), its equilibrium residual. */
  readonly endsWithin: readonly number[];
  /** True when a drawn output can be one token (a sequence that never holds a slot): no bound. */
  readonly unbounded: boolean;
}

const memo = new Map<string, RenewalTable>();

function renewalTable(outputTokens: TokenLength, gaps: readonly number[], normalQuantile: (p: number) => number): RenewalTable {
  const key = `${outputTokens.mean}|${outputTokens.p99}|${gaps.join(',')}`;
  const known = memo.get(key);
  if (known) {
    return known;
  }
  const dist = lengthDistribution(outputTokens);
  const points = dist.sigma === 0 ? 1 : RENEWAL_POINTS;
  const steps = Array.from({ length: points }, (_, i) =>
    Math.max(1, Math.round(Math.exp(dist.mu + dist.sigma * (points === 1 ? 0 : normalQuantile((i + 0.5) / points))))) - 1);
  const longest = Math.max(1, ...gaps);
  const weight = 1 / points;
  const meanSteps = steps.reduce((a, b) => a + b, 0) * weight;
  // cdfs[i][s] = P(S_i <= s) for s < longest.
  const cdfs: Float64Array[] = [new Float64Array(longest).fill(1)];
  const unbounded = Math.min(...steps) === 0;
  let pmf = new Float64Array(longest);
  pmf[0] = 1;
  while (!unbounded) {
    const next = new Float64Array(longest);
    for (let s = 0; s < longest; s++) {
      if (pmf[s] === 0) continue;
      for (const d of steps) {
        if (s + d < longest) next[s + d] += pmf[s] * weight;
      }
    }
    const cdf = new Float64Array(longest);
    let acc = 0;
    for (let s = 0; s < longest; s++) {
      acc += next[s];
      cdf[s] = acc;
    }
    if (acc < NEGLIGIBLE) break;
    cdfs.push(cdf);
    pmf = next;
  }
  // Equilibrium residual of the decode steps: P(Res = r) = P(steps > r) / E[steps], r = 0, 1, ...
  const residualCdf = (r: number) => {
    let sum = 0;
    for (const d of steps) sum += Math.min(d, r + 1) * weight;
    return meanSteps > 0 ? sum / meanSteps : 1;
  };
  const table: RenewalTable = {
    atLeast: gaps.map((gap) => cdfs.map((cdf, i) => (i === 0 ? 1 : gap >= 1 ? cdf[Math.min(gap - 1, longest - 1)] : 0))),
    endsWithin: gaps.map((gap) => (gap >= 1 ? residualCdf(gap - 1) : 0)),
    unbounded,
  };
  memo.set(key, table);
  return table;
}

/**
 * For each gap (decode steps between a request's first and last token), `tails[g][k] = P(T >= k)` for k from 0 up;
 * beyond the array's end the probability is 0. Each other slot is free at the request's first token with
 * probability `free`; a busy one admits only if its sequence ends within the gap (its equilibrium residual). Every
 * entry is 1 (no bound) when a drawn output can be a single token.
 */
export function slotTurnoverTails(
  outputTokens: TokenLength,
  slots: number,
  gaps: readonly number[],
  free: number,
  normalQuantile: (p: number) => number,
): readonly (readonly number[])[] {
  const table = renewalTable(outputTokens, gaps, normalQuantile);
  if (table.unbounded) {
    return gaps.map(() => Array.from({ length: 64 * slots }, () => 1));
  }
  return gaps.map((_, g) => {
    // One other slot admits 0 sequences, or 1 + R with P(R >= i) = atLeast[i].
    const admits = free + (1 - free) * table.endsWithin[g];
    const atLeast = table.atLeast[g];
    const one = [1 - admits, ...atLeast.map((p, i) => admits * (p - (atLeast[i + 1] ?? 0)))];
    let sum = [1];
    for (let j = 0; j < slots - 1; j++) {
      const out = new Array<number>(sum.length + one.length - 1).fill(0);
      sum.forEach((a, x) => one.forEach((b, y) => { out[x + y] += a * b; }));
      sum = out;
    }
    const tail = new Array<number>(sum.length + 1).fill(0);
    for (let k = sum.length - 1; k >= 0; k--) {
      tail[k] = tail[k + 1] + sum[k];
    }
    return tail;
  });
}
