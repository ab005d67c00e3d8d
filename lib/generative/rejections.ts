/**
 * Why generative candidates lost, in words: the memory term that did not fit, the target a trickle already misses,
 * and one line per rejection for the error message.
 */
import { round } from '../planner/candidate';
import { predictReplica } from './continuous-batching';
import type { engineTiming } from './continuous-batching';
import type { replicaMemory } from './memory';
import type { GenerativeRejection, GenerativeTargets } from './types';

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
  // A trickle: one request per 1,000 s. At rates far lower the TTFT quantile's arithmetic overflows (Infinity), which
  // blamed the first token for what the end-to-end target refused.
  const idle = [1e-6, 1e-3].map((rate) => predictReplica(timing, targets, rate))
    .find((p) => Number.isFinite(p.ttftP99Ms) && Number.isFinite(p.e2eP99Ms)) ?? predictReplica(timing, targets, 1e-3);
  if (idle.tpotP99Ms > targets.tpotP99Ms) {
    return { configuration, code: 'tpot', reason: `decodes at TPOT p99 ${round(idle.tpotP99Ms, 1)} ms even alone; the target is ${targets.tpotP99Ms} ms: use fewer sequences or more cores per replica` };
  }
  if (idle.ttftP99Ms > targets.ttftP99Ms) {
    return { configuration, code: 'ttft', reason: `first token at p99 ${round(idle.ttftP99Ms, 1)} ms even alone (prefill of ${targets.inputTokens.p99 ?? targets.inputTokens.mean} tokens); the target is ${targets.ttftP99Ms} ms: shorten prompts or use more cores` };
  }
  return {
    configuration,
    code: 'e2e',
    reason: `end-to-end p99 ${round(idle.e2eP99Ms, 0)} ms even alone; the end-to-end target is ${targets.e2eP99Ms} ms ` +
      `(TTFT p99 ${round(idle.ttftP99Ms, 1)} ms + ${Math.max(0, (targets.outputTokens.p99 ?? targets.outputTokens.mean) - 1)} ` +
      `tokens at TPOT p99 ${round(idle.tpotP99Ms, 1)} ms): raise it, or shorten the outputs`,
  };
}

/** One line per rejection reason kind, the most telling first. */
export function explain(rejected: readonly GenerativeRejection[]): string[] {
  const order: GenerativeRejection['code'][] = ['unmeasured-lever', 'tpot', 'ttft', 'e2e', 'max-instances', 'device-memory', 'host-memory', 'sequence-length', 'tensor-parallel', 'engine', 'no-measurement', 'no-price', 'excluded'];
  return [...rejected]
    .sort((a, b) => order.indexOf(a.code) - order.indexOf(b.code))
    .filter((r) => r.code !== 'excluded')
    .map((r) => `${r.instanceType}${r.configuration ? ` ${r.configuration}` : ''}: ${r.reason}`);
}
