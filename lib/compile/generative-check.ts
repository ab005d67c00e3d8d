/**
 * Whether compiled generative artifacts are the ones a plan asks for: one definition of "the same compile", used by
 * the hostings (an artifact against their plan), the fallback pools (which pools share a compile) and the
 * environments (every environment serves the prefix the first one compiled).
 *
 * vLLM on Neuron loads what it finds under `NEURON_COMPILED_ARTIFACTS` "directly, and any differing model
 * configurations passed in to the vllm API will not trigger re-compilation" (AWS Neuron docs, vLLM User Guide for NxD
 * Inference, "Loading pre-compiled models / Serialization Support",
 * https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/nxd-inference/developer_guides/vllm-user-guide-v1.html),
 * so every setting that shapes a graph is compared, levers and buckets included: an FP8 artifact under a bf16 plan
 * would otherwise serve silently.
 */
import { canonicalJson } from './hash';
import { compiledEngineKwargs } from '../generative/engine-config';
import { generativeChipOfFamily, type GenerativeChip, type GenerativeCompileSpec, type GenerativePlanForArtifact,
  type GenerativeWeightsIdentity } from './generative-spec';

/** What an artifact was compiled for: the facts a plan and an image are checked against. */
export interface GenerativeArtifactFacts {
  readonly tensorParallelSize: number;
  readonly maxNumSeqs: number;
  readonly maxModelLen: number;
  readonly neuronSdkVersion: string;
  readonly chip: GenerativeChip;
  readonly logicalNeuronCoreConfig: number;
  /** The dtype asked for (`auto` in a spec), or the one the engine resolved (in a manifest). */
  readonly dtype: string;
  readonly weights: GenerativeWeightsIdentity;
  /**
   * The engine keyword arguments the graphs were compiled with beyond the fields above: an NxD Inference plan's
   * buckets and levers (FP8, speculation, prefix caching), or the vLLM Neuron plugin's settings.
   *
   * @default - none: the engine's own buckets, no levers (what a compile without them writes)
   */
  readonly engine?: Readonly<Record<string, unknown>>;
}

/** The facts of a spec, known at synth (the dtype as asked). */
export function generativeFactsOfSpec(spec: GenerativeCompileSpec): GenerativeArtifactFacts {
  return {
    tensorParallelSize: spec.tensorParallelSize,
    maxNumSeqs: spec.maxNumSeqs,
    maxModelLen: spec.maxModelLen,
    neuronSdkVersion: spec.neuronSdkVersion,
    chip: spec.chip,
    logicalNeuronCoreConfig: spec.logicalNeuronCoreConfig,
    dtype: spec.dtype,
    weights: spec.weights,
    engine: spec.plugin?.engine ?? spec.engine ?? {},
  };
}

/** `2.29` and `2.29.0` are the same release; anything else differs. */
export function normalizeSdkVersion(version: string): string {
  const parts = version.trim().split('.');
  while (parts.length < 3) {
    parts.push('0');
  }
  return parts.join('.');
}

/**
 * Every mismatch between an artifact (a compile spec's facts, known at synth, or a manifest read from S3) and the plan
 * plus the serving image's Neuron SDK. vLLM loads whatever it finds under `NEURON_COMPILED_ARTIFACTS` and ignores
 * differing settings, so an artifact compiled for another tensor parallel size, concurrency or length would be
 * served as compiled, not as planned (a TP 8 artifact does not load on a TP 2 group; a 4-sequence artifact under an
 * 8-sequence plan halves its capacity); NEFFs of another Neuron SDK may not load at all.
 *
 * Mismatches between the artifact and the plan
 * and the image, one sentence each naming the field, both values and the fix; empty when the artifact fits.
 *
 * @param plan the generative plan the hosting deploys
 * @param imageSdkVersion Neuron SDK release of the serving image (e.g. `2.29.0`)
 * @param artifact the artifact's facts
 * @param origin what the artifact is (a construct path, an S3 URI), named in each message
 */
export function checkGenerativeArtifacts(plan: GenerativePlanForArtifact, imageSdkVersion: string,
  artifact: GenerativeArtifactFacts, origin = 'compiled artifacts'): string[] {
  const engine = plan.generative.engine;
  const problems: string[] = [];
  const recompile = 'recompile for the plan (NeuronGenerativeCompileJob with this plan) or plan for the artifact';
  if (artifact.tensorParallelSize !== engine.tensorParallelSize) {
    problems.push(`${origin}: tensorParallelSize=${artifact.tensorParallelSize}, but the plan runs each replica with `
      + `tensor parallel size ${engine.tensorParallelSize} on ${plan.instanceType}; the compiled graphs are sharded for `
      + `${artifact.tensorParallelSize} ranks and do not load on ${engine.tensorParallelSize}: ${recompile}`);
  }
  if (artifact.maxNumSeqs !== engine.maxNumSeqs) {
    problems.push(`${origin}: maxNumSeqs=${artifact.maxNumSeqs}, but the plan decodes ${engine.maxNumSeqs} sequences at `
      + `once; vLLM would serve the compiled batch of ${artifact.maxNumSeqs} (the plan's capacity and TPOT assume `
      + `${engine.maxNumSeqs}): ${recompile}`);
  }
  if (artifact.maxModelLen !== engine.maxModelLen) {
    problems.push(`${origin}: maxModelLen=${artifact.maxModelLen}, but the plan needs ${engine.maxModelLen} tokens per `
      + `sequence (prompt plus output); ${artifact.maxModelLen < engine.maxModelLen ? 'longer requests would be refused' : 'the KV cache the plan sized would not hold'}: ${recompile}`);
  }
  if (normalizeSdkVersion(artifact.neuronSdkVersion) !== normalizeSdkVersion(imageSdkVersion)) {
    problems.push(`${origin}: neuronSdkVersion=${artifact.neuronSdkVersion}, but the serving image runs Neuron SDK `
      + `${imageSdkVersion}; artifacts compiled by one SDK's neuronx-cc and NxD Inference are not promised to load in `
      + `another: recompile with the serving image (the compile job runs in it), or serve with an image of SDK `
      + `${artifact.neuronSdkVersion}`);
  }
  const planChip = generativeChipOfFamily(plan.instance.family);
  if (planChip !== artifact.chip) {
    problems.push(`${origin}: chip=${artifact.chip}, but the plan runs ${plan.instanceType} (${planChip ?? plan.instance.family}); `
      + `NEFFs compiled for one chip do not run on another: ${recompile}`);
  }
  if (artifact.logicalNeuronCoreConfig !== engine.logicalNeuronCoreConfig) {
    problems.push(`${origin}: logicalNeuronCoreConfig=${artifact.logicalNeuronCoreConfig}, but the plan runs LNC=`
      + `${engine.logicalNeuronCoreConfig} (NEURON_LOGICAL_NC_CONFIG); the graphs are compiled for the core size: ${recompile}`);
  }
  const differs = engineDifferences(compiledEngineKwargs(plan.instance.family, engine), artifact.engine ?? {});
  if (differs.length > 0) {
    problems.push(`${origin}: compiled with other engine settings than the plan's buckets and levers (${differs.map((d) => `${d.key} `
      + `${d.theirs} where the plan has ${d.mine}`).join('; ')}); vLLM would serve the graphs as compiled, and the plan's TPOT, TTFT `
      + `and capacity assume its own: ${recompile}`);
  }
  return problems;
}

/**
 * Mismatches between the dtype an artifact was compiled with and the one the hosting will pass to vLLM (`auto`:
 * none, the checkpoint's). Separate from {@link checkGenerativeArtifacts} because the plan carries no dtype.
 */
export function checkGenerativeDtype(artifact: Pick<GenerativeArtifactFacts, 'dtype'>, servingDtype: string,
  origin = 'compiled artifacts'): string[] {
  if (servingDtype === 'auto' || artifact.dtype === 'auto' || artifact.dtype === servingDtype) {
    return [];
  }
  return [`${origin}: dtype=${artifact.dtype}, but the hosting serves with --dtype ${servingDtype}; recompile with dtype `
    + `${servingDtype} or serve with ${artifact.dtype}`];
}


/** What a plan's compiled graphs depend on, and nothing else of the plan: plans with equal settings share a compile. */
export interface CompiledSettings {
  /** The chip (`trn1n` compiles as `trn1`), or the family when it has no generative chip. */
  readonly chip: string;
  readonly tensorParallelSize: number;
  readonly maxNumSeqs: number;
  readonly maxModelLen: number;
  readonly logicalNeuronCoreConfig: number;
  /** `compiledEngineKwargs` (lib/generative/engine-config.ts): buckets and levers (NxD Inference), or the plugin's settings. */
  readonly engine: Readonly<Record<string, unknown>>;
}

/** The settings a plan compiles for. */
export function compiledSettingsOf(plan: GenerativePlanForArtifact): CompiledSettings {
  const engine = plan.generative.engine;
  return {
    chip: generativeChipOfFamily(plan.instance.family) ?? plan.instance.family,
    tensorParallelSize: engine.tensorParallelSize,
    maxNumSeqs: engine.maxNumSeqs,
    maxModelLen: engine.maxModelLen,
    logicalNeuronCoreConfig: engine.logicalNeuronCoreConfig,
    engine: compiledEngineKwargs(plan.instance.family, engine),
  };
}

/** One setting where two compiles differ: its name and each side's value, as JSON (`unset` when absent). */
export interface SettingDifference {
  readonly key: string;
  readonly mine: string;
  readonly theirs: string;
}

/** Every setting where `mine` and `theirs` compile differently; empty when they share a compile. */
export function compiledSettingsDifferences(mine: CompiledSettings, theirs: CompiledSettings): SettingDifference[] {
  const { engine: a, ...layoutA } = mine;
  const { engine: b, ...layoutB } = theirs;
  return [...engineDifferences(layoutA, layoutB), ...engineDifferences(a, b)];
}

/**
 * Settings that differ between two engine keyword-argument objects, nested objects read key by key
 * (`additional_config.override_neuron_config.quantized`), arrays and values whole.
 */
function engineDifferences(mine: Readonly<Record<string, unknown>>, theirs: Readonly<Record<string, unknown>>): SettingDifference[] {
  const a = flatten(mine);
  const b = flatten(theirs);
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  return keys.filter((k) => a.get(k) !== b.get(k)).map((key) => ({ key, mine: a.get(key) ?? 'unset', theirs: b.get(key) ?? 'unset' }));
}

function flatten(value: Readonly<Record<string, unknown>>, prefix = '', into = new Map<string, string>()): Map<string, string> {
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      flatten(v as Record<string, unknown>, `${prefix}${key}.`, into);
    } else {
      into.set(`${prefix}${key}`, canonicalJson(v));
    }
  }
  return into;
}
