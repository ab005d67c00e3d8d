/**
 * The vLLM engine image: which AWS Neuron vLLM deep learning container (DLC) each chip can run, and how a hosting
 * hands one replica's `vllm serve` arguments to the product's wrapper image (`serving/vllm/`).
 *
 * Pins (https://github.com/aws-neuron/deep-learning-containers README, "vllm-inference-neuronx"; the Dockerfiles at
 * the release tags name the plugin branch):
 * - Inf2 and Trn1: `0.13.0-neuronx-py312-sdk2.28.0-ubuntu24.04`, vLLM 0.13.0 with the vLLM Neuron plugin 0.4.1
 *   (`GITHUB_REPO_BRANCH=release-0.4.1`) and NxD Inference 0.8.16251. Neuron 2.29 dropped NxD Inference kernels on
 *   Inf2/Trn1 ("NxD Inference models are now only supported on Trn2 and newer hardware. Customers who require NxD
 *   Inference kernel support on Trn1 or Inf2 instances should pin to release 2.28": Neuron release notes, NxD
 *   Inference 0.9.17334, https://awsdocs-neuron.readthedocs-hosted.com/en/latest/release-notes/components/nxd-inference.html).
 * - Trn2 and Trn3: `0.29.0.1.2.0-neuronx-py314-sdk2.33.0-ubuntu26.04`, vLLM 0.29.0 with the vLLM Neuron plugin
 *   1.2.0 (torch.compile, no NxD Inference), AWS's path "for new inference work" on Trn2/Trn3 (NxD Inference
 *   overview: maintenance status). Its settings are rendered by lib/generative/engine-config.ts. `0.24.0.1.1.0` (SDK
 *   2.32, plugin 1.1.0) is accepted too; `0.21.0.1.0.0` (plugin 1.0.0) predates the configuration reference the
 *   settings follow and is refused, as are NxD Inference images on Trn2/Trn3 (their settings differ) and plugin images
 *   on Inf2/Trn1 (the plugin is documented "relevant for: Trn2, Trn3" only).
 */
import { InputError } from '../errors';
import type { VllmReplicaConfig } from './engine-config';
import { NXDI_LAST_SDK_FOR_INF2_TRN1 } from './planner';
import type { ModelServerMetricName } from '../serving/metrics';
import { NXDI_VLLM_DOCS, PLUGIN_DOCS, pluginArguments, vllmEngineOf } from './engine-config';
import type { GenerativePlan } from './types';

/** Repository of the Neuron vLLM DLC, in the public gallery and in the regional DLC registries. */
export const VLLM_DLC_REPOSITORY = 'pytorch-inference-vllm-neuronx';

/** A Neuron vLLM DLC this product pins, with the versions inside it. */
export interface VllmDlcPin {
  /** Image tag. */
  readonly tag: string;
  readonly vllmVersion: string;
  /** vLLM Neuron plugin (vllm-project/vllm-neuron) branch the image installs. */
  readonly pluginVersion: string;
  readonly neuronSdkVersion: string;
  /** Instance families it serves. */
  readonly families: readonly string[];
}

/** The pinned images by chip: newest with NxD Inference that each chip runs. */
export const VLLM_DLC_PINS = {
  inf2Trn1: {
    tag: '0.13.0-neuronx-py312-sdk2.28.0-ubuntu24.04', vllmVersion: '0.13.0', pluginVersion: '0.4.1',
    neuronSdkVersion: '2.28.0', families: ['inf2', 'trn1', 'trn1n'],
  },
  trn2: {
    tag: '0.29.0.1.2.0-neuronx-py314-sdk2.33.0-ubuntu26.04', vllmVersion: '0.29.0', pluginVersion: '1.2.0',
    neuronSdkVersion: '2.33.0', families: ['trn2', 'trn2u', 'trn3'],
  },
} as const satisfies Record<string, VllmDlcPin>;

/** Oldest vLLM Neuron plugin whose settings match lib/generative/engine-config.ts (configuration reference of SDK 2.32). */
export const OLDEST_PLUGIN_WITH_CHECKED_SETTINGS = '1.1.0';

/** `{vLLM version}-neuronx-py{XY}-sdk{X.Y.Z}-ubuntu{XX.YY}` (deep-learning-containers README). */
const VLLM_TAG = /^(\d+(?:\.\d+){2,5})-neuronx-py\d+-sdk(\d+\.\d+\.\d+)-ubuntu\d+\.\d+$/;

/** The versions a Neuron vLLM DLC tag names. */
export interface VllmDlcTag {
  readonly vllmVersion: string;
  readonly neuronSdkVersion: string;
  /** Whether it is a vLLM Neuron plugin image (`0.29.0.1.2.0`: vLLM version plus plugin version). */
  readonly betaPlugin: boolean;
}

/** The versions in a Neuron vLLM DLC tag, or undefined when it is not one. */
export function parseVllmDlcTag(tag: string): VllmDlcTag | undefined {
  const match = VLLM_TAG.exec(tag);
  if (!match) return undefined;
  return { vllmVersion: match[1], neuronSdkVersion: match[2], betaPlugin: match[1].split('.').length > 3 };
}

/**
 * Why the tag cannot serve a plan on this instance family; empty when it can.
 *
 * @param caller how the user spelled the call, for the messages
 */
export function vllmDlcTagProblems(caller: string, tag: string, family: string): string[] {
  const parsed = parseVllmDlcTag(tag);
  const pin = pinFor(family);
  const suggestion = pin ? ` such as ${pin.tag}` : '';
  if (!parsed) {
    return [`${caller}: tag=${JSON.stringify(tag)} is not a Neuron vLLM DLC tag ({vLLM version}-neuronx-py{XY}-sdk{X.Y.Z}-ubuntu{XX.YY}); `
      + `use a ${VLLM_DLC_REPOSITORY} tag${suggestion}`];
  }
  if (!pin) {
    return [`${caller}: instance family ${family} has no vLLM on Neuron (NxD Inference serves Inf2, Trn1 and Trn2); `
      + 'host the model with ModelImage.fromServer, or plan for an Inf2, Trn1 or Trn2 instance'];
  }
  const pluginFamily = vllmEngineOf(family) === 'vllm-neuron-plugin';
  if (parsed.betaPlugin && !pluginFamily) {
    return [`${caller}: tag ${tag} carries the vLLM Neuron plugin, documented for Trn2 and Trn3 only (${PLUGIN_DOCS}); ${family} `
      + `runs vLLM over NxD Inference (${NXDI_VLLM_DOCS}): use${suggestion.replace(' such as', '')}`];
  }
  if (!parsed.betaPlugin && pluginFamily) {
    return [`${caller}: tag ${tag} is an NxD Inference vLLM image, whose engine settings differ from the vLLM Neuron plugin's `
      + `that ${family} plans render (${PLUGIN_DOCS}); use the plugin image${suggestion}`];
  }
  if (parsed.betaPlugin) {
    const plugin = pluginVersionOf(parsed.vllmVersion);
    return compareVersions(plugin, OLDEST_PLUGIN_WITH_CHECKED_SETTINGS) < 0
      ? [`${caller}: tag ${tag} has vLLM Neuron plugin ${plugin}, older than ${OLDEST_PLUGIN_WITH_CHECKED_SETTINGS} whose `
        + `configuration reference the rendered settings follow; use${suggestion.replace(' such as', '')}`]
      : [];
  }
  const [major, minor] = parsed.vllmVersion.split('.').map(Number);
  if (major === 0 && minor < 13) {
    return [`${caller}: tag ${tag} has vLLM ${parsed.vllmVersion}, older than the plugin releases whose settings were `
      + `checked (0.4.1 with vLLM 0.13, 0.5.0 with vLLM 0.16); use${suggestion.replace(' such as', '')}`];
  }
  if (VLLM_DLC_PINS.inf2Trn1.families.includes(family as never)
    && compareVersions(parsed.neuronSdkVersion, NXDI_LAST_SDK_FOR_INF2_TRN1) > 0) {
    return [`${caller}: tag ${tag} has Neuron SDK ${parsed.neuronSdkVersion}, but NxD Inference runs on ${family} only up `
      + `to SDK ${NXDI_LAST_SDK_FOR_INF2_TRN1} (Neuron 2.29 release notes, NxD Inference "Breaking Changes"); `
      + `use ${VLLM_DLC_PINS.inf2Trn1.tag}`];
  }
  return [];
}

/**
 * One line saying which engine and image a plan runs, with the settings rendered for it: what `plan` prints, so a
 * Trn2 candidate shows the plugin image and its buckets and KV blocks beside an Inf2 one's NxD Inference image.
 */
export function engineSummary(plan: Pick<GenerativePlan, 'instance' | 'generative'>): string {
  const engine = plan.generative.engine;
  const pin = pinFor(plan.instance.family);
  const image = pin ? `${VLLM_DLC_REPOSITORY}:${pin.tag}` : 'no pinned image';
  const core = `tensor_parallel_size ${engine.tensorParallelSize}, max_num_seqs ${engine.maxNumSeqs}, max_model_len ${engine.maxModelLen}`;
  if (vllmEngineOf(plan.instance.family) !== 'vllm-neuron-plugin') {
    return `vLLM over NxD Inference (${image}): ${core}`;
  }
  const plugin = pluginArguments(plan as GenerativePlan);
  const prefill = plugin.neuronConfig.num_batched_tokens_buckets;
  const decode = plugin.neuronConfig.num_seqs_buckets;
  return `vLLM Neuron plugin ${pin?.pluginVersion ?? ''} (${image}): ${core}, LNC ${engine.logicalNeuronCoreConfig}; prefix caching `
    + `with ${plugin.numGpuBlocks} KV blocks of ${plugin.blockSize} tokens, async scheduling; buckets: prefill ${prefill.join(' ')}, `
    + `decode ${decode.join(' ')}`;
}

/** `1.2.0` for a plugin image's `0.29.0.1.2.0`: the vLLM version's three parts, then the plugin's. */
function pluginVersionOf(version: string): string {
  return version.split('.').slice(3).join('.');
}

/** The pinned image for an instance family, if vLLM on Neuron serves it. */
export function pinFor(family: string): VllmDlcPin | undefined {
  return Object.values(VLLM_DLC_PINS).find((pin) => (pin.families as readonly string[]).includes(family));
}

/**
 * Compares dotted versions by their common precision: `2.28.0` equals `2.28`, `2.29.1` is newer.
 *
 * @returns negative, zero or positive as a is older, the same or newer
 */
export function compareVersions(a: string, b: string): number {
  const x = a.split('.').map(Number);
  const y = b.split('.').map(Number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] !== y[i]) return x[i] - y[i];
  }
  return 0;
}

/** Variables the wrapper image's entrypoint (`serving/vllm/entrypoint.sh`) and metrics exporter read. */
export const VLLM_IMAGE_ENV = {
  /** The arguments after `vllm serve`, as a JSON array of strings. */
  serveArgs: 'CDK_INFERENTIA_VLLM_ARGS',
  /** Port the engine listens on, where the exporter scrapes `/metrics`. */
  enginePort: 'CDK_INFERENTIA_VLLM_PORT',
  /** CloudWatch namespace of the engine's metrics (and of NeuronCore utilization). */
  metricsNamespace: 'ENGINE_METRICS_NAMESPACE',
  /** Value of the `Service` dimension. */
  metricsService: 'ENGINE_METRICS_SERVICE',
  /** Value of the `Replica` dimension. */
  metricsReplica: 'ENGINE_METRICS_REPLICA',
  /** Seconds between two scrapes. */
  metricsIntervalSeconds: 'ENGINE_METRICS_INTERVAL_S',
  /** `off` turns the exporter and neuron-monitor off. */
  metrics: 'ENGINE_METRICS',
} as const;

/**
 * Longest value of one environment variable SageMaker accepts (CreateModel `ContainerDefinition.Environment` and
 * CreateInferenceComponent `ContainerSpecification.Environment`: "Maximum length of 1024"). The arguments travel in
 * one variable, so they must fit.
 */
export const SAGEMAKER_ENVIRONMENT_VALUE_MAX = 1024;

/** Where one replica's engine metrics go. */
export interface EngineMetricsTarget {
  readonly namespace: string;
  readonly service: string;
  /** @default - the replica's index */
  readonly replica?: string;
  /** @default 10 */
  readonly intervalSeconds?: number;
}

/**
 * The wrapper image's environment for one replica: the engine's own variables, its arguments as JSON, and where its
 * metrics go.
 *
 * Why an environment variable and not the container command: SageMaker model and inference component containers take
 * an image and an environment but no command (SageMaker starts them as `docker run <image> serve`), so this is the one
 * channel both hostings have; ECS passes the same map.
 *
 * @throws InputError when the arguments exceed what SageMaker accepts in one variable, or the metrics target is bad
 */
export function vllmContainerEnvironment(config: VllmReplicaConfig, metrics: EngineMetricsTarget): Record<string, string> {
  const args = JSON.stringify(config.args);
  const problems: string[] = [];
  if (args.length > SAGEMAKER_ENVIRONMENT_VALUE_MAX) {
    problems.push(`vllm serve arguments of replica ${config.index} are ${args.length} characters as JSON, over the `
      + `${SAGEMAKER_ENVIRONMENT_VALUE_MAX} SageMaker accepts in one environment variable; shorten the model path or served model name`);
  }
  const interval = metrics.intervalSeconds ?? 10;
  if (!Number.isInteger(interval) || interval < 1 || interval > 300) {
    problems.push(`engine metrics intervalSeconds=${interval} must be a whole number of seconds from 1 to 300`);
  }
  for (const [field, value] of [['namespace', metrics.namespace], ['service', metrics.service], ['replica', metrics.replica]] as const) {
    if (value !== undefined && (value.trim() === '' || value.length > 255)) {
      problems.push(`engine metrics ${field}=${JSON.stringify(value)} must be 1 to 255 characters`);
    }
  }
  InputError.throwIfAny(problems);
  return {
    ...config.environment,
    [VLLM_IMAGE_ENV.serveArgs]: args,
    [VLLM_IMAGE_ENV.enginePort]: String(config.port),
    [VLLM_IMAGE_ENV.metricsNamespace]: metrics.namespace,
    [VLLM_IMAGE_ENV.metricsService]: metrics.service,
    [VLLM_IMAGE_ENV.metricsReplica]: metrics.replica ?? String(config.index),
    [VLLM_IMAGE_ENV.metricsIntervalSeconds]: String(interval),
  };
}

/*

 * The vLLM engine's metrics contract: the CloudWatch names, units and dimensions of the embedded-metric-format lines
 * `serving/vllm/engine_metrics.py` writes from the engine's Prometheus `/metrics`, so the dashboard and alarms read
 * exactly what the exporter emits. A test parses the exporter and fails when the two drift.
 *
 * Sources are vLLM V1's Prometheus names (vLLM `vllm/v1/metrics/loggers.py`, 0.11 and later, so 0.13 and 0.16):
 * the gauges `vllm:num_requests_running`, `vllm:num_requests_waiting`, `vllm:kv_cache_usage_perc` (a fraction, 1 =
 * full), the histograms `vllm:time_to_first_token_seconds`, `vllm:inter_token_latency_seconds`,
 * `vllm:request_time_per_output_token_seconds` (one observation per request: its mean time per output token, the
 * TPOT the planner predicts and the proofs measure), and the counters `vllm:prompt_tokens_total`,
 * `vllm:generation_tokens_total`, `vllm:request_success_total`.
 *
 * Per interval the exporter writes gauges as read, counters as the increase since the previous scrape, and each
 * histogram's p50 and p99 over the observations of the interval only (bucket-count increases, linear interpolation
 * inside the bucket, as Prometheus' `histogram_quantile`). CloudWatch cannot merge percentiles, so read p99s with
 * the Maximum statistic: the worst interval of any replica in the period.
 */

/** A metric the exporter writes, and the engine's Prometheus series it comes from. */
export interface EngineMetricName extends ModelServerMetricName {
  /** The vLLM series, for the record and the exporter's test. */
  readonly source: string;
}

/** CloudWatch namespace of the engine's metrics unless the caller names one. */
export const DEFAULT_ENGINE_METRICS_NAMESPACE = 'CdkInferentia/GenerativeEngine';

/** Dimension names. Every line carries both sets, `[Service]` and `[Service, Replica]`. */
export const ENGINE_METRICS_DIMENSION = {
  /** One value per endpoint or service. */
  service: 'Service',
  /** The replica (one `vllm serve` process): its index in the plan unless the hosting names it. */
  replica: 'Replica',
} as const;

/** Gauges, read at each scrape. */
export const ENGINE_GAUGES = {
  runningRequests: { name: 'RunningRequests', unit: 'Count', source: 'vllm:num_requests_running' },
  waitingRequests: { name: 'WaitingRequests', unit: 'Count', source: 'vllm:num_requests_waiting' },
  /** KV cache blocks in use, in percent (the engine's fraction times 100). */
  kvCacheUsage: { name: 'KvCacheUsage', unit: 'Percent', source: 'vllm:kv_cache_usage_perc' },
  /** The vLLM Neuron plugin's start (Trn2/Trn3), in ms: compiling, loading the model, and all of it. */
  compileTime: { name: 'CompileTime', unit: 'Milliseconds', source: 'vllm_neuron:compilation_time_seconds' },
  modelLoadTime: { name: 'ModelLoadTime', unit: 'Milliseconds', source: 'vllm_neuron:model_load_time_seconds' },
  startupTime: { name: 'StartupTime', unit: 'Milliseconds', source: 'vllm_neuron:startup_time_seconds' },
  /** The NeuronCores the copy saw before its engine loaded (the cdk-inferentia launcher, serving/vllm/cores_seen.py). */
  neuronCoresSeen: { name: 'NeuronCoresSeen', unit: 'Count', source: 'cdk_inferentia:neuron_cores_seen' },
} as const satisfies Record<string, EngineMetricName>;

/** Increases since the previous scrape (a counter that went down, the engine restarted, counts from zero). */
export const ENGINE_COUNTERS = {
  promptTokens: { name: 'PromptTokens', unit: 'Count', source: 'vllm:prompt_tokens_total' },
  generationTokens: { name: 'GenerationTokens', unit: 'Count', source: 'vllm:generation_tokens_total' },
  finishedRequests: { name: 'FinishedRequests', unit: 'Count', source: 'vllm:request_success_total' },
} as const satisfies Record<string, EngineMetricName>;

/** Percentiles of the interval's observations, in ms; absent for an interval without observations. */
export const ENGINE_PERCENTILES = {
  ttftP50: { name: 'TimeToFirstTokenP50', unit: 'Milliseconds', source: 'vllm:time_to_first_token_seconds' },
  ttftP99: { name: 'TimeToFirstTokenP99', unit: 'Milliseconds', source: 'vllm:time_to_first_token_seconds' },
  tpotP50: { name: 'TimePerOutputTokenP50', unit: 'Milliseconds', source: 'vllm:request_time_per_output_token_seconds' },
  tpotP99: { name: 'TimePerOutputTokenP99', unit: 'Milliseconds', source: 'vllm:request_time_per_output_token_seconds' },
  itlP99: { name: 'InterTokenLatencyP99', unit: 'Milliseconds', source: 'vllm:inter_token_latency_seconds' },
} as const satisfies Record<string, EngineMetricName>;

/** The exporter's own health: scrapes that failed, and lines it could not write. */
export const ENGINE_EXPORTER_COUNTERS = {
  scrapeFailures: { name: 'MetricsScrapeFailures', unit: 'Count', source: '(exporter)' },
  metricLinesDropped: { name: 'MetricLinesDropped', unit: 'Count', source: '(exporter)' },
} as const satisfies Record<string, EngineMetricName>;
