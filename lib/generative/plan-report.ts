/**
 * What a generative plan reports beyond its sizing: the estimate its times rest on, goodput, and what each lever of
 * the chosen plan was worth.
 */
import { builtInPerformanceModel, ESTIMATE_ERROR_QUANTILE } from './estimate';
import type { EstimatedConfiguration } from './estimate';
import { describeLevers } from './levers';
import { round } from '../planner/candidate';
import { predictReplica } from './continuous-batching';
import type { engineTiming } from './engine-timing';
import type { replicaMemory } from './memory';
import type { GenerativeEstimate, GenerativeLeverWorth, GenerativePlan, GenerativeRejection, GenerativeTargets } from './types';

const pct = (x: number) => `${Math.round(x * 100)} %`;

/** The estimate's figures, for the plan's JSON. */
export function estimateDetails(config: EstimatedConfiguration): GenerativeEstimate {
  const { error } = builtInPerformanceModel();
  const t = config.timing;
  return {
    tpotError: { median: round(error.tpot.median, 2), worst: round(error.tpot.worst, 2) },
    ttftError: { median: round(error.ttft.median, 2), worst: round(error.ttft.worst, 2) },
    headroom: { tpot: round(t.headroom.tpot, 2), ttft: round(t.headroom.ttft, 2) },
    stepMs: round(t.rawStepMs, 2),
    prefillMs: round(t.rawPrefillMs, 2),
    anchors: { tpot: round(t.anchors.tpot, 2), ttft: round(t.anchors.ttft, 2) },
  };
}

/** The warning an estimated plan carries. */
export function estimateWarning(config: EstimatedConfiguration): string {
  const { error } = builtInPerformanceModel();
  const t = config.timing;
  return `ESTIMATE: no published row measures tp=${config.tp} seqs=${config.seqs} (levers: ${describeLevers(config.levers)}) at this length; ` +
    `the performance model predicts a decode step of ${round(t.rawStepMs, 2)} ms and a mean prefill of ${round(t.rawPrefillMs, 2)} ms. ` +
    `Its leave-one-out error on the published rows is median ${pct(error.tpot.median)}, worst ${pct(error.tpot.worst)} for TPOT and median ` +
    `${pct(error.ttft.median)}, worst ${pct(error.ttft.worst)} for TTFT; the plan raises both by their ${Math.round(ESTIMATE_ERROR_QUANTILE * 100)}th-percentile ` +
    `error (x${round(t.headroom.tpot, 2)} and x${round(t.headroom.ttft, 2)}). Prove it with the token proof and calibrate from its report.`;
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


/*

 * Why generative candidates lost, in words: the memory term that did not fit, the target a trickle already misses,
 * and one line per rejection for the error message.
 */

/** Which memory term did not fit and what would. */
export function memoryReason(memory: ReturnType<typeof replicaMemory>, seqs: number, tp: number, length: number): string {
  const terms = `weights ${memory.weights} + KV cache ${memory.kvCache} + reserve ${memory.reserve} GiB > ${memory.available} GiB of ${tp} cores`;
  if (memory.weights + memory.reserve >= memory.available) {
    return `${terms}: the weights alone do not fit ${tp} cores; use a higher tensor-parallel degree (more cores) or a smaller dtype`;
  }
  return `${terms} at ${seqs} sequences of ${length} tokens: at most ${memory.maxConcurrencyThatFits} sequences fit; ` +
    'use fewer sequences, a shorter context, more cores or a smaller dtype' +
    (memory.kvSharding === 'replicate' ? ` (KV heads are replicated ${memory.kvHeadsPerRank}x per rank at this degree)` : '');
}

/** Which target a trickle of requests already misses. */
export function latencyRejection(configuration: string, timing: ReturnType<typeof engineTiming>, targets: GenerativeTargets): Omit<GenerativeRejection, 'instanceType'> {
  const idle = predictReplica(timing, targets, 1e-6);
  if (idle.tpotP99Ms > targets.tpotP99Ms) {
    return { configuration, code: 'tpot', reason: `decodes at TPOT p99 ${round(idle.tpotP99Ms, 1)} ms even alone; the target is ${targets.tpotP99Ms} ms: use fewer sequences or more cores per replica` };
  }
  if (idle.ttftP99Ms > targets.ttftP99Ms) {
    return { configuration, code: 'ttft', reason: `first token at p99 ${round(idle.ttftP99Ms, 1)} ms even alone (prefill of ${targets.inputTokens.p99 ?? targets.inputTokens.mean} tokens); the target is ${targets.ttftP99Ms} ms: shorten prompts or use more cores` };
  }
  return { configuration, code: 'e2e', reason: `end-to-end p99 ${round(idle.e2eP99Ms, 0)} ms even alone; the target is ${targets.e2eP99Ms} ms` };
}

/** One line per rejection reason kind, the most telling first. */
export function explain(rejected: readonly GenerativeRejection[]): string[] {
  const order: GenerativeRejection['code'][] = ['tpot', 'ttft', 'e2e', 'max-instances', 'device-memory', 'host-memory', 'sequence-length', 'tensor-parallel', 'engine', 'no-measurement', 'no-price', 'excluded'];
  return [...rejected]
    .sort((a, b) => order.indexOf(a.code) - order.indexOf(b.code))
    .filter((r) => r.code !== 'excluded')
    .map((r) => `${r.instanceType}${r.configuration ? ` ${r.configuration}` : ''}: ${r.reason}`);
}

