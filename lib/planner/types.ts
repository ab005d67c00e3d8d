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
  /**
   * Fallback pools to plan beside the chosen instance type, 0 to 4 (`MAX_FALLBACKS`): SageMaker instance pools of
   * the same production variant, provisioned in priority order when the types before them hit an insufficient-
   * capacity error. Each is the cheapest plan of another instance type that meets the targets on its own
   * (`Plan.fallbacks`); with any, the plan also says what holding the targets on any mix of pools costs
   * (`Plan.mixedFleet`). SageMaker hosting only.
   *
   * @default 0 - one instance type
   * @see https://docs.aws.amazon.com/sagemaker/latest/dg/realtime-endpoints-heterogeneous.html
   */
  readonly fallbacks?: number;
}

/** {@link DeploymentOptions} with the defaults applied and instance types as EC2 names. */
export type ResolvedDeploymentOptions = Required<Pick<DeploymentOptions, 'region' | 'hosting' | 'minInstances' | 'headroom' | 'pricing'>> &
  Pick<DeploymentOptions, 'maxInstances' | 'instanceTypes' | 'fallbacks'>;

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

/**
 * What every fallback pool of a plan says of itself, whatever the workload: a SageMaker instance pool of the same
 * production variant, tried when every pool of a higher priority hits an insufficient-capacity error.
 */
export interface PoolSummary {
  /** Its SageMaker `Priority`: 2 for the first fallback, up to 5; the chosen plan is priority 1. */
  readonly priority: number;
  /** Instance type as the hosting names it (`ml.trn1.2xlarge`); never the chosen type nor another pool's. */
  readonly instanceType: string;
  /**
   * The accelerator chip (`inf1`, `inf2`, `trn1`, `trn2`): a compiled model loads only on the chip it was compiled
   * for, so a pool on another chip than the chosen plan's runs a model compiled for its own.
   */
  readonly chip: string;
  /** Instances the pool's own plan runs: what the targets need when every instance is of this type. */
  readonly instanceCount: number;
  /** Instances the pool's own plan reaches at the peak target. */
  readonly maxInstanceCount: number;
  /** Hourly cost of the pool's own plan (`instanceCount` instances of this type). */
  readonly hourlyCostUsd: number;
  /**
   * Priority of the first pool (1: the chosen plan) whose compiled model this pool loads as it is: the same chip and
   * the same compiled shape (cores per process and batch size; for a generative plan, the engine settings). Absent
   * when no earlier pool's fits, so the pool needs a compile of its own.
   *
   * @default - the pool needs its own compiled model
   */
  readonly sharesCompiledModelWith?: number;
}

/** How a single-call fallback pool lays its model out on each instance. */
export interface PoolLayout {
  readonly processesPerInstance: number;
  readonly coresPerProcess: number;
  /** The compiled batch size of every device call. */
  readonly batchSize: number;
  readonly serving: ServingMode;
  /** `NEURON_RT_VISIBLE_CORES` of each process, in process order. */
  readonly visibleCores: readonly string[];
}

/** What a fallback pool holds within the targets. */
export interface PoolCapacity {
  /** Requests per second one instance of the pool holds (`Plan.capacityPerInstanceRps` of its plan). */
  readonly perInstanceRps: number;
  /** Requests per second the pool's own `instanceCount` instances hold. */
  readonly rps: number;
}

/**
 * One fallback pool of a single-call plan: its summary, layout and capacity, and the complete plan of its
 * instance type that meets the targets on its own (what a hosting deploys on the pool's instances).
 */
export interface FallbackPool extends PoolSummary {
  readonly layout: PoolLayout;
  readonly capacity: PoolCapacity;
  /** The pool's complete plan, made for the same targets and options; it has no `fallbacks` or `mixedFleet` of its own. */
  readonly plan: Plan;
}

/** The worst case of a mixed fleet: every instance on the pool that costs the most. */
export interface WorstPool {
  readonly priority: number;
  readonly instanceType: string;
  /** Instances of that pool the fleet then runs. */
  readonly instanceCount: number;
  readonly hourlyCostUsd: number;
}

/**
 * What a fleet whose instances may come from any pool costs when the targets must hold whatever the mix: the one
 * per-instance target SageMaker scales a variant on is set by the pool that holds the least, so the fleet runs as
 * many instances as that pool needs.
 */
export interface MixedFleetBase {
  /** Instances the variant starts with and autoscaling keeps at least: enough for the targets on any mix of pools. */
  readonly instanceCount: number;
  /** Instances autoscaling may reach at the peak target on any mix of pools. */
  readonly maxInstanceCount: number;
  /** Priority of the pool that holds the least per instance (per copy, for a generative plan): it sets the target. */
  readonly boundByPriority: number;
  /** Hourly cost of `instanceCount` instances when all come from the chosen type (priority 1): the usual case. */
  readonly hourlyCostUsd: number;
  /**
   * `hourlyCostUsd` against the chosen plan's own hourly cost, in percent: what holding the targets on any mix costs
   * over a single-type plan when the chosen type is available (0 when the chosen type holds the least).
   */
  readonly extraCostPercent: number;
  /** What the fleet costs when it ends up all on the pool whose instances cost the most. */
  readonly worst: WorstPool;
}

/** {@link MixedFleetBase} of a single-call plan, whose variant scales on invocations per instance. */
export interface MixedFleet extends MixedFleetBase {
  /**
   * Requests per second per instance the autoscaling target is set from: the smallest `capacityPerInstanceRps`
   * among the pools, so every instance, of whichever pool, stays within its own capacity.
   */
  readonly capacityPerInstanceRps: number;
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
  /**
   * Fallback pools, priority 2 first: the cheapest plan of each other instance type that meets the targets, cheapest
   * first, as many as `fallbacks` asked and the catalog has (fewer says so in `warnings`).
   *
   * @default - absent: planned without `fallbacks`
   */
  readonly fallbacks?: readonly FallbackPool[];
  /**
   * The fleet a variant with these pools runs so the targets hold on any mix of them; a hosting deploys its counts
   * and scaling target instead of the chosen plan's.
   *
   * @default - absent: no fallback pools
   */
  readonly mixedFleet?: MixedFleet;
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
      Pick<PlanOptions, 'maxInstances' | 'processesPerInstance' | 'instanceTypes' | 'fallbacks'>;
  };
  readonly chosen: Plan;
  /** The best feasible plan of every other instance type, measurement and serving mode, best first. */
  readonly alternatives: readonly Plan[];
  readonly rejected: readonly Rejection[];
}
