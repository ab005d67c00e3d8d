import { ec2Name } from '../../../lib/catalog/catalog';
import { NEURON_FAMILIES, NeuronInstanceType } from '../../../lib/catalog/instance-type';
import type { Plan } from '../../../lib/planner';
import { validateLayout } from '../../../lib/planner';
import { frontEndsOf } from '../../../lib/serving/environment';

/*
 * What NeuronEcsService derives from a plan, and every check of the plan against the ECS hosting, as pure
 * functions: the construct reads the result and never re-derives sizing.
 */

/**
 * Why Inf1 is refused on ECS, in one sentence a user reads.
 *
 * The only ECS-optimized AMI that loads the Inf1 driver is the Amazon Linux 2 Neuron AMI (`.../amazon-linux-2/inf/`),
 * and it reached end of life on 2026-06-30 with Amazon Linux 2 (Amazon ECS Developer Guide, "Amazon ECS-optimized Linux
 * AMIs"). The Amazon Linux 2023 Neuron AMI ships the current Neuron driver, and drivers after 2.24 do not support Inf1
 * (Neuron announcement "Correction: Neuron Driver support for Inf1 - version 2.24"); Neuron 2.27 ended Inf1 support.
 */
export const INF1_REFUSAL = 'the ECS-optimized Amazon Linux 2023 Neuron AMI ships a Neuron driver newer than 2.24, '
  + 'the last that supports Inf1, and the Amazon Linux 2 Neuron AMI that did reached end of life on 2026-06-30';

/** Families the ECS-optimized Amazon Linux 2023 Neuron AMI runs (Inferentia2 and Trainium). */
export const ECS_NEURON_AMI_FAMILIES: readonly string[] = ['inf2', 'trn1', 'trn1n', 'trn2', 'trn2u', 'trn3'];

/** Memory the front end (the asyncio HTTP process and its queue) needs besides the model workers, in MiB. */
const FRONT_END_MIB = 1024;

/**
 * Share of the instance's memory a task may reserve: the ECS agent registers the instance's memory minus what the
 * operating system uses, so a reservation of 100 % would never be placed.
 */
export const MAX_RESERVATION_SHARE = 0.9;

/** What the service deploys, read from the plan. */
export interface EcsLayout {
  readonly instanceType: NeuronInstanceType;
  /** Tasks (one per instance) at the target throughput: the desired count and the scaling minimum. */
  readonly instanceCount: number;
  /** Tasks at the peak target: the scaling maximum. */
  readonly maxInstanceCount: number;
  readonly processesPerInstance: number;
  readonly coresPerProcess: number;
  /** Every `/dev/neuronN` of the instance, in order. */
  readonly devices: readonly string[];
  /** `NEURON_RT_VISIBLE_CORES` of each worker, from the plan. */
  readonly visibleCores: readonly string[];
  /** Memory the task reserves on its instance, in MiB. */
  readonly memoryReservationMiB: number;
  /** CPU units (1,024 a vCPU) the task and its container reserve: every worker's vCPUs and one per front end. */
  readonly cpuUnits: number;
  /** Requests per second one instance takes at the target throughput: the target tracking value. */
  readonly plannedRpsPerInstance: number;
  /** Model size bound in GiB (device and host memory of one process), for disk and start-up time. */
  readonly modelGiB: number;
}

/** Every `/dev/neuronN` of an instance with `chips` Neuron devices. */
export function neuronDevices(chips: number): string[] {
  return Array.from({ length: chips }, (_, i) => `/dev/neuron${i}`);
}

/**
 * Memory the task reserves: each worker's host memory from the plan plus the front end, in MiB. Only a reservation
 * (a soft limit): ECS places the task where this much is free, and the server may use more if the host has it.
 */
export function memoryReservationMiB(plan: Pick<Plan, 'processesPerInstance' | 'hostMemoryGiB'>): number {
  return Math.ceil(plan.processesPerInstance * plan.hostMemoryGiB * 1024) + FRONT_END_MIB;
}

/**
 * CPU units the task reserves: each worker's vCPUs from the plan plus one vCPU for each of the server's front ends
 * (`MODEL_SERVER_FRONT_ENDS`, the plan's `frontEndsPerInstance`), the vCPUs the planner charged beside the workers.
 * ECS places the task only where these are free and the container is guaranteed them under contention.
 */
export function taskCpuUnits(plan: Pick<Plan, 'processesPerInstance' | 'vcpuPerProcess' | 'frontEndsPerInstance' | 'visibleCores' | 'instance'>): number {
  return (plan.processesPerInstance * (plan.vcpuPerProcess ?? 1) + frontEndsOf(plan)) * 1024;
}

/**
 * The layout of `plan` on ECS, or undefined after recording every problem in `problems`.
 *
 * @param stackRegion the stack's region, or undefined when environment-agnostic
 */
export function ecsLayoutFromPlan(plan: Plan, stackRegion: string | undefined, problems: string[]): EcsLayout | undefined {
  if (plan.hosting !== 'ec2') {
    problems.push(`plan.hosting=${JSON.stringify(plan.hosting)}: the plan was made for SageMaker (ml. instance names, `
      + "SageMaker prices); re-plan with { hosting: 'ec2' } (cdk-inferentia plan --hosting ec2)");
  }
  if (plan.instanceType.startsWith('ml.')) {
    problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)} is a SageMaker instance type; re-plan with `
      + "{ hosting: 'ec2' }");
  }
  const type = ecsHost(plan, stackRegion, 'Re-plan on Inferentia2 (cdk-inferentia plan --hosting ec2 --instance-types '
    + 'inf2.xlarge,inf2.8xlarge,inf2.24xlarge,inf2.48xlarge), or host the Inf1 plan on SageMaker (NeuronSageMakerEndpoint)',
  problems);
  if (type === undefined) {
    return undefined;
  }
  const before = problems.length;
  problems.push(...validateLayout(type.spec, plan.coresPerProcess, plan.processesPerInstance).map((p) => `plan: ${p}`));
  problems.push(...coreProblems(plan, type));
  const memory = memoryReservationMiB(plan);
  const available = Math.floor(type.spec.memoryGiB * 1024 * MAX_RESERVATION_SHARE);
  if (memory > available) {
    problems.push(`plan: ${plan.processesPerInstance} workers x ${plan.hostMemoryGiB} GiB host memory plus `
      + `${FRONT_END_MIB} MiB for the front end need ${memory} MiB, more than the ${available} MiB a task can reserve on `
      + `${type.name} (${type.spec.memoryGiB} GiB, ${MAX_RESERVATION_SHARE * 100} % usable by tasks); re-plan with `
      + 'fewer processes per instance (--processes) or a larger instance');
  }
  const cpuUnits = taskCpuUnits(plan);
  if (cpuUnits > type.spec.vcpus * 1024) {
    problems.push(`plan: ${plan.processesPerInstance} workers x ${plan.vcpuPerProcess ?? 1} vCPU plus ${frontEndsOf(plan)} front end(s) `
      + `x 1 vCPU need ${cpuUnits / 1024} vCPUs, more than ${type.name} has (${type.spec.vcpus}); re-plan (the planner `
      + 'leaves a vCPU for each front end) or lower frontEndsPerInstance');
  }
  const fleet = ecsFleet(type, plan, problems, before);
  return fleet && {
    ...fleet,
    processesPerInstance: plan.processesPerInstance,
    coresPerProcess: plan.coresPerProcess,
    devices: neuronDevices(type.spec.chips),
    visibleCores: plan.visibleCores,
    memoryReservationMiB: memory,
    cpuUnits,
    plannedRpsPerInstance: plan.targets.throughputRps / plan.instanceCount,
    modelGiB: Math.max(plan.deviceMemoryGiB, plan.hostMemoryGiB),
  };
}

/**
 * The fleet fields of every ECS layout, or undefined when the layout's checks recorded a problem after `before`
 * (the length of `problems` when they started).
 */
export function ecsFleet(type: NeuronInstanceType, plan: Pick<Plan, 'instanceCount' | 'maxInstanceCount'>, problems: readonly string[],
  before: number): Pick<EcsLayout, 'instanceType' | 'instanceCount' | 'maxInstanceCount'> | undefined {
  if (problems.length > before) {
    return undefined;
  }
  return { instanceType: type, instanceCount: plan.instanceCount, maxInstanceCount: plan.maxInstanceCount };
}

/**
 * The fleet every ECS hosting checks before its own layout: the stack's region, an instance type the ECS-optimized
 * Neuron AMI runs, and whole instance counts. Returns the instance type, or undefined after recording its problem.
 *
 * @param inf1Fix what the Inf1 refusal tells the user to do instead (the hosting that takes the plan differs)
 */
export function ecsHost(
  plan: Pick<Plan, 'region' | 'instanceType' | 'instance' | 'instanceCount' | 'maxInstanceCount'>,
  stackRegion: string | undefined,
  inf1Fix: string,
  problems: string[],
): NeuronInstanceType | undefined {
  if (stackRegion !== undefined && plan.region !== stackRegion) {
    problems.push(`plan.region=${JSON.stringify(plan.region)} but the stack deploys to ${stackRegion}; prices and `
      + `availability differ by region: re-plan with { region: '${stackRegion}' }`);
  }
  let type: NeuronInstanceType | undefined;
  const family = ec2Name(plan.instanceType).split('.')[0];
  if (!NEURON_FAMILIES.includes(family)) {
    problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)} is not a Neuron instance type (families `
      + `${NEURON_FAMILIES.join(', ')}); re-plan: the planner only picks Neuron instances`);
  } else if (family === 'inf1') {
    problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)}: Inf1 cannot run on ECS here: ${INF1_REFUSAL}. `
      + inf1Fix);
  } else if (!ECS_NEURON_AMI_FAMILIES.includes(family)) {
    problems.push(`plan.instanceType=${JSON.stringify(plan.instanceType)}: the ECS-optimized Neuron AMI does not list `
      + `the ${family} family (it runs ${ECS_NEURON_AMI_FAMILIES.join(', ')}); re-plan on one of those`);
  } else {
    try {
      type = NeuronInstanceType.of(ec2Name(plan.instanceType), plan.instance);
    } catch (e) {
      problems.push(`plan.instanceType: ${(e as Error).message}`);
    }
  }
  if (!Number.isInteger(plan.instanceCount) || plan.instanceCount < 1) {
    problems.push(`plan.instanceCount=${plan.instanceCount} must be a whole number of at least 1; re-plan`);
  }
  if (!Number.isInteger(plan.maxInstanceCount) || plan.maxInstanceCount < plan.instanceCount) {
    problems.push(`plan.maxInstanceCount=${plan.maxInstanceCount} must be a whole number of at least `
      + `plan.instanceCount=${plan.instanceCount}; re-plan`);
  }
  return type;
}

/**
 * The plan's worker layout against the instance: one core group per process, each core on the instance, and each
 * device a group touches present. Devices are all mapped, so global core numbers hold inside the container.
 */
function coreProblems(plan: Plan, type: NeuronInstanceType): string[] {
  const problems: string[] = [];
  if (plan.visibleCores.length !== plan.processesPerInstance) {
    problems.push(`plan.visibleCores has ${plan.visibleCores.length} groups for plan.processesPerInstance=`
      + `${plan.processesPerInstance}; one group per process is needed: re-plan`);
  }
  const chips = type.spec.chips;
  for (const process of plan.processes) {
    const outside = process.cores.filter((c) => !Number.isInteger(c) || c < 0 || c >= type.neuronCores);
    if (outside.length > 0) {
      problems.push(`plan.processes[${process.index}] uses NeuronCore(s) ${outside.join(', ')} but ${type.name} has `
        + `cores 0-${type.neuronCores - 1}; re-plan for ${type.name}`);
    }
    const missing = process.devices.filter((d) => {
      const n = Number(/^\/dev\/neuron(\d+)$/.exec(d)?.[1] ?? NaN);
      return !(n >= 0 && n < chips);
    });
    if (missing.length > 0) {
      problems.push(`plan.processes[${process.index}] needs ${missing.join(', ')} but ${type.name} has `
        + `${neuronDevices(chips).join(', ')}; re-plan for ${type.name}`);
    }
  }
  return problems;
}
