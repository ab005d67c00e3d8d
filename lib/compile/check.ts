/**
 * Does a compiled artifact fit a plan? The chip, core generation, cores per process and batch size must all match,
 * or the model fails to load (an Inf1 NEFF on Inf2, a 2-core artifact on a 1-core process) or runs a shape the
 * server never sends.
 */
import type { CoreVersion } from '../catalog/types';
import type { Plan } from '../planner/types';
import type { CompileManifest } from './manifest';
import { CHIP_CORE_VERSION, chipOfFamily, type CompileSpec, type CompileChip } from './spec';

/** The facts of an artifact a plan is checked against; a spec and a manifest both carry them. */
export interface CompiledArtifactFacts {
  readonly chip: CompileChip;
  /** Taken from the chip when absent (a spec). */
  readonly coreVersion?: CoreVersion;
  readonly coresPerProcess: number;
  readonly batchSizes: readonly number[];
}

/** The part of a plan the check reads. */
export type PlanForArtifact = Pick<Plan, 'instanceType' | 'coresPerProcess' | 'batchSize'> & {
  readonly instance: Pick<Plan['instance'], 'family' | 'coreVersion'>;
};

/**
 * Every mismatch between an artifact (its spec or its manifest) and a plan, one sentence each naming the field,
 * both values and the fix; empty when the artifact fits.
 *
 * @param artifact a `CompileSpec`, a `CompileManifest` or their common facts
 * @param plan the plan the hosting deploys
 * @param origin what the artifact is (a construct path, a file), named in each message
 */
export function compiledArtifactProblems(
  artifact: CompiledArtifactFacts | CompileSpec | CompileManifest,
  plan: PlanForArtifact,
  origin = 'compiled artifact',
): string[] {
  const problems: string[] = [];
  const planChip = chipOfFamily(plan.instance.family);
  const artifactCores = ('coreVersion' in artifact ? artifact.coreVersion : undefined) ?? CHIP_CORE_VERSION[artifact.chip];
  if (planChip !== artifact.chip) {
    problems.push(`${origin}: chip=${artifact.chip}, but the plan runs ${plan.instanceType} (${planChip ?? plan.instance.family}); `
      + `compile with chip "${planChip ?? plan.instance.family}" or plan for ${artifact.chip} instances (--instance-types)`);
  }
  if (artifactCores !== plan.instance.coreVersion) {
    problems.push(`${origin}: coreVersion=${artifactCores} (NeuronCore-${artifactCores}), but ${plan.instanceType} has `
      + `NeuronCore-${plan.instance.coreVersion}; a model compiled for one generation does not load on the other: recompile for `
      + `the plan's chip`);
  }
  if (artifact.coresPerProcess !== plan.coresPerProcess) {
    problems.push(`${origin}: coresPerProcess=${artifact.coresPerProcess}, but the plan gives each process `
      + `${plan.coresPerProcess} NeuronCore${plan.coresPerProcess === 1 ? '' : 's'}; set coresPerProcess to `
      + `${plan.coresPerProcess} in the compile spec`);
  }
  if (!artifact.batchSizes.includes(plan.batchSize)) {
    problems.push(`${origin}: batchSizes=[${artifact.batchSizes.join(', ')}] lacks the plan's batch size ${plan.batchSize}, `
      + `the shape every device call has; add ${plan.batchSize} to batchSizes in the compile spec`);
  }
  return problems;
}
