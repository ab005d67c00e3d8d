/**
 * Queueing model the planner sizes with: how long a request waits for a NeuronCore group at a given arrival rate.
 *
 * Model: the processes of one instance are `c` servers sharing one FIFO queue; requests (or, with server batching,
 * the batches formed from them) arrive as a Poisson stream; a request waits more than `t` with probability
 *
 *   P(W > t) = C(c, a) x exp(-(c μ - λ) t x 2 / (ca² + cs²))
 *
 * where C is Erlang C (the M/M/c probability of waiting), cs² the squared coefficient of variation of the busy
 * time of one call and ca² that of the time between calls (1 for Poisson requests; less for batches, which close
 * full or after their delay). This is the GI/G/c approximation of Allen and Cunneen (waits scale with
 * (ca² + cs²) / 2 against M/M/c, Kingman's heavy-traffic factor), applied to the exponential tail of the M/M/c wait.
 *
 * Why it is safe: C(c, a) over-states the chance of waiting for low-variance service (M/D/c waits less often than
 * M/M/c), the tail rate is exact in heavy traffic, and cs² is the row's own (from its p50 and p99) floored at
 * `MIN_SERVICE_SCV`. `bench/plans.ts` replays every chosen plan in a discrete-event simulation to check the claim,
 * a property test does the same on random input, and `npm run bench:serving` holds it against the model server.
 */

import { renewalWithin } from '../traffic/renewal';

/**
 * Smallest squared coefficient of variation of a call's busy time the model assumes (a coefficient of variation of
 * 0.14): Python host work (GC pauses, tokenizer caches) and the runtime add jitter the Neuron tables' device-only
 * figures do not show.
 *
 * Why this low: the built-in rows' own p50 and p99 give cs² of 0.00015 at the median, 0.002 at the 90th percentile
 * and 0.057 at most (distilbert-base-uncased batch 8, p99 1.58 x p50: rows above the floor keep their own); the
 * model server's worker, timed by `npm run bench:serving` around a device stand-in, kept its calls' p99 within 12 %
 * of their median (cs² 0.0025) with its own host work between them. 0.02 is eight times that. It was 0.25 (a
 * coefficient of variation of 0.5) until bench:serving showed the server holding 1.4 times the capacity planned
 * with it (issue 21).
 */
export const MIN_SERVICE_SCV = 0.02;

/** z-score of the 99th percentile of a standard normal distribution. */
export const Z99 = 2.3263478740408408;

/**
 * Squared coefficient of variation of a log-normal call time with the given p50 and p99, floored at
 * `MIN_SERVICE_SCV`: `exp(σ²) - 1` with `σ = ln(p99 / p50) / z99`.
 */
export function serviceScv(p50: number, p99: number): number {
  const sigma = p99 > p50 && p50 > 0 ? Math.log(p99 / p50) / Z99 : 0;
  return Math.max(MIN_SERVICE_SCV, Math.expm1(sigma * sigma));
}

/**
 * Erlang C: probability that an arriving request has to wait, in an M/M/c queue with offered load `a = λ / μ`.
 *
 * Computed through the Erlang B recursion `B(k) = a B(k-1) / (k + a B(k-1))`, which stays in [0, 1] and cannot
 * overflow for large `c`, then `C = c B / (c - a (1 - B))`. Returns 1 when the queue is unstable (`a >= c`).
 */
export function erlangC(servers: number, offeredLoad: number): number {
  if (offeredLoad <= 0) {
    return 0;
  }
  if (offeredLoad >= servers) {
    return 1;
  }
  let b = 1;
  for (let k = 1; k <= servers; k++) {
    b = (offeredLoad * b) / (k + offeredLoad * b);
  }
  return (servers * b) / (servers - offeredLoad * (1 - b));
}

/** Share of requests whose latency the target bounds: the 99th percentile. */
export const TARGET_QUANTILE = 0.99;

/**
 * Quantile of the queueing wait the planner adds to a call's p99. Quantiles do not add: with just under 1 % of
 * requests waiting at all, the p99 of wait + call still exceeds the call's p99. Taking the wait at 99.5 % splits the
 * 1 % tail between wait and call (P(W + L > w + l) <= P(W > w) + P(L > l)), as `bench/plans.ts` showed was needed
 * for capacities at tight targets.
 */
export const WAIT_QUANTILE = 0.995;

/**
 * The `quantile` waiting time, in seconds: `P(W > t) = C(c, a) exp(-(c μ - λ) t x 2 / (1 + cs²))`.
 *
 * Zero when fewer than `1 - quantile` of arrivals wait at all; `Infinity` when the queue is unstable. With
 * `scv = 1` it is the exact M/M/c tail.
 *
 * @param arrivalsPerSecond λ, arrivals per second at the queue
 * @param serviceSeconds 1 / μ, mean time one server spends on one arrival
 * @param servers c
 * @param scv cs², squared coefficient of variation of the service time
 * @param arrivalScv ca², squared coefficient of variation of the time between arrivals (1 for Poisson)
 */
export function waitQuantileSeconds(
  arrivalsPerSecond: number,
  serviceSeconds: number,
  servers: number,
  scv = 1,
  quantile: number = TARGET_QUANTILE,
  arrivalScv = 1,
): number {
  if (arrivalsPerSecond <= 0) {
    return 0;
  }
  const drain = servers / serviceSeconds - arrivalsPerSecond;
  if (drain <= 0) {
    return Infinity;
  }
  const waits = erlangC(servers, arrivalsPerSecond * serviceSeconds);
  const tail = 1 - quantile;
  return waits <= tail ? 0 : (Math.log(waits / tail) * (arrivalScv + scv)) / (2 * drain);
}

/** Bursts of k = c, 2c, ... predecessors `clusteredWaitQuantileSeconds` weighs, in multiples of the servers c. */
const CLUSTER_MULTIPLES = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32];

/**
 * The `quantile` wait that clusters of bursty arrivals alone cause, at any load: when the k arrivals before a request
 * came within x of it, its `servers` (c) have floor(k / c) services each still ahead of it, so
 * `P(W > t) >= P(A_1 + ... + A_k < floor(k / c) S - t)`, with the gaps gamma-distributed at SCV `arrivalScv`
 * (`renewalWithin`); the largest over bursts of c to 32 c. Allen and Cunneen's factor (`waitQuantileSeconds`) is a
 * heavy-traffic figure: at low load it keeps Erlang C's chance of waiting, which bursts multiply (with gamma gaps of
 * shape below 1, as a power of the load below 1). 0 for Poisson or more regular arrivals.
 */
export function clusteredWaitQuantileSeconds(
  arrivalsPerSecond: number,
  serviceSeconds: number,
  servers: number,
  arrivalScv: number,
  quantile: number = TARGET_QUANTILE,
): number {
  if (arrivalScv <= 1 || !(arrivalsPerSecond > 0)) {
    return 0;
  }
  const tail = 1 - quantile;
  const c = Math.max(1, Math.round(servers));
  let wait = 0;
  for (const multiple of CLUSTER_MULTIPLES) {
    const k = multiple * c;
    const work = multiple * serviceSeconds;
    const within = (seconds: number) => renewalWithin(k, arrivalsPerSecond, seconds, arrivalScv);
    if (work <= wait || within(work - wait) <= tail) {
      continue;
    }
    // The span x the k-th predecessor came within at the quantile: within(x) = tail, the wait work - x.
    let low = 0;
    let high = work - wait;
    for (let i = 0; i < 40; i++) {
      const mid = (low + high) / 2;
      if (within(mid) > tail) {
        high = mid;
      } else {
        low = mid;
      }
    }
    wait = work - low;
  }
  return wait;
}

/**
 * Mean number of requests in a batch that closes when it holds `maxRequests` or `delaySeconds` after its first
 * request arrived, under Poisson arrivals at `arrivalsPerSecond`: `E[min(n, 1 + N)]` with `N ~ Poisson(λ T)`.
 */
export function meanBatchRequests(arrivalsPerSecond: number, delaySeconds: number, maxRequests: number): number {
  if (maxRequests <= 1) {
    return 1;
  }
  const mean = arrivalsPerSecond * delaySeconds;
  // E[min(n, 1 + N)] = sum_{j=0}^{n-1} P(1 + N > j) = 1 + sum_{j=1}^{n-1} P(N >= j).
  let pmf = Math.exp(-mean);
  let cdf = pmf;
  let expected = 1;
  for (let j = 1; j < maxRequests; j++) {
    expected += 1 - cdf;
    pmf *= mean / j;
    cdf += pmf;
  }
  return expected;
}

/**
 * Squared coefficient of variation of the time between such batches: the gap to the batch's first request,
 * `X ~ Exp(λ)`, plus its filling time `Y = min(T, G)` with `G ~ Gamma(n - 1, λ)`, independent. `E[Y]` follows from
 * the mean batch size (`E[S] = 1 + λ E[Y]`) and `E[Y²] = 2/λ² x sum_{j=0}^{n-2} (j + 1) P(N >= j + 2)`,
 * `N ~ Poisson(λ T)`. 1 for batches of one request (Poisson arrivals).
 */
export function batchArrivalScv(arrivalsPerSecond: number, delaySeconds: number, maxRequests: number): number {
  if (maxRequests <= 1 || delaySeconds <= 0 || arrivalsPerSecond <= 0) {
    return 1;
  }
  const lambda = arrivalsPerSecond;
  const mean = lambda * delaySeconds;
  // Poisson tail P(N >= k) for k = 0..n, from the pmf.
  const tail: number[] = [];
  let pmf = Math.exp(-mean);
  let below = 0;
  for (let k = 0; k <= maxRequests; k++) {
    tail.push(Math.max(0, 1 - below));
    below += pmf;
    pmf *= mean / (k + 1);
  }
  let y1 = 0;
  let y2 = 0;
  for (let j = 0; j <= maxRequests - 2; j++) {
    y1 += tail[j + 1] / lambda;
    y2 += (2 * (j + 1) * tail[j + 2]) / (lambda * lambda);
  }
  const meanGap = 1 / lambda + y1;
  const variance = 1 / (lambda * lambda) + y2 - y1 * y1;
  return variance / (meanGap * meanGap);
}

/**
 * The `quantile` of the size of the batch a request rides in, `S = min(n, 1 + N)` with `N ~ Poisson(λ T)` seen from
 * its requests: a batch of k holds k of them, so the size is weighted by itself, `P(k) = k P(S = k) / E[S]`. How much
 * host work the batch of a request at the tail carries.
 */
export function batchRequestsQuantile(
  arrivalsPerSecond: number,
  delaySeconds: number,
  maxRequests: number,
  quantile: number = TARGET_QUANTILE,
): number {
  if (maxRequests <= 1) {
    return 1;
  }
  const mean = arrivalsPerSecond * delaySeconds;
  const meanSize = meanBatchRequests(arrivalsPerSecond, delaySeconds, maxRequests);
  let pmf = Math.exp(-mean); // P(N = k - 1)
  let share = 0; // requests in batches of size <= k
  for (let k = 1; k < maxRequests; k++) {
    share += (k * pmf) / meanSize;
    if (share >= quantile) {
      return k;
    }
    pmf *= mean / k;
  }
  return maxRequests;
}

/**
 * The largest value in `[0, upper]` for which `fits` holds, by bisection; `fits` must hold below any value where it
 * holds (monotone). Returns 0 when `fits` fails everywhere above 0.
 */
export function largestFitting(upper: number, fits: (value: number) => boolean, relativePrecision = 1e-6): number {
  if (!(upper > 0)) {
    return 0;
  }
  if (fits(upper)) {
    return upper;
  }
  let low = 0;
  let high = upper;
  while (high - low > relativePrecision * upper) {
    const mid = (low + high) / 2;
    if (fits(mid)) {
      low = mid;
    } else {
      high = mid;
    }
  }
  return low;
}
