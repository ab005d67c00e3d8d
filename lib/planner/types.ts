/**
 * Shapes of the sizing planner's input and output.
 *
 * A `Plan` is plain JSON-serialisable data: the CLI prints it, constructs consume it, CI stores it next to the
 * artifact it promotes.
 */
import type { Hosting, InstanceSpec, Price, PricingKind } from '../catalog/types';
import type { Measurement } from '../profiles/types';
import type { ServingMode, ServingServer } from './serving';
import type { ArrivalProcess } from '../traffic/types';

export type { ServingMode, ServingServer } from './serving';

/** What the deployment must sustain, in requests as users send them. */
export interface PlanTargets {
  /** Steady requests per second to serve, queueing included. */
  readonly throughputRps: number;
  /**
   * Inputs (sentences, images) each request carries.
   *
   * @default 1
   */
  readonly inputsPerRequest?: number;
  /** Highest acceptable 99th percentile latency in milliseconds. */
  readonly p99Ms: number;
  /**
   * Peak requests per second autoscaling must be able to reach.
   *
   * @default - no peak: the maximum instance count equals the planned count
   */
  readonly peakThroughputRps?: number;
  /**
   * How requests arrive: the gaps' variability, measured on a log's timestamps (`plan --lengths-from`). Bursty
   * arrivals (scv above 1) wait longer for a process at the same rate, so an instance holds fewer requests per second
   * (the queue's wait scales by the arrivals' SCV, `waitQuantileSeconds`). More regular than Poisson is planned as
   * Poisson.
   *
   * @default - Poisson arrivals (scv 1): independent users
   */
  readonly arrivals?: ArrivalProcess;
}

/** Where and how to host, and the limits the choice must respect: the same for every workload. */
export interface DeploymentOptions {
  /** AWS region the prices are for, e.g. `us-east-1`. */
  readonly region: string;
  /** EC2 instances or a SageMaker endpoint. */
  readonly hosting: Hosting;
  /** Fewest instances, for availability. @default 1 */
  readonly minInstances?: number;
  /** Most instances the plan may use (a quota or budget). @default - no limit */
  readonly maxInstances?: number;
  /** Spare capacity above the target, as a fraction (0.2 = 20 %). @default 0.2 */
  readonly headroom?: number;
  /** Consider only these instance types (EC2 names). @default - every catalog instance */
  readonly instanceTypes?: readonly string[];
  /** Which price to optimise. @default 'on-demand' */
  readonly pricing?: PricingKind;
}

/** {@link DeploymentOptions} with the defaults applied and instance types as EC2 names. */
export type ResolvedDeploymentOptions = Required<Pick<DeploymentOptions, 'region' | 'hosting' | 'minInstances' | 'headroom' | 'pricing'>> &
  Pick<DeploymentOptions, 'maxInstances' | 'instanceTypes'>;

/** Where and how to host a single-call model, and the limits the choice must respect. */
export interface PlanOptions extends DeploymentOptions {
  /**
   * Pin the model processes per instance (Cortex `processes_per_replica`); they must fit the instance's NeuronCores.
   *
   * @default - as many processes as the cores, host memory and vCPUs allow
   */
  readonly processesPerInstance?: number;
  /**
   * Serving modes to consider: `stock` (one device call per request: the SageMaker PyTorch toolkit, any server of
   * your own), `batching` (a server that combines requests into device batches: the cdk-inferentia model server in
   * `serving/`), or `any` for the cheaper of the two. See `SERVING_SUPPORT` for which hosting runs which.
   *
   * @default 'stock' - what every hosting runs today
   */
  readonly serving?: ServingMode | 'any';
  /**
   * The server that runs the plan, which decides what a `stock` plan's process is busy for:
   * - `model-server`: the cdk-inferentia model server (`serving/`; `ModelImage.fromServer` on SageMaker, always on
   *   ECS), whose workers overlap the handler's host work (`input_fn`, `output_fn`) with the device call in either
   *   serving mode, so a process completes a call every max(device stage, host stage);
   * - `neuron-dlc`: a Neuron DLC's stock SageMaker toolkit (TorchServe), which runs `stock` only and the host work
   *   and the call one after the other, so a process is busy for their sum. `serving: 'batching'` is refused with it;
   *   `serving: 'any'` considers `stock` only.
   *
   * A plan made for the model server holds more requests per instance when host work is a large part of a call; a
   * Neuron DLC image refuses it at synth (it would buy less capacity than it counts on).
   *
   * @default 'model-server' - the server every hosting can run
   */
  readonly server?: ServingServer;
}

/** Which hostings run each serving mode today, for messages and `--help`. */
export const SERVING_SUPPORT: Readonly<Record<ServingMode, string>> = {
  stock: 'any server that makes one device call per request: NeuronSageMakerEndpoint with the model server or, for a plan made with ' +
    "server 'neuron-dlc', a Neuron DLC; NeuronEcsService; or your own container",
  batching:
    'the cdk-inferentia model server (serving/), which closes a batch when full or maxDelayMs after its first request: ' +
    'NeuronSageMakerEndpoint with ModelImage.fromServer, or NeuronEcsService',
};

/** How a batching plan combines requests, as the model server reads it. */
export interface BatchingSettings {
  /** Most inputs one device call carries: the compiled batch size. */
  readonly maxBatchSize: number;
  /** Longest a batch waits for more requests after its first one arrived, in milliseconds. */
  readonly maxDelayMs: number;
}

/**
 * One group of NeuronCores on an instance and the devices it owns: a model process of a single-call plan, a replica
 * of a generative one.
 */
export interface CoreGroupLayout {
  /** 0-based index on the instance. */
  readonly index: number;
  /** Core indexes the group owns. */
  readonly cores: readonly number[];
  /** Value of `NEURON_RT_VISIBLE_CORES` for the group: `"0"`, `"2-3"`. */
  readonly visibleCores: string;
  /** Device files the group needs (`/dev/neuron0`); every chip its cores touch. */
  readonly devices: readonly string[];
}

/** One model process on an instance and the NeuronCores and devices it owns. */
export type ProcessLayout = CoreGroupLayout;

/** Cost and size of the same load with one model process per instance: what packing NeuronCores saves. */
export interface NaiveComparison {
  readonly instanceCount: number;
  readonly hourlyCostUsd: number;
  readonly monthlyCostUsd: number;
  /** `1 - plan hourly / naive hourly`, as a percentage. */
  readonly savingsPercent: number;
}

/**
 * Version of the plan document format the planners write (`planVersion` of every plan) and the readers
 * (`readPlan`, lib/plan-document) read.
 *
 * It changes when a plan's meaning changes in a way an older reader would misread (a field renamed, removed or
 * reinterpreted); fields added as optional leave it alone, and readers let keys they do not know pass. A reader
 * refuses a plan of a newer version than its own, naming both and the fix.
 */
export const PLAN_VERSION = 1;

/** What every plan says of its deployment, whatever the workload: where, on what, how many, at what price. */
export interface DeploymentPlan {
  /**
   * Version of the plan document format that wrote this plan ({@link PLAN_VERSION}).
   *
   * @default 1 - a plan written before plans carried their version is read as version 1
   */
  readonly planVersion?: number;
  /** Profile the plan was made for. */
  readonly profileId: string;
  readonly region: string;
  readonly hosting: Hosting;
  readonly headroom: number;
  /** Instance type as the hosting names it: `ml.inf2.xlarge` for SageMaker, `inf2.xlarge` for EC2. */
  readonly instanceType: string;
  /** Hardware of the instance type (EC2 name in `instance.name`). */
  readonly instance: InstanceSpec;
  /** Instances to run at the target throughput (also the autoscaling minimum). */
  readonly instanceCount: number;
  /** Instances autoscaling may reach for the peak target. */
  readonly maxInstanceCount: number;
  /**
   * Requests per second one instance holds within the targets: queueing included, headroom not (headroom is in the
   * instance count).
   */
  readonly capacityPerInstanceRps: number;
  /** Requests per second all planned instances hold: `instanceCount x capacityPerInstanceRps`. */
  readonly capacityRps: number;
  readonly price: Price;
  readonly hourlyCostUsd: number;
  /** Hourly cost x 730 hours. */
  readonly monthlyCostUsd: number;
  /** Things a reviewer should know (UNVERIFIED price, idle cores, Inf1 end of support, suspicious measurement). */
  readonly warnings: readonly string[];
}

/** A sized, priced deployment of one model on one instance type. */
export interface Plan extends DeploymentPlan {
  readonly targets: PlanTargets;
  readonly processesPerInstance: number;
  /**
   * Front-end processes of the model server on each instance (`MODEL_SERVER_FRONT_ENDS`), each owning
   * `processesPerInstance / frontEndsPerInstance` of the processes and a queue of its own, and one vCPU: as many as
   * carry the most within the target, the fewest of those (a split queue pools less).
   */
  readonly frontEndsPerInstance: number;
  readonly coresPerProcess: number;
  /** NeuronCores per instance no process uses. */
  readonly idleCoresPerInstance: number;
  readonly batchSize: number;
  /** Core and device layout, one entry per process on every instance. */
  readonly processes: readonly ProcessLayout[];
  /** `NEURON_RT_VISIBLE_CORES` of each process, in process order (the same as in `processes`). */
  readonly visibleCores: readonly string[];
  /** Inputs each request carries (from the targets). */
  readonly inputsPerRequest: number;
  /** How requests become device calls. */
  readonly serving: ServingMode;
  /**
   * The server the plan was sized for (see `PlanOptions.server`): `model-server` overlaps host work with device
   * calls, `neuron-dlc` (a Neuron DLC's stock toolkit, `stock` only) does not. A plan without it (one written before
   * plans carried it, or by hand) is read as `model-server`.
   */
  readonly server?: ServingServer;
  /** How requests are combined into device batches; `null` for stock serving. */
  readonly batching: BatchingSettings | null;
  /** Median and p99 of one device call, as measured (no queueing). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Predicted p99 of a request at the target rate: batching wait + queueing wait + the call + host work. */
  readonly predictedP99Ms: number;
  /** Fraction of the model processes' time busy at the target rate (0..1). */
  readonly utilization: number;
  /** Host CPU milliseconds one request costs in its model process (the profile's, or the planner default). */
  readonly hostCpuMsPerRequest: number;
  /** `hourly / (target requests/s x 3600) x 1e6`. */
  readonly costPer1MRequestsUsd: number;
  /** Cost per million inputs: `costPer1MRequestsUsd / inputsPerRequest`, comparable with the Neuron tables. */
  readonly costPer1MInferencesUsd: number;
  readonly naive: NaiveComparison;
  /** The measured operating point the plan relies on. */
  readonly measurement: Measurement;
  /** Per-process requirements the plan checked. */
  readonly deviceMemoryGiB: number;
  readonly hostMemoryGiB: number;
  readonly vcpuPerProcess: number;
}

/** Why a candidate (an instance type, possibly with one measurement) lost. */
export interface Rejection {
  /** Hosting-qualified instance type. */
  readonly instanceType: string;
  /** `g=1 b=8` style summary of the measurement, when the rejection is about one. */
  readonly measurement?: string;
  /** Machine-readable reason. */
  readonly code:
    | 'no-price'
    | 'no-measurement'
    | 'cores'
    | 'layout'
    | 'inputs'
    | 'device-memory'
    | 'host-memory'
    | 'vcpu'
    | 'latency'
    | 'max-instances'
    | 'excluded';
  /** One sentence a person reads. */
  readonly reason: string;
  /** With `max-instances`: how many instances the candidate needs. */
  readonly instancesNeeded?: number;
}

/** The planner's full answer: the choice, the runners-up and everything that lost, with reasons. */
export interface PlanReport {
  readonly request: {
    readonly profileId: string;
    readonly targets: PlanTargets;
    readonly options: Required<Pick<PlanOptions, 'region' | 'hosting' | 'minInstances' | 'headroom' | 'pricing' | 'serving' | 'server'>> &
      Pick<PlanOptions, 'maxInstances' | 'processesPerInstance' | 'instanceTypes'>;
  };
  readonly chosen: Plan;
  /** The best feasible plan of every other instance type, measurement and serving mode, best first. */
  readonly alternatives: readonly Plan[];
  readonly rejected: readonly Rejection[];
}
