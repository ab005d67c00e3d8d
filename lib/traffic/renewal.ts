/**
 * How soon bursty arrivals follow one another: the renewal count of gamma-distributed gaps, which the queueing models
 * take for arrivals of a given SCV (what `vllm bench serve --burstiness 1/SCV` sends) where they know no file's gaps.
 */

/**
 * P(the `n`-th arrival after a given one comes within `seconds`), gaps gamma-distributed with mean `1 / lambda` and
 * SCV `ca2`: the sum of n gaps is Gamma(n / ca2) of rate `lambda / ca2`. Poisson's count tail at ca2 1.
 */
export function renewalWithin(n: number, lambda: number, seconds: number, ca2: number): number {
  if (n <= 0) {
    return 1;
  }
  if (!(seconds > 0) || !(lambda > 0)) {
    return 0;
  }
  return regularizedGamma(n / ca2, (lambda * seconds) / ca2);
}

/**
 * The regularized lower incomplete gamma function P(a, x): its series below x = a + 1, its continued fraction
 * (modified Lentz) above, as Numerical Recipes' `gammp`, to a relative 1e-12.
 */
export function regularizedGamma(a: number, x: number): number {
  if (x <= 0) {
    return 0;
  }
  const logPrefix = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < 1000; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * 1e-12) break;
    }
    return Math.min(1, sum * Math.exp(logPrefix));
  }
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 1000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < 1e-12) break;
  }
  return Math.max(0, 1 - Math.exp(logPrefix) * h);
}

/** ln Gamma(x), x > 0 (Lanczos, g = 7, 9 terms: 15 significant digits). */
function logGamma(x: number): number {
  const c = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
    12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
  if (x < 0.5) {
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  }
  const z = x - 1;
  let sum = c[0];
  for (let i = 1; i < 9; i++) {
    sum += c[i] / (z + i);
  }
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}
