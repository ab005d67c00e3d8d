/**
 * The ECS services' props checked before any resource exists (NeuronEcsService's and NeuronGenerativeEcsService's,
 * through the rules they share): every problem is collected, then thrown once, and what the constructor builds from
 * is returned resolved.
 */
import { Duration, Names, Size, Stack, Token } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { checkGenerativeArtifacts } from '../../../lib/compile/generative-check';
import { InputError } from '../../../lib/errors';
import { vllmReplicaConfigs, VllmReplicaConfig } from '../../../lib/generative/engine-config';
import { DEFAULT_METRICS_NAMESPACE, DEFAULT_REQUEST_TIMEOUT_MS, modelServerEnvironment } from '../../../lib/serving/environment';
import { constructError, generativePlanOf, singleCallPlanOf, throwIfProblems } from '../../private/construct-errors';
import { defaultStartupTimeoutSeconds } from '../../private/endpoint-sizing';
import { EcsAutoScalingOptions, EcsHostingOptions, MODEL_SERVER_PORT, NeuronEcsServiceProps } from '../ecs-service-props';
import type { NeuronGenerativeEcsServiceProps } from '../generative-ecs-service-props';
import { ROOT_VOLUME_MAX_GIB, ROOT_VOLUME_MIN_GIB, rootVolumeGiB } from './ecs-capacity';
import { EcsLayout, ecsLayoutFromPlan } from './ecs-layout';
import {
  ARTIFACTS_DIRECTORY, defaultGenerativeRootVolumeGiB, defaultGraceSeconds, GenerativeEcsLayout, generativeEcsLayout,
  STREAM_TIMEOUT_MAX_SECONDS, streamTimeoutSeconds, WEIGHTS_DIRECTORY,
} from './generative-ecs-layout';

/** What the constructor builds from, all checked. */
export interface ResolvedService {
  readonly layout: EcsLayout;
  readonly ports: { readonly listener: number; readonly container: number };
  readonly scaling?: TaskScaling;
  readonly volumeGiB: number;
  readonly graceSeconds: number;
  readonly requestTimeoutMs: number;
  readonly metricsNamespace: string;
  readonly metricsService: string;
  readonly serverEnvironment: Record<string, string>;
}

/** Checks every prop against the plan and the hosting; throws one InputError naming each problem. */
export function resolveService(scope: Construct, props: NeuronEcsServiceProps): ResolvedService {
  // A plan of the wrong shape, kind or version is refused before anything reads it.
  singleCallPlanOf(scope, props.plan);
  const problems: string[] = [];
  const stack = Stack.of(scope);
  const layout = ecsLayoutFromPlan(props.plan, Token.isUnresolved(stack.region) ? undefined : stack.region, problems);
  const ports = listenerPorts(props, MODEL_SERVER_PORT, problems);
  networkProblems(props, problems);
  if (props.availabilityZones !== undefined && props.availabilityZones.length < 2) {
    problems.push(`availabilityZones=${JSON.stringify(props.availabilityZones)} names fewer than two zones; pass at `
      + 'least two, so an Availability Zone outage leaves instances serving');
  }
  if (props.image.needsModelData) {
    problems.push('image is ModelImage.fromServer(...), the model server without a model, and this service does not '
      + 'download one: build an image FROM it with the compiled model and its code/ in /opt/ml/model (docs/ecs.md), '
      + 'push it, and pass ModelImage.fromRepository(repository, digest, { modelServer: true })');
  } else if (!props.image.modelServer) {
    problems.push('image does not run the cdk-inferentia model server, which this service configures from the plan '
      + '(workers, core groups, batching): build an image FROM ModelImage.fromServer\'s with the compiled model and '
      + 'its code/ in /opt/ml/model (docs/ecs.md), push it, and pass ModelImage.fromRepository(repository, digest, '
      + '{ modelServer: true })');
  }
  const scaling = layout ? taskScaling(props.autoScaling, layout,
    { planned: layout.plannedRpsPerInstance, capacity: props.plan.capacityPerInstanceRps, of: 'one instance' }, problems) : undefined;
  const volumeGiB = layout ? rootVolumeGiB(props.rootVolumeSize, layout) : 0;
  const graceSeconds = props.healthCheckGracePeriod?.toSeconds()
    ?? (layout ? defaultStartupTimeoutSeconds({ ...layout, batchSize: 1, deviceMemoryGiB: layout.modelGiB }) : 0);
  startupProblems(props, { volumeGiB, graceSeconds }, {
    volume: ': the Neuron image, the model and the next deploy\'s image share it; pass e.g. Size.gibibytes(200)',
    grace: 'a Neuron worker loads its compiled model before /ping answers 200: pass at least Duration.minutes(5)',
  }, problems);
  const requestTimeoutMs = props.requestTimeout?.toMilliseconds() ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const metricsNamespace = props.metricsNamespace ?? DEFAULT_METRICS_NAMESPACE;
  // A synth-time value, so dashboards and ModelServerMetrics can name the dimension.
  const metricsService = Names.uniqueResourceName(scope, { maxLength: 128, separator: '-' });
  let serverEnvironment: Record<string, string> = {};
  try {
    serverEnvironment = modelServerEnvironment(props.plan, {
      requestTimeoutMs,
      metricsNamespace,
      metricsService,
    });
  } catch (e) {
    if (!(e instanceof InputError)) {
      throw e;
    }
    problems.push(...e.problems.map((p) => `plan or model server options: ${p}`));
  }
  throwIfProblems(scope, problems);
  if (layout === undefined || ports === undefined) {
    throw constructError(scope, 'no layout');
  }
  return {
    layout, ports, scaling, volumeGiB, graceSeconds, requestTimeoutMs, metricsNamespace, metricsService, serverEnvironment,
  };
}

/** The VPC checks both ECS services share: subnets need their VPC, and zones only shape a VPC the construct defines. */
export function networkProblems(props: EcsHostingOptions, problems: string[]): void {
  if (props.vpc === undefined && props.vpcSubnets !== undefined) {
    problems.push('vpcSubnets is set without vpc; pass the vpc the subnets belong to, or remove vpcSubnets');
  }
  if (props.vpc !== undefined && props.availabilityZones !== undefined) {
    problems.push('availabilityZones is set with vpc; it only shapes the VPC this construct defines: choose '
      + 'zones with vpcSubnets instead');
  }
}

/** The listener port (443 with a certificate, else 80) and the container port, each checked to be a TCP port. */
export function tcpPorts(props: EcsHostingOptions & { readonly containerPort?: number }, defaultContainerPort: number, problems: string[]): { listener: number; container: number } {
  const listener = props.listenerPort ?? (props.certificate ? 443 : 80);
  const container = props.containerPort ?? defaultContainerPort;
  for (const [name, value] of [['listenerPort', listener], ['containerPort', container]] as const) {
    if (!Number.isInteger(value) || value < 1 || value > 65535) {
      problems.push(`${name}=${value} is not a TCP port; pass a whole number from 1 to 65535`);
    }
  }
  return { listener, container };
}

/**
 * The instances' root volume (whole GiB within EBS's gp3 bounds) and the health-check grace (a minute at least), as
 * either service resolved them; `hints` end each message with what the service's own server needs.
 */
export function startupProblems(
  props: { readonly rootVolumeSize?: Size; readonly healthCheckGracePeriod?: Duration },
  resolved: { readonly volumeGiB: number; readonly graceSeconds: number },
  hints: { readonly volume: string; readonly grace: string },
  problems: string[],
): void {
  const { volumeGiB, graceSeconds } = resolved;
  if (props.rootVolumeSize !== undefined && !Token.isUnresolved(volumeGiB)
    && (!Number.isInteger(volumeGiB) || volumeGiB < ROOT_VOLUME_MIN_GIB || volumeGiB > ROOT_VOLUME_MAX_GIB)) {
    problems.push(`rootVolumeSize=${volumeGiB} GiB must be a whole number from ${ROOT_VOLUME_MIN_GIB} to `
      + `${ROOT_VOLUME_MAX_GIB} GiB${hints.volume}`);
  }
  if (props.healthCheckGracePeriod !== undefined && !Token.isUnresolved(graceSeconds) && graceSeconds < 60) {
    problems.push(`healthCheckGracePeriod=${props.healthCheckGracePeriod.toHumanString()} is shorter than a minute; `
      + hints.grace);
  }
}

/**
 * The listener and container ports of either ECS service, with the TLS rules both share: a public load balancer
 * needs a certificate, a domain name names the host a certificate covers (and the proof, which verifies TLS, needs
 * it), and port 80 is the redirect's; undefined when any rule failed.
 */
export function listenerPorts(
  props: EcsHostingOptions & { readonly containerPort?: number; readonly smokeBenchmark?: object },
  defaultContainerPort: number,
  problems: string[],
): { listener: number; container: number } | undefined {
  const before = problems.length;
  if (props.internetFacing && props.certificate === undefined) {
    problems.push('internetFacing=true without certificate: a public load balancer must not serve plain HTTP; pass '
      + 'certificate (an ACM certificate for domainName), or leave internetFacing unset for an internal one');
  }
  if (props.domainName !== undefined && props.certificate === undefined) {
    problems.push(`domainName=${JSON.stringify(props.domainName)} is set without certificate; it names the host the `
      + 'certificate covers: pass certificate too, or remove domainName');
  }
  if (props.certificate !== undefined && props.smokeBenchmark !== undefined && props.domainName === undefined) {
    problems.push('certificate and smokeBenchmark are set without domainName: the benchmark verifies TLS, and the '
      + 'certificate does not cover the load balancer\'s own DNS name; pass domainName (the host the certificate '
      + 'covers, pointing at the load balancer)');
  }
  const { listener, container } = tcpPorts(props, defaultContainerPort, problems);
  if (props.certificate !== undefined && listener === 80) {
    problems.push('listenerPort=80 with certificate: port 80 carries the HTTP-to-HTTPS redirect; use 443 or '
      + 'another port for HTTPS');
  }
  return problems.length > before ? undefined : { listener, container };
}


/** Target tracking of the tasks' request count, as both ECS services scale. */
export interface TaskScaling {
  readonly requestsPerMinute: number;
  readonly scaleInCooldown: Duration;
  readonly scaleOutCooldown: Duration;
}

/**
 * Requests per target per minute that target tracking holds: 60 x the planned rate of one task's unit (an instance,
 * a replica), or 60 x its capacity x `targetUtilization` when given; undefined when scaling is off or the plan leaves
 * no room to scale (`maxInstanceCount` = `instanceCount`).
 */
export function taskScaling(
  options: EcsAutoScalingOptions = {},
  layout: { readonly instanceCount: number; readonly maxInstanceCount: number },
  rps: { readonly planned: number; readonly capacity: number; readonly of: string },
  problems: string[],
): TaskScaling | undefined {
  if (options.enabled === false || layout.maxInstanceCount === layout.instanceCount) {
    return undefined;
  }
  let perUnit = rps.planned;
  if (options.targetUtilization !== undefined) {
    if (!(options.targetUtilization > 0 && options.targetUtilization <= 1)) {
      problems.push(`autoScaling.targetUtilization=${options.targetUtilization} must be in (0, 1], e.g. 0.7 for 70 % `
        + `of ${rps.of}'s capacity`);
      return undefined;
    }
    perUnit = rps.capacity * options.targetUtilization;
  }
  // ALBRequestCountPerTarget is a sum per minute.
  return {
    requestsPerMinute: Math.max(1, Math.floor(perUnit * 60)),
    scaleInCooldown: options.scaleInCooldown ?? Duration.minutes(10),
    scaleOutCooldown: options.scaleOutCooldown ?? Duration.minutes(5),
  };
}

/** What the generative service's constructor builds from, all checked. */
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

/** Checks every generative prop against the plan and the hosting; throws one InputError naming each problem. */
export function resolveGenerativeService(scope: Construct, props: NeuronGenerativeEcsServiceProps): ResolvedGenerativeService {
  generativePlanOf(scope, props.plan);
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
  throwIfProblems(scope, problems);
  if (layout === undefined || ports === undefined) {
    throw constructError(scope, 'no layout');
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
