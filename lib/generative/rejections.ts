/**
 * Why generative candidates lost, in words: the memory term that did not fit, the target a trickle already misses,
 * and one line per rejection for the error message.
 */
import type { engineTiming } from './continuous-batching';
import { measuredMissReason } from './latency-miss';
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
  return { configuration, ...measuredMissReason(timing, targets) };
}

/**
 * One line per rejection reason kind, the most telling first: a candidate that met the targets only with a lever
 * nobody measured there names the flag that plans it; one that misses only the end-to-end target met TTFT and TPOT
 * alone, so it is the nearest to a plan and names what to relax.
 */
export function explain(rejected: readonly GenerativeRejection[]): string[] {
  const order: GenerativeRejection['code'][] = ['unmeasured-lever', 'e2e', 'tpot', 'ttft', 'max-instances', 'device-memory', 'host-memory', 'sequence-length', 'tensor-parallel', 'engine', 'no-measurement', 'no-price', 'excluded'];
  return [...rejected]
    .sort((a, b) => order.indexOf(a.code) - order.indexOf(b.code))
    .filter((r) => r.code !== 'excluded')
    .map((r) => `${r.instanceType}${r.configuration ? ` ${r.configuration}` : ''}: ${r.reason}`)
    // Lever sets that lose for the same reason give the same line; once is enough.
    .filter((line, i, lines) => lines.indexOf(line) === i);
}
