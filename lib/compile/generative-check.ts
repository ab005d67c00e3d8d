/**
 * Does a generative artifact fit a plan and a serving image? vLLM on Neuron loads whatever it finds under
 * `NEURON_COMPILED_ARTIFACTS` and ignores differing settings (AWS Neuron docs, vLLM User Guide for NxD Inference,
 * "Loading pre-compiled models / Serialization Support"), so an artifact compiled for another tensor parallel size,
 * concurrency or length is served as compiled, not as planned: a TP 8 artifact on a plan's TP 2 group fails to load,
 * a 4-sequence artifact under an 8-sequence plan halves its capacity, and NEFFs from another Neuron SDK may not load
 * at all. The hostings call {@link checkGenerativeArtifacts} at synth and refuse every mismatch at once.
 */
import type { GenerativeArtifactFacts } from './generative-manifest';
import { generativeChipOfFamily, type GenerativePlanForArtifact } from './generative-spec';

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
 * plus the serving image's Neuron SDK; one sentence each naming the field, both values and the fix. Empty when the
 * artifact fits.
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
