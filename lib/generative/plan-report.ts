/**
 * What a generative plan reports beyond its sizing: the estimate its times rest on, goodput, and what each lever of
 * the chosen plan was worth.
 */
import { builtInPerformanceModel, ESTIMATE_ERROR_QUANTILE } from './estimate';
import type { EstimatedConfiguration } from './estimated-configs';
import { describeLevers } from './levers';
import type { GenerativeEstimate, GenerativeLeverWorth, GenerativePlan, GenerativeTargets } from './types';

const pct = (x: number) => `${Math.round(x * 100)} %`;

/** The estimate's figures, for the plan's JSON. */
export function estimateDetails(config: EstimatedConfiguration): GenerativeEstimate {
  const { error } = builtInPerformanceModel();
  const t = config.timing;
  return {
    tpotError: { median: round(error.tpot.median), worst: round(error.tpot.worst) },
    ttftError: { median: round(error.ttft.median), worst: round(error.ttft.worst) },
    headroom: { tpot: round(t.headroom.tpot), ttft: round(t.headroom.ttft) },
    stepMs: round(t.rawStepMs),
    prefillMs: round(t.rawPrefillMs),
    anchors: { tpot: round(t.anchors.tpot), ttft: round(t.anchors.ttft) },
  };
}

/** The warning an estimated plan carries. */
export function estimateWarning(config: EstimatedConfiguration): string {
  const { error } = builtInPerformanceModel();
  const t = config.timing;
  return `ESTIMATE: no published row measures tp=${config.tp} seqs=${config.seqs} (levers: ${describeLevers(config.levers)}) at this length; ` +
    `the performance model predicts a decode step of ${round(t.rawStepMs)} ms and a mean prefill of ${round(t.rawPrefillMs)} ms. ` +
    `Its leave-one-out error on the published rows is median ${pct(error.tpot.median)}, worst ${pct(error.tpot.worst)} for TPOT and median ` +
    `${pct(error.ttft.median)}, worst ${pct(error.ttft.worst)} for TTFT; the plan raises both by their ${Math.round(ESTIMATE_ERROR_QUANTILE * 100)}th-percentile ` +
    `error (x${round(t.headroom.tpot)} and x${round(t.headroom.ttft)}). Prove it with the token proof and calibrate from its report.`;
}

/**
 * Goodput of a fleet at its capacity (vLLM `bench serve --goodput`: requests/s meeting every target together): each
 * p99 holds there, so at most 1 % of requests miss each target, and at least 1 - 1 % x targets meet all of them.
 */
export function goodputOf(capacityRps: number, targets: GenerativeTargets): number {
  const slos = targets.e2eP99Ms !== undefined ? 3 : 2;
  return capacityRps * (1 - 0.01 * slos);
}

/** Each lever the chosen plan (the first) uses, against the cheapest plan without it. */
export function leverWorth(sorted: readonly GenerativePlan[]): GenerativeLeverWorth[] {
  const chosen = sorted[0];
  const levers = chosen?.generative.engine.levers;
  if (!levers) {
    return [];
  }
  const uses = {
    'speculative-decoding': (p: GenerativePlan) => p.generative.engine.levers?.speculation !== undefined,
    fp8: (p: GenerativePlan) => p.generative.engine.levers?.fp8Weights === true,
    'prefix-caching': (p: GenerativePlan) => p.generative.engine.levers?.prefixHitRate !== undefined,
  } as const;
  return (Object.keys(uses) as (keyof typeof uses)[])
    .filter((lever) => uses[lever](chosen))
    .map((lever) => {
      const without = sorted.find((p) => !uses[lever](p));
      return { lever, ...(without ? { without } : {}) };
    });
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
