/**
 * The generative service's props checked before any resource exists: every problem is collected, then thrown once,
 * and what the constructor builds from is returned resolved.
 */
import { Stack, Token } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { checkGenerativeArtifacts } from '../../../lib/compile/generative-spec';
import { InputError } from '../../../lib/errors';
import { vllmReplicaConfigs, VllmReplicaConfig } from '../../../lib/generative/engine-config';
import type { NeuronGenerativeEcsServiceProps } from '../generative-ecs-service-props';
import { listenerPorts, networkProblems, startupProblems, TaskScaling, taskScaling } from './ecs-validation';
import {
  defaultGenerativeRootVolumeGiB, defaultGraceSeconds, GenerativeEcsLayout, generativeEcsLayout,
  STREAM_TIMEOUT_MAX_SECONDS, streamTimeoutSeconds,
} from './generative-ecs-layout';

/** Where the download container puts the weights and artifacts, and the engine reads them. */
export const MODEL_MOUNT = '/models';
export const WEIGHTS_DIRECTORY = `${MODEL_MOUNT}/weights`;
export const ARTIFACTS_DIRECTORY = `${MODEL_MOUNT}/compiled`;

/** What the constructor builds from, all checked. */
export interface ResolvedGenerativeService {
  readonly layout: GenerativeEcsLayout;
  readonly ports: { readonly listener: number; readonly container: number };
  /** One engine per replica slot, from lib/generative/engine-config. */
  readonly engines: readonly VllmReplicaConfig[];
  readonly scaling?: TaskScaling;
  readonly volumeGiB: number;
  readonly graceSeconds: number;
  readonly timeoutSeconds: number;
  /** Whether compiled artifacts are given (else vLLM compiles at start). */
  readonly compiled: boolean;
}

/** Checks every prop against the plan and the hosting; throws one InputError naming each problem. */
export function resolveGenerativeService(scope: Construct, props: NeuronGenerativeEcsServiceProps): ResolvedGenerativeService {
  const problems: string[] = [];
  const stack = Stack.of(scope);
  const layout = generativeEcsLayout(props.plan, Token.isUnresolved(stack.region) ? undefined : stack.region, problems);
  const ports = listenerPorts(props, 8080, problems);
  networkProblems(props, problems);
  if (props.image.modelServer || props.image.needsModelData) {
    problems.push('image runs the cdk-inferentia model server, which does not serve generative plans; pass the Neuron '
      + 'vLLM container (ModelImage.fromNeuronVllm, or ModelImage.fromRepository with an image built FROM it)');
  }
  if ((props.model === undefined) === (props.compiledArtifacts === undefined)) {
    problems.push(props.model === undefined
      ? 'neither model nor compiledArtifacts is set; pass the NeuronGenerativeCompileJob that compiled for this plan as '
        + 'compiledArtifacts, or the S3 prefixes of the weights (and artifacts) as model'
      : 'both model and compiledArtifacts are set; pass only one: compiledArtifacts names the weights too');
  }
  if (props.compiledArtifacts !== undefined && layout !== undefined) {
    const sdk = props.image.neuronSdkVersion;
    if (sdk === undefined) {
      problems.push('image does not say its Neuron SDK, so the compiled artifacts cannot be checked against it; pass '
        + 'ModelImage.fromNeuronVllm, or ModelImage.fromRepository(..., { neuronSdkVersion })');
    } else {
      const artifacts = props.compiledArtifacts;
      const origin = artifacts instanceof Construct ? `compiledArtifacts ${artifacts.node.path}` : 'compiledArtifacts';
      problems.push(...checkGenerativeArtifacts(props.plan, sdk, artifacts.manifest, origin));
    }
  }
  const compiled = props.compiledArtifacts !== undefined || props.model?.compiledArtifactsPrefix !== undefined;
  for (const [name, prefix] of [['weightsPrefix', props.model?.weightsPrefix],
    ['compiledArtifactsPrefix', props.model?.compiledArtifactsPrefix]] as const) {
    if (prefix !== undefined && !Token.isUnresolved(prefix) && !/^[^/\s][^\s]*[^/\s]$|^[^/\s]$/.test(prefix)) {
      problems.push(`model.${name}=${JSON.stringify(prefix)} is not an S3 key prefix; pass one without spaces and `
        + 'without a leading or trailing slash, e.g. "models/llama-3.1-8b-instruct"');
    }
  }
  let engines: VllmReplicaConfig[] = [];
  if (layout !== undefined && ports !== undefined) {
    try {
      engines = vllmReplicaConfigs(props.plan, {
        model: WEIGHTS_DIRECTORY,
        servedModelName: props.servedModelName,
        compiledArtifacts: compiled ? ARTIFACTS_DIRECTORY : undefined,
        port: ports.container,
        // Each task maps its replica's devices at their host paths and pins its cores by their global numbers, as the
        // Neuron container guide does (`--device=/dev/neuron12 --device=/dev/neuron13 --env
        // NEURON_RT_VISIBLE_CORES=51,52`), so replicas that share a device never share a core.
        pinCores: true,
      });
    } catch (e) {
      if (!(e instanceof InputError)) {
        throw e;
      }
      problems.push(...e.problems.map((p) => `engine settings: ${p}`));
    }
  }
  const scaling = layout ? resolveScaling(props, layout, problems) : undefined;
  const volumeGiB = props.rootVolumeSize?.toGibibytes() ?? (layout ? defaultGenerativeRootVolumeGiB(layout) : 0);
  const graceSeconds = props.healthCheckGracePeriod?.toSeconds() ?? (layout ? defaultGraceSeconds(layout, compiled) : 0);
  startupProblems(props, { volumeGiB, graceSeconds }, {
    volume: '; pass e.g. Size.gibibytes(300)',
    grace: 'vLLM loads the weights and compiled artifacts before /health answers 200: pass at least Duration.minutes(10)',
  }, problems);
  const timeoutSeconds = props.requestTimeout?.toSeconds() ?? (layout ? streamTimeoutSeconds(props.plan) : 0);
  if (props.requestTimeout !== undefined && !Token.isUnresolved(timeoutSeconds)
    && (!Number.isInteger(timeoutSeconds) || timeoutSeconds < 1 || timeoutSeconds > STREAM_TIMEOUT_MAX_SECONDS)) {
    problems.push(`requestTimeout=${props.requestTimeout.toHumanString()} must be whole seconds from 1 to `
      + `${STREAM_TIMEOUT_MAX_SECONDS} (the longest deregistration delay a target group accepts)`);
  }
  InputError.throwIfAny(problems);
  if (layout === undefined || ports === undefined) {
    throw new InputError('NeuronGenerativeEcsService: no layout');
  }
  return { layout, ports, engines, scaling, volumeGiB, graceSeconds, timeoutSeconds, compiled };
}

/**
 * Requests per target per minute target tracking holds: `60 x planned requests/s per replica`, where the planned
 * rate per replica is `targets.requestsPerSecond / (instanceCount x replicasPerInstance)`; the plan sized the replicas
 * so this rate keeps its headroom. With `targetUtilization`: `60 x capacityPerReplicaRps x targetUtilization`.
 */
function resolveScaling(props: NeuronGenerativeEcsServiceProps, layout: GenerativeEcsLayout, problems: string[]): TaskScaling | undefined {
  return taskScaling(props.autoScaling, layout,
    { planned: layout.plannedRpsPerReplica, capacity: props.plan.generative.capacityPerReplicaRps, of: 'one replica' }, problems);
}
