import type { NeuronInstanceType } from '../../../lib/catalog/instance-type';
import type { GenerativePlan, ReplicaLayout } from '../../../lib/generative';
import { ARTIFACTS_PER_WEIGHT_ESTIMATE, DOWNLOAD_HOST_MEMORY_GIB, ENGINE_HOST_MEMORY_GIB, predictedStartup, STARTUP_BUDGET_FACTOR } from '../../../lib/generative/memory';
import type { PredictedStartup } from '../../../lib/generative/memory';
import { HOST_MEMORY_PER_WEIGHT } from '../../../lib/generative/planner';
import { deviceCountProblem } from '../../../lib/planner/layout';
import { ROOT_VOLUME_MAX_GIB, ROOT_VOLUME_MIN_GIB } from './ecs-capacity';
import { ecsFleet, ecsHost, MAX_RESERVATION_SHARE } from './ecs-layout';

/*
 * What NeuronGenerativeEcsService derives from a generative plan, and every check of the plan against ECS, as pure
 * functions: the construct reads the result and never re-derives sizing.
 */

/** Where the download container puts the weights and artifacts, and the engine reads them. */
export const MODEL_MOUNT = '/models';
export const WEIGHTS_DIRECTORY = `${MODEL_MOUNT}/weights`;
export const ARTIFACTS_DIRECTORY = `${MODEL_MOUNT}/compiled`;

/** Container image allowance on the root volume, GiB: a Neuron vLLM DLC unpacks to about 20 GiB; pulls need room for two. */
const IMAGE_ALLOWANCE_GIB = 50;

/** Fewest and most seconds of the health check grace period this service sets by default. */
export const GRACE_MIN_SECONDS = 600;
export const GRACE_MAX_SECONDS = 7200;

/** A streamed request's deadline: twice the plan's predicted p99 end-to-end latency plus 30 s, from 60 s to 3600 s. */
export const STREAM_TIMEOUT_FACTOR = 2;
export const STREAM_TIMEOUT_MARGIN_SECONDS = 30;
export const STREAM_TIMEOUT_MIN_SECONDS = 60;
/** The longest deregistration delay a target group accepts (the ALB idle timeout goes to 4000 s). */
export const STREAM_TIMEOUT_MAX_SECONDS = 3600;

/** Memory of the weights download container, MiB, taken from the task's share (the planner counts it too). */
export const DOWNLOAD_MEMORY_MIB = DOWNLOAD_HOST_MEMORY_GIB * 1024;

/** Host memory the engine needs besides the weights (Python, tokenizer, HTTP server), MiB (the planner counts it too). */
const ENGINE_OVERHEAD_MIB = ENGINE_HOST_MEMORY_GIB * 1024;

/** What the service deploys, read from a generative plan. */
export interface GenerativeEcsLayout {
  readonly instanceType: NeuronInstanceType;
  /** Instances at the target rate; each slot's task count and scaling minimum. */
  readonly instanceCount: number;
  /** Instances at the peak; each slot's scaling maximum. */
  readonly maxInstanceCount: number;
  /** One slot per replica of an instance: its `/dev/neuronN` devices and NeuronCores. */
  readonly slots: readonly ReplicaLayout[];
  /** CPU units each task reserves: the instance's vCPUs x 1024 over the replicas. */
  readonly cpuUnitsPerTask: number;
  /** Memory each task reserves, MiB: the instance's memory usable by tasks over the replicas. */
  readonly memoryMiBPerTask: number;
  /** Requests per second one replica takes at the target rate. */
  readonly plannedRpsPerReplica: number;
  /** Weights of one replica, GiB. */
  readonly weightsGiB: number;
  /** Compiled artifacts of one replica, GiB (ESTIMATE). */
  readonly artifactsGiB: number;
}

/**
 * The layout of `plan` on ECS, or undefined after recording every problem in `problems`.
 *
 * @param stackRegion the stack's region, or undefined when environment-agnostic
 */
export function generativeEcsLayout(plan: GenerativePlan, stackRegion: string | undefined, problems: string[]):
GenerativeEcsLayout | undefined {
  const before = problems.length;
  if (plan.hosting !== 'ec2' || plan.instanceType.startsWith('ml.')) {
    problems.push(`plan.hosting=${JSON.stringify(plan.hosting)} (instance ${plan.instanceType}): the plan was made for `
      + "SageMaker; re-plan with { hosting: 'ec2' } (cdk-inferentia plan --hosting ec2), or host it with the "
      + 'SageMaker generative endpoint');
  }
  if (plan.generative.architecture !== 'decoder-only') {
    problems.push(`plan.generative.architecture=${JSON.stringify(plan.generative.architecture)}: vLLM on Neuron serves `
      + 'decoder-only models; host an encoder-decoder model with the model server (NeuronEcsService, '
      + 'ModelImage.fromServer) and a handler that runs its generation loop');
  }
  const type = ecsHost(plan, stackRegion, 'Re-plan on Inferentia2 or Trainium', problems);
  if (type === undefined) {
    return undefined;
  }
  const slots = plan.generative.replicas;
  problems.push(...replicaProblems(plan, type));
  const replicas = Math.max(1, slots.length);
  const cpuUnitsPerTask = Math.floor((type.spec.vcpus * 1024) / replicas);
  const memoryMiBPerTask = Math.floor((type.spec.memoryGiB * 1024 * MAX_RESERVATION_SHARE) / replicas);
  const weightsGiB = plan.generative.memoryGiB.weights;
  const hostNeedMiB = Math.ceil(HOST_MEMORY_PER_WEIGHT * weightsGiB * 1024) + ENGINE_OVERHEAD_MIB + DOWNLOAD_MEMORY_MIB;
  if (hostNeedMiB > memoryMiBPerTask) {
    problems.push(`plan: each of the ${replicas} replicas needs ${hostNeedMiB} MiB of host memory (weights `
      + `${weightsGiB} GiB, engine ${ENGINE_OVERHEAD_MIB} MiB, download ${DOWNLOAD_MEMORY_MIB} MiB), more than its `
      + `${memoryMiBPerTask} MiB share of ${type.name} (${type.spec.memoryGiB} GiB, ${MAX_RESERVATION_SHARE * 100} % `
      + 'usable by tasks); re-plan on a larger instance or with fewer replicas per instance');
  }
  const fleet = ecsFleet(type, plan, problems, before);
  return fleet && {
    ...fleet,
    slots,
    cpuUnitsPerTask,
    memoryMiBPerTask,
    plannedRpsPerReplica: plan.targets.requestsPerSecond / (plan.instanceCount * replicas),
    weightsGiB,
    artifactsGiB: weightsGiB * ARTIFACTS_PER_WEIGHT_ESTIMATE,
  };
}

/**
 * Seconds a streamed request may take, for the load balancer's idle timeout and the deregistration delay:
 * `ceil(2 x predicted p99 end-to-end / 1000) + 30`, from 60 to 3600. A non-streamed request sends nothing until its
 * last token, so the idle timeout must cover the whole request; a draining task finishes the streams it serves.
 */
export function streamTimeoutSeconds(plan: Pick<GenerativePlan, 'generative'>): number {
  const seconds = Math.ceil((STREAM_TIMEOUT_FACTOR * plan.generative.predictedE2eP99Ms) / 1000) + STREAM_TIMEOUT_MARGIN_SECONDS;
  return Math.min(Math.max(seconds, STREAM_TIMEOUT_MIN_SECONDS), STREAM_TIMEOUT_MAX_SECONDS);
}

/** A replica's predicted start on ECS (lib/generative/memory.ts, `predictedStartup`): download, load, engine start. */
export function replicaStartup(layout: Pick<GenerativeEcsLayout, 'weightsGiB' | 'artifactsGiB'>, compiled: boolean): PredictedStartup {
  return predictedStartup(layout.weightsGiB, { compiled, artifactsGiB: layout.artifactsGiB });
}

/**
 * Health check grace period: twice the replica's predicted start (`replicaStartup`: weights and artifacts from S3,
 * the checkpoint onto the NeuronCores at the documented load rate, engine start, and a compile when no artifacts are
 * given), from 600 s to 7200 s, so a start twice as slow as predicted still passes and a stuck one is replaced.
 */
export function defaultGraceSeconds(layout: Pick<GenerativeEcsLayout, 'weightsGiB' | 'artifactsGiB'>, compiled: boolean): number {
  const seconds = Math.ceil(STARTUP_BUDGET_FACTOR * replicaStartup(layout, compiled).totalSeconds);
  return Math.min(Math.max(seconds, GRACE_MIN_SECONDS), GRACE_MAX_SECONDS);
}

/**
 * Default root volume, GiB: `(50 + replicas x (weights + artifacts)) x 1.25`, at least 100: every task downloads its
 * own copy into a task volume on the root disk.
 */
export function defaultGenerativeRootVolumeGiB(layout: Pick<GenerativeEcsLayout, 'slots' | 'weightsGiB' | 'artifactsGiB'>): number {
  const wanted = Math.ceil((IMAGE_ALLOWANCE_GIB + layout.slots.length * (layout.weightsGiB + layout.artifactsGiB)) * 1.25);
  return Math.min(Math.max(ROOT_VOLUME_MIN_GIB, wanted), ROOT_VOLUME_MAX_GIB);
}

/**
 * The replicas against the instance: at least one, each device on the instance, no NeuronCore in two replicas,
 * and no more devices in all than the instance has. Replicas may share a device (each pins its own cores).
 */
function replicaProblems(plan: GenerativePlan, type: NeuronInstanceType): string[] {
  const problems: string[] = [];
  const replicas = plan.generative.replicas;
  const chips = type.spec.chips;
  if (replicas.length === 0 || replicas.length !== plan.generative.replicasPerInstance) {
    problems.push(`plan.generative.replicas has ${replicas.length} replicas for replicasPerInstance=`
      + `${plan.generative.replicasPerInstance}; one layout per replica is needed: re-plan`);
  }
  const topology = deviceCountProblem(type.spec, plan.generative.tensorParallelDegree);
  if (topology !== undefined) {
    problems.push(`plan.generative.tensorParallelDegree=${plan.generative.tensorParallelDegree}: ${topology}; re-plan`);
  }
  const devices = new Set<string>();
  const owner = new Map<number, number>();
  for (const replica of replicas) {
    for (const device of replica.devices) {
      devices.add(device);
      const n = Number(/^\/dev\/neuron(\d+)$/.exec(device)?.[1] ?? NaN);
      if (!(n >= 0 && n < chips)) {
        problems.push(`plan.generative.replicas[${replica.index}] needs ${device} but ${type.name} has /dev/neuron0 to `
          + `/dev/neuron${chips - 1}: its replicas need more devices than the instance has; re-plan for ${type.name}`);
      }
    }
    for (const core of replica.cores) {
      const other = owner.get(core);
      if (other !== undefined) {
        problems.push(`plan.generative.replicas[${replica.index}] and [${other}] both use NeuronCore ${core}; re-plan`);
      }
      owner.set(core, replica.index);
    }
  }
  if (devices.size > chips) {
    problems.push(`plan: ${replicas.length} replicas span ${devices.size} Neuron devices but ${type.name} has ${chips}; `
      + `re-plan for ${type.name}`);
  }
  return problems;
}
