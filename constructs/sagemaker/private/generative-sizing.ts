/**
 * How a generative plan maps onto one SageMaker inference component: devices, host memory and CPU per copy, copy
 * counts, the scaling target, the container timeouts and the cold start it predicts. Pure: no CDK, no AWS.
 *
 * API facts (SageMaker API Reference):
 * - `InferenceComponentComputeResourceRequirements`
 *   (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_InferenceComponentComputeResourceRequirements.html):
 *   `NumberOfAcceleratorDevicesRequired` is "the number of accelerators ... Accelerators include GPUs and AWS
 *   Inferentia", minimum 1; `MinMemoryRequiredInMb` minimum 128; `NumberOfCpuCoresRequired` minimum 0.25.
 *   Whether SageMaker counts an Inferentia or Trainium accelerator as a Neuron device (chip) or as a NeuronCore is
 *   not stated there nor in the inference component guide. This counts devices: the unit the API names
 *   ("accelerators"), the unit EC2's `NeuronInfo.NeuronDevices` and Neuron's device plugins count
 *   (`aws.amazon.com/neuron`), and the only one that keeps a copy's tensor-parallel group on whole devices.
 *   UNVERIFIED against a deployment: if SageMaker counts cores, `devicesPerCopy` must become the replica's cores.
 * - `InferenceComponentStartupParameters`
 *   (https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_InferenceComponentStartupParameters.html): both
 *   timeouts 60-3600 s.
 */
import type { GenerativePlan } from '../../../lib/generative/types';
import { ARTIFACTS_PER_WEIGHT_ESTIMATE, predictedStartup, STARTUP_BUDGET_FACTOR } from '../../../lib/generative/memory';
import type { PredictedStartup } from '../../../lib/generative/memory';
import { deviceCountProblem } from '../../../lib/planner/layout';

/** Range SageMaker accepts for both startup timeouts, seconds. */
export const STARTUP_TIMEOUT_MIN_SECONDS = 60;
export const STARTUP_TIMEOUT_MAX_SECONDS = 3600;

/** Neither timeout goes below this: the runtime, the engine and its first graph load take minutes even when small. */
const STARTUP_TIMEOUT_FLOOR_SECONDS = 600;

/**
 * Host memory kept for the platform, not given to copies: the OS and page cache, Docker, and SageMaker's agents on
 * the instance (routing, health checks, log and metric shipping). 10 % of the instance, at least 2 GiB: AWS
 * publishes no figure for inference components, and an instance whose copies claim every byte leaves the page cache
 * that holds the weights during a copy's start no room. ESTIMATE.
 */
export const PLATFORM_MEMORY_FRACTION = 0.1;
export const PLATFORM_MEMORY_MIN_MB = 2048;

/**
 * vCPUs kept for the platform: 5 % of the instance, at least 1, for the same agents plus the kernel's interrupt
 * handling of the instance's network traffic. ESTIMATE.
 */
export const PLATFORM_CPU_FRACTION = 0.05;

/**
 * Assumptions of the cold-start estimate besides a copy's own start (`predictedStartup`); each an ESTIMATE, not a
 * measurement.
 */
export const COLD_START_ASSUMPTIONS = {
  /** The scale-from-zero alarm's period: one minute of NoCapacityInvocationFailures before it fires. */
  alarmSeconds: 60,
  /** Launching a Neuron instance and pulling the vLLM DLC (about 10 GiB): 5 minutes. */
  instanceLaunchSeconds: 300,
} as const;

/** The predicted time from the first request at zero copies to a copy that answers; an ESTIMATE. */
export interface ColdStartEstimate {
  readonly alarmSeconds: number;
  readonly instanceLaunchSeconds: number;
  /** The weights, and the compiled artifacts beside them when given, from S3. */
  readonly weightsDownloadSeconds: number;
  readonly loadSeconds: number;
  readonly totalSeconds: number;
  /** True when no compiled artifacts are given: the engine compiles at start, which the total leaves out. */
  readonly compilesAtStart: boolean;
}

/** One inference component's sizing. */
export interface ComponentSizing {
  /** Neuron devices one copy asks for: the devices its tensor-parallel group spans. */
  readonly devicesPerCopy: number;
  /** Copies one instance holds: the plan's replicas per instance. */
  readonly copiesPerInstance: number;
  readonly memoryPerCopyMb: number;
  readonly cpuCoresPerCopy: number;
  readonly platformMemoryMb: number;
  readonly platformCpus: number;
  /** Copies at deploy time: copies per instance x the plan's instance count. */
  readonly initialCopies: number;
  /** Fewest copies auto scaling keeps: the initial copies, or 0 with scale to zero. */
  readonly minCopies: number;
  /** Most copies: copies per instance x the plan's peak instance count. */
  readonly maxCopies: number;
  readonly minInstances: number;
  readonly maxInstances: number;
  /** Requests per second one copy receives at the planned rate. */
  readonly requestsPerSecondPerCopy: number;
  /** Target of `ConcurrentRequestsPerCopy`: Little's law at the planned rate, see `concurrencyTarget` (constructs/sagemaker/private/generative-sizing.ts). */
  readonly targetConcurrentRequestsPerCopy: number;
  readonly downloadTimeoutSeconds: number;
  readonly startupTimeoutSeconds: number;
  /** Set when a timeout wanted more than the API's 3600 s. */
  readonly timeoutCapped: boolean;
  /** A copy's predicted start, which both timeouts are derived from. */
  readonly predictedStartup: PredictedStartup;
  readonly coldStart: ColdStartEstimate;
}

/** What the construct adds to the plan. */
export interface SizingOptions {
  readonly scaleToZero: boolean;
  /** Whether compiled artifacts come with the weights (`NEURON_COMPILED_ARTIFACTS`). */
  readonly compiledArtifacts: boolean;
}

/**
 * The sizing of the plan's inference component, or undefined with the reasons in `problems`, each naming the field,
 * the value and the fix.
 */
export function sizeComponent(plan: GenerativePlan, options: SizingOptions, problems: string[]): ComponentSizing | undefined {
  const where = `plan (${plan.profileId} on ${plan.instanceType})`;
  const g = plan.generative;
  const replicas = g.replicas;
  if (replicas.length === 0) {
    problems.push(`${where}: generative.replicas is empty; plan again with planGenerative`);
    return undefined;
  }
  const instance = plan.instance;
  const devicesPerCopy = replicas[0].devices.length;
  const uneven = replicas.filter((r) => r.devices.length !== devicesPerCopy);
  if (uneven.length > 0) {
    problems.push(`${where}: replicas span different device counts (${replicas.map((r) => r.devices.length).join(', ')}); `
      + 'one inference component needs copies that are alike: plan again with planGenerative');
  }
  if (devicesPerCopy < 1) {
    problems.push(`${where}: replica 0 spans no Neuron device; plan again with planGenerative`);
  }
  if (devicesPerCopy > instance.chips) {
    problems.push(`${where}: one replica spans ${devicesPerCopy} Neuron devices but ${instance.name} has ${instance.chips}; `
      + 'plan with a larger instance or a smaller tensor-parallel degree');
  }
  const topology = deviceCountProblem(instance, g.tensorParallelDegree);
  if (topology !== undefined) {
    problems.push(`${where}: generative.tensorParallelDegree=${g.tensorParallelDegree}: ${topology}; plan again with planGenerative`);
  }
  const devicesUsed = new Set(replicas.flatMap((r) => r.devices)).size;
  if (devicesUsed < replicas.length * devicesPerCopy) {
    problems.push(`${where}: ${replicas.length} replicas of tensor-parallel degree ${g.tensorParallelDegree} share Neuron devices `
      + `(${devicesUsed} devices for ${replicas.length} x ${devicesPerCopy}), but SageMaker gives each inference component copy `
      + `whole accelerator devices; plan with a tensor-parallel degree of at least ${instance.coresPerChip} (the cores of one `
      + 'device), or host the plan on ECS, where replicas pin their own cores');
  }

  const copiesPerInstance = replicas.length;
  const hostMb = instance.memoryGiB * 1024;
  const platformMemoryMb = Math.max(PLATFORM_MEMORY_MIN_MB, Math.ceil(hostMb * PLATFORM_MEMORY_FRACTION));
  const memoryPerCopyMb = Math.floor((hostMb - platformMemoryMb) / copiesPerInstance);
  const platformCpus = Math.max(1, Math.ceil(instance.vcpus * PLATFORM_CPU_FRACTION));
  // NumberOfCpuCoresRequired is a float with a minimum of 0.25: round down to quarter cores.
  const cpuCoresPerCopy = Math.floor(((instance.vcpus - platformCpus) / copiesPerInstance) * 4) / 4;
  const weightsMb = g.memoryGiB.weights * 1024;
  if (memoryPerCopyMb < weightsMb) {
    problems.push(`${where}: each of ${copiesPerInstance} copies gets ${memoryPerCopyMb} MB of host memory after `
      + `${platformMemoryMb} MB for the platform, less than the ${Math.ceil(weightsMb)} MB of weights vLLM reads into host `
      + 'memory before sharding them; plan with fewer replicas per instance or a larger instance');
  }
  if (cpuCoresPerCopy < 0.25) {
    problems.push(`${where}: each of ${copiesPerInstance} copies gets ${cpuCoresPerCopy} vCPUs after ${platformCpus} for the `
      + 'platform; SageMaker needs at least 0.25: plan with fewer replicas per instance');
  }

  const initialCopies = copiesPerInstance * plan.instanceCount;
  const maxCopies = copiesPerInstance * Math.max(plan.maxInstanceCount, plan.instanceCount);
  const requestsPerSecondPerCopy = plan.targets.requestsPerSecond / initialCopies;
  // Twice the copy's predicted download, and twice its predicted load and engine start, each from 600 s to 3600 s.
  const predicted = copyStartup(g.memoryGiB.weights, options.compiledArtifacts);
  const download = timeout(STARTUP_BUDGET_FACTOR * predicted.downloadSeconds);
  // Without compiled artifacts vLLM compiles at start (NEURON_COMPILED_ARTIFACTS missing): give it the API's most.
  const startup = options.compiledArtifacts
    ? timeout(STARTUP_BUDGET_FACTOR * (predicted.loadSeconds + predicted.engineStartSeconds))
    : { seconds: STARTUP_TIMEOUT_MAX_SECONDS, capped: false };
  return {
    devicesPerCopy,
    copiesPerInstance,
    memoryPerCopyMb,
    cpuCoresPerCopy,
    platformMemoryMb,
    platformCpus,
    initialCopies,
    minCopies: options.scaleToZero ? 0 : initialCopies,
    maxCopies,
    minInstances: options.scaleToZero ? 0 : plan.instanceCount,
    maxInstances: Math.max(plan.maxInstanceCount, plan.instanceCount),
    requestsPerSecondPerCopy,
    targetConcurrentRequestsPerCopy: concurrencyTarget(plan, requestsPerSecondPerCopy),
    downloadTimeoutSeconds: download.seconds,
    startupTimeoutSeconds: startup.seconds,
    timeoutCapped: download.capped || startup.capped,
    predictedStartup: predicted,
    coldStart: coldStart(predicted),
  };
}

/**
 * Concurrent requests one copy holds at the planned rate, by Little's law: L = lambda x W, with lambda the copy's
 * requests per second and W its mean time in the container (what `ConcurrentRequestsPerCopy` counts: from arrival,
 * queued or running, to the last streamed token). The plan gives the mean sequences decoding at once
 * (`meanRunningSequences` = lambda x mean decode time) and the TTFT p99, not the TTFT mean, so
 * W = mean decode time + TTFT p99 and L = meanRunningSequences + lambda x TTFT p99: an upper bound on the mean by the
 * TTFT tail, so target tracking scales out near the planned load, never well below it. Rounded up to 0.01.
 */
export function concurrencyTarget(plan: GenerativePlan, requestsPerSecondPerCopy: number): number {
  const l = plan.generative.meanRunningSequences + requestsPerSecondPerCopy * (plan.generative.predictedTtftP99Ms / 1000);
  return Math.max(0.01, Math.ceil(l * 100) / 100);
}

/** A copy's predicted start: the weights and (with compiled artifacts) the artifacts beside them, as ECS predicts it. */
export function copyStartup(weightsGiB: number, compiledArtifacts: boolean): PredictedStartup {
  return predictedStartup(weightsGiB, { compiled: compiledArtifacts, artifactsGiB: weightsGiB * ARTIFACTS_PER_WEIGHT_ESTIMATE });
}

/** The cold start from zero copies: the alarm and the instance launch ({@link COLD_START_ASSUMPTIONS}), then a copy's start. */
export function coldStart(copy: PredictedStartup): ColdStartEstimate {
  const a = COLD_START_ASSUMPTIONS;
  const loadSeconds = copy.loadSeconds + copy.engineStartSeconds;
  return {
    alarmSeconds: a.alarmSeconds,
    instanceLaunchSeconds: a.instanceLaunchSeconds,
    weightsDownloadSeconds: copy.downloadSeconds,
    loadSeconds,
    totalSeconds: a.alarmSeconds + a.instanceLaunchSeconds + copy.downloadSeconds + loadSeconds,
    compilesAtStart: copy.compileSeconds > 0,
  };
}

function timeout(wanted: number): { seconds: number; capped: boolean } {
  const seconds = Math.ceil(Math.max(STARTUP_TIMEOUT_FLOOR_SECONDS, wanted));
  return { seconds: Math.min(seconds, STARTUP_TIMEOUT_MAX_SECONDS), capped: seconds > STARTUP_TIMEOUT_MAX_SECONDS };
}
