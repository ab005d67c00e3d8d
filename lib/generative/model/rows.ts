/**
 * The rows the performance model is fitted to and anchored on, as the fit reads them: one measured configuration
 * (model, chip, serving stack, SDK, tensor-parallel degree, batch, concurrency, lengths, dtypes) with the times its
 * source states. Published rows and a profile's own rows both become `FitRow`s; the fit never reads a source's
 * format directly, so a new source changes only its converter.
 */
import { ec2Name } from '../../catalog/catalog';
import { chipOf } from '../../planner/planner';
import { perOutputTokenMs } from '../continuous-batching';
import { vllmEngineOf } from '../engine-config';
import type { GenerativeDtype, GenerativeMeasurement, GenerativeProfile } from '../types';
import type { ModelFacts } from './physics';

/**
 * The software that served a row. `vllm-nxdi` is vLLM over NxD Inference (what plans deploy on Inf2 and Trn1),
 * `vllm-neuron-plugin` the vLLM Neuron plugin (Trn2 and Trn3); the others are what published rows ran.
 */
export type ServingStack = 'vllm-nxdi' | 'vllm-neuron-plugin' | 'nxd-inference' | 'transformers-neuronx' | 'optimum-neuron' | 'optimum-neuron-vllm' | 'tgi-neuron' | string;

/** One measured configuration, as the fit reads it. */
export interface FitRow {
  /** The model's key (a built-in profile id, or a published model key). */
  readonly model: string;
  /**
   * The network's shape (`architectureKey`): models that differ only in their weights (Llama 3 and 3.1 8B, a
   * distill of Llama 3.3 70B) time the same, so they are one model to the anchors and to holding out.
   */
  readonly architecture: string;
  readonly facts: ModelFacts;
  readonly instanceType: string;
  /** `chipOf` name of the instance: inf2, trn1, trn2, trn3. */
  readonly chip: string;
  readonly stack: ServingStack;
  readonly neuronSdkVersion: string;
  readonly tensorParallelDegree: number;
  /** Sequences compiled together (`max_num_seqs`, the static batch). */
  readonly batchSize: number;
  /** Requests in flight in the benchmark. @default 1 */
  readonly concurrency?: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /**
   * Prompt tokens the prefill computed: the input padded to the compiled prompt bucket that holds it.
   *
   * @default - inputTokens
   */
  readonly prefillTokens?: number;
  /**
   * Tokens of KV cache a decode step attends over: mid-answer context (input + output / 2) padded to the compiled
   * sequence bucket that holds it.
   *
   * @default - inputTokens + outputTokens / 2
   */
  readonly decodeContextTokens?: number;
  /** @default - the model's dtype */
  readonly weightDtype?: GenerativeDtype;
  /** @default - the weights' dtype */
  readonly kvDtype?: GenerativeDtype;
  /** Median (or mean, where the source states only that) time per output token read off the source, seconds. */
  readonly tpotSeconds?: number;
  /**
   * Median (or mean) time to first token, seconds, where it times prefills the model can price: one prompt at a time
   * (or a static batch's prompts together), not queued behind others, no chunked prefill, no prefix cache.
   */
  readonly ttftSeconds?: number;
  /**
   * A derived figure: one request's end-to-end time (TTFT + (output - 1) x TPOT) where the source states only
   * throughput at concurrency 1 (output tokens / tokens per second). Constrains prefill and decode together.
   */
  readonly e2eSeconds?: number;
  /** Whether the stack prefills a static batch's prompts together (`generate`) rather than one at a time (vLLM). */
  readonly staticBatch?: boolean;
  /** Where the row comes from. */
  readonly source: string;
}

/**
 * A network's shape: layers, heads, KV heads, head size and parameters (to 0.1 B). Two models with the same key run
 * the same kernels on the same bytes.
 */
export function architectureKey(facts: Pick<ModelFacts, 'layers' | 'attentionHeads' | 'kvHeads' | 'headDim' | 'parametersBillions'>): string {
  return `${facts.layers}L/${facts.attentionHeads}H/${facts.kvHeads}KV/${facts.headDim}D/${facts.parametersBillions.toFixed(1)}B`;
}

/** The stack a plan on this instance family deploys (engine-config.ts `vllmEngineOf`). */
export function deployedStack(family: string): ServingStack {
  return vllmEngineOf(family) === 'vllm-neuron-plugin' ? 'vllm-neuron-plugin' : 'vllm-nxdi';
}

/** The chip of an instance type (`inf2.48xlarge`, `ml.trn1.32xlarge`). */
export function chipOfInstance(instanceType: string): string {
  return chipOf(ec2Name(instanceType).split('.')[0]);
}

/**
 * A profile's measured rows as fit rows. A profile row states no stack: it takes the stack plans deploy on its chip,
 * since that is what a user measures and calibrates with. Encoder-decoder models are not modelled.
 */
export function profileFitRows(profile: GenerativeProfile): FitRow[] {
  if (profile.model.architecture !== 'decoder-only') {
    return [];
  }
  return profile.measurements.map((row) => measurementFitRow(profile, row));
}

function measurementFitRow(profile: GenerativeProfile, row: GenerativeMeasurement): FitRow {
  const family = ec2Name(row.instanceType).split('.')[0];
  const prefillAlone = row.ttftP50Ms !== undefined && row.chunkedPrefill !== true;
  return {
    model: profile.id,
    architecture: architectureKey(profile.model),
    facts: profile.model,
    instanceType: row.instanceType,
    chip: chipOf(family),
    stack: deployedStack(family),
    neuronSdkVersion: row.neuronSdkVersion,
    tensorParallelDegree: row.tensorParallelDegree,
    batchSize: row.batchSize,
    inputTokens: row.inputTokens,
    outputTokens: row.outputTokens,
    tpotSeconds: perOutputTokenMs(row) / 1000,
    ...(prefillAlone ? { ttftSeconds: (row.ttftP50Ms as number) / 1000 } : {}),
    source: row.source,
  };
}
