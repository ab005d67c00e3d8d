import { instanceStorage } from '../../lib/catalog/instance-storage';
import { NeuronInstanceType } from '../../lib/catalog/instance-type';
import type { Plan } from '../../lib/planner';

/**
 * What the endpoint deploys, whether it came from a `Plan` or from explicit props: the one shape the rest of the
 * construct reads, so nothing re-derives sizing.
 */
export interface EndpointLayout {
  readonly instanceType: NeuronInstanceType;
  /** Planned instances: the initial count and the autoscaling minimum. */
  readonly instanceCount: number;
  /** Most instances autoscaling may reach, when a plan says. */
  readonly maxInstanceCount?: number;
  readonly processesPerInstance: number;
  readonly coresPerProcess: number;
  /** Batch size the model was measured (and compiled) at. */
  readonly batchSize: number;
  /** The plan's p99 latency target in milliseconds, when a plan says. */
  readonly p99TargetMs?: number;
  /** The plan's expected p99 at its operating point in milliseconds, when a plan says. */
  readonly expectedP99Ms?: number;
  /** Requests per second one instance holds within the p99 target, queueing included, when a plan says. */
  readonly capacityPerInstanceRps?: number;
  /** Accelerator memory one model process needs, in GiB, when a plan says. */
  readonly deviceMemoryGiB?: number;
  /** Host memory one model process needs, in GiB, when a plan says. */
  readonly hostMemoryGiB?: number;
}

/**
 * True when the instance's ML storage is local NVMe only (trn1, trn1n, trn2, trn3: `instanceStorage`, lib/catalog):
 * SageMaker rejects `KmsKeyId` and `VolumeSizeInGB` there (SageMaker API Reference, `CreateEndpointConfig.KmsKeyId`
 * and `ProductionVariant.VolumeSizeInGB`); the instance's hardware encrypts the storage instead.
 */
export function hasLocalStorageOnly(type: NeuronInstanceType): boolean {
  return instanceStorage(type.spec.family).storage === 'local-nvme';
}

/**
 * The layout a plan describes. `instanceType` must already be known to be a Neuron `ml.` type. With fallback pools
 * the counts and the capacity autoscaling tracks are the mixed fleet's (`plan.mixedFleet`): enough instances, each
 * held to the least any pool holds, for the targets to hold whichever pools the instances come from.
 */
export function layoutFromPlan(plan: Plan, instanceType: NeuronInstanceType): EndpointLayout {
  const fleet = plan.mixedFleet;
  return {
    instanceType,
    instanceCount: fleet?.instanceCount ?? plan.instanceCount,
    maxInstanceCount: fleet?.maxInstanceCount ?? plan.maxInstanceCount,
    processesPerInstance: plan.processesPerInstance,
    coresPerProcess: plan.coresPerProcess,
    batchSize: plan.batchSize,
    p99TargetMs: plan.targets.p99Ms,
    expectedP99Ms: plan.p99Ms,
    capacityPerInstanceRps: fleet?.capacityPerInstanceRps ?? plan.capacityPerInstanceRps,
    deviceMemoryGiB: plan.deviceMemoryGiB,
    hostMemoryGiB: plan.hostMemoryGiB,
  };
}

/**
 * The note a model-server deployment adds for a plan made for a Neuron DLC's stock toolkit (`server: 'neuron-dlc'`):
 * the server runs it as planned, without overlap, and a plan made for the model server may need fewer instances.
 */
export function neuronDlcPlanNote(instanceCount: number): string {
  return "The plan was made for a Neuron DLC's stock toolkit (server 'neuron-dlc'): the model server runs it as planned, "
    + 'host work and device calls one after the other (MODEL_SERVER_OVERLAP=0). Re-planned for the model server '
    + `(server 'model-server', the default; --server model-server), which overlaps them, it may need fewer than its `
    + `${instanceCount} instance(s).`;
}
