import { visibleCoresValue } from '../../../lib/planner';
import type { Plan } from '../../../lib/planner/types';
import { DEFAULT_METRICS_NAMESPACE } from '../../../lib/serving/environment';
import { poolEnvironment } from '../../../lib/serving/pool';
import { modelServerEnvironment as modelServerEnvironmentForPlan, type ModelServerPlan } from '../../../lib/serving/environment';
import type { EndpointLayout } from '../../private/endpoint-layout';

/**
 * The model server environment a layout implies, for the SageMaker PyTorch toolkit that Neuron DLCs run
 * (`SAGEMAKER_SERVING_MODULE=sagemaker_pytorch_serving_container.serving:main`, aws-neuron/deep-learning-containers
 * `pytorch/inference/2.9.0/Dockerfile.neuronx`).
 *
 * Sources: aws/sagemaker-inference-toolkit `parameters.py`/`environment.py`, aws/sagemaker-pytorch-inference-toolkit
 * `torchserve.py`/`ts_environment.py`; Neuron runtime configuration guide
 * (aws-neuron/aws-neuron-sdk `neuron-runtime/guides/configuration-guide.rst`). See SOURCES.md.
 */
export function modelServerEnvironment(layout: EndpointLayout): Record<string, string> {
  return {
    // One TorchServe worker per model process (`default_workers_per_model`). Each worker is its own Python process
    // with its own Neuron runtime, so the worker count is the planned process count, never more: a worker that
    // finds no free NeuronCore fails to load.
    SAGEMAKER_MODEL_SERVER_WORKERS: `${layout.processesPerInstance}`,
    // Every worker's runtime reserves this many free NeuronCores, and a reserved core is never shared, so the
    // workers end up owning disjoint core groups. NEURON_RT_VISIBLE_CORES would pin exact cores, but all workers
    // share one environment and would all ask for the same ones.
    NEURON_RT_NUM_CORES: `${layout.coresPerProcess}`,
    // PyTorch sizes its CPU thread pool to every vCPU in each worker; with several workers per instance the
    // pre/post-processing threads would oversubscribe the host. Split the vCPUs between the workers instead.
    OMP_NUM_THREADS: `${Math.max(1, Math.floor(layout.instanceType.spec.vcpus / layout.processesPerInstance))}`,
    // No SAGEMAKER_TS_* variables, deliberately:
    // - Setting any of them makes the toolkit write a `models=` block whose minWorkers/maxWorkers default to 1,
    //   silently dropping every worker but one (ts_environment.py, torchserve.py).
    // - SAGEMAKER_TS_BATCH_SIZE > 1 would not batch on the device: the toolkit's Transformer.transform runs the
    //   requests TorchServe aggregates one at a time through transform_fn, so it would only add up to
    //   SAGEMAKER_TS_MAX_BATCH_DELAY of latency. A model compiled for batch N reaches the plan's throughput when
    //   each request carries up to N inputs that the handler pads to N (see examples/bert-base-uncased).
  };
}

/** What the server environment needs besides the layout: the plan's batching and core groups, and metrics naming. */
export interface ServerEnvironmentInput {
  /** `batching` of the plan: `null` (or no plan) serves one request per call unless others already wait. */
  readonly batching: { readonly maxBatchSize: number; readonly maxDelayMs: number } | null;
  /** The plan's `server`: `neuron-dlc` runs the workers without overlap, as such a plan was sized. @default 'model-server' */
  readonly server?: ModelServerPlan['server'];
  /** The plan's `visibleCores`, one per process; derived from the layout without a plan. */
  readonly visibleCores?: readonly string[];
  /** The plan's device-call p99 in ms, for the worker watchdog's bound; the bound's floor without a plan. */
  readonly p99Ms?: number;
  /** The plan's front ends per instance; from the instance's vCPUs without a plan. */
  readonly frontEndsPerInstance?: number;
  /** Value of the metrics' `Service` dimension: the endpoint name. */
  readonly metricsService: string;
  /** CloudWatch namespace of the server's metrics. */
  readonly metricsNamespace: string;
}

/** What {@link endpointEnvironment} adds to the plan-derived variables. */
export interface EndpointEnvironmentOptions {
  /** The image runs the cdk-inferentia model server (else a Neuron DLC's stock toolkit). */
  readonly modelServer: boolean;
  /** The metrics' `Service` dimension: the endpoint name. */
  readonly metricsService: string;
  /** The instance pool the model is for, on an endpoint with pools (1: the chosen type). @default - no pools */
  readonly priority?: number;
  /** The user's `environment`, merged over the plan-derived variables. @default - none */
  readonly user?: Readonly<Record<string, string>>;
}

/**
 * The container environment of one model of a single-call endpoint: the model server's (or the stock toolkit's) from
 * the plan and layout, the pool's priority on an endpoint with pools (the proof reads it back), then the user's. The
 * user's `MODEL_BATCH_SIZE` is the chosen plan's: a fallback pool's model gets its own plan's batch instead.
 */
export function endpointEnvironment(layout: EndpointLayout, plan: Plan | undefined, options: EndpointEnvironmentOptions): Record<string, string> {
  const { priority, user } = options;
  return {
    ...(options.modelServer
      ? serverEnvironment(layout, {
        batching: plan?.batching ?? null,
        server: plan?.server,
        visibleCores: plan?.visibleCores,
        p99Ms: plan?.p99Ms,
        frontEndsPerInstance: plan?.frontEndsPerInstance,
        metricsService: options.metricsService,
        metricsNamespace: DEFAULT_METRICS_NAMESPACE,
      })
      : modelServerEnvironment(layout)),
    ...(priority !== undefined ? poolEnvironment(priority) : {}),
    ...user,
    ...(priority !== undefined && priority > 1 && user?.MODEL_BATCH_SIZE !== undefined ? { MODEL_BATCH_SIZE: `${layout.batchSize}` } : {}),
  };
}

/**
 * The environment of the cdk-inferentia model server (`serving/`) for a layout, rendered by the shared contract
 * `lib/serving/environment.ts`: one worker per process pinned to its NeuronCores by `NEURON_RT_VISIBLE_CORES`
 * (exact, not first-come as `NEURON_RT_NUM_CORES` would be), the batch from a batching plan or the compiled batch
 * of a stock one, and the metrics named after the endpoint.
 */
export function serverEnvironment(layout: EndpointLayout, input: ServerEnvironmentInput): Record<string, string> {
  // Without a plan the groups are contiguous from core 0, as validateLayout allows only sizes that divide the cores.
  const visibleCores = input.visibleCores ?? Array.from({ length: layout.processesPerInstance },
    (_, i) => visibleCoresValue(i * layout.coresPerProcess, layout.coresPerProcess));
  return {
    ...modelServerEnvironmentForPlan(
      {
        batching: input.batching, server: input.server, batchSize: layout.batchSize, visibleCores, p99Ms: input.p99Ms,
        frontEndsPerInstance: input.frontEndsPerInstance, instance: { vcpus: layout.instanceType.spec.vcpus },
        // SageMaker caps a request body itself; the server's limit is that cap.
        hosting: 'sagemaker',
      },
      { metricsService: input.metricsService, metricsNamespace: input.metricsNamespace },
    ),
    // As for the stock toolkit: each worker's PyTorch would size its thread pool to every vCPU.
    OMP_NUM_THREADS: `${Math.max(1, Math.floor(layout.instanceType.spec.vcpus / layout.processesPerInstance))}`,
  };
}
