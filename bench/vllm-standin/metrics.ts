/**
 * The stand-in's `/metrics`: Prometheus text with the names vLLM 0.16's V1 engine exports, so scrapers, the
 * CloudWatch EMF bridge and dashboards built for the engine read the stand-in unchanged.
 *
 * Names as of vLLM 0.16: `vllm:kv_cache_usage_perc` (the `gpu_` name is gone), `vllm:inter_token_latency_seconds`
 * and `vllm:request_time_per_output_token_seconds` (`vllm:time_per_output_token_seconds` was deprecated in 0.11 and
 * removed in 0.13). Labels `model_name` and `engine`, as vLLM labels them. Bucket bounds are vLLM's.
 *
 * @see https://github.com/vllm-project/vllm/blob/v0.16.0/vllm/v1/metrics/loggers.py
 * @see https://docs.vllm.ai/en/stable/usage/metrics.html
 */
import { COPY_CORES_METRICS } from '../../lib/generative/plugin-metrics';
import type { EngineObserver, Sequence } from './engine';

const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0];
const ITL_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0, 20.0, 40.0, 80.0];
const REQUEST_BUCKETS = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0];

class Histogram {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
  ) {
    this.counts = bounds.map(() => 0);
  }

  observe(value: number): void {
    this.sum += value;
    this.count++;
    for (let i = 0; i < this.bounds.length; i++) {
      if (value <= this.bounds[i]) {
        this.counts[i]++;
      }
    }
  }

  render(labels: string): string[] {
    return [
      `# HELP ${this.name} ${this.help}`,
      `# TYPE ${this.name} histogram`,
      ...this.bounds.map((b, i) => `${this.name}_bucket{${labels},le="${Number.isInteger(b) ? b.toFixed(1) : String(b)}"} ${this.counts[i]}`),
      `${this.name}_bucket{${labels},le="+Inf"} ${this.count}`,
      `${this.name}_count{${labels}} ${this.count}`,
      `${this.name}_sum{${labels}} ${this.sum}`,
    ];
  }
}

/** What the stand-in says about its start when it plays the vLLM Neuron plugin (seconds). */
export interface StandinPluginStartup {
  readonly compilationSeconds: number;
  readonly modelLoadSeconds: number;
}

/**
 * The cores a copy saw at start, as the cdk-inferentia launcher adds them to the engine's /metrics
 * (serving/vllm/cores_seen.py; names in lib/generative/plugin-metrics.ts).
 */
export interface StandinCoresSeen {
  /** The copy's name (the launcher uses the host name). */
  readonly copy: string;
  readonly seen: number;
  readonly needed: number;
}

/** Counts what the engine does and renders it as vLLM does. */
export class StandinMetrics implements EngineObserver {
  private promptTokens = 0;
  private generationTokens = 0;
  private readonly success: Record<string, number> = { length: 0, stop: 0, abort: 0 };
  private readonly ttft = new Histogram('vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', TTFT_BUCKETS);
  private readonly itl = new Histogram('vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', ITL_BUCKETS);
  private readonly tpot = new Histogram(
    'vllm:request_time_per_output_token_seconds',
    'Histogram of time_per_output_token_seconds per request.',
    ITL_BUCKETS,
  );
  private readonly e2e = new Histogram('vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', REQUEST_BUCKETS);

  /**
   * @param plugin the vLLM Neuron plugin's startup figures to export as `vllm_neuron:*` (Trn2/Trn3 engines); none for
   * an NxD Inference engine
   * @param cores the cores the launcher counted, exported as `cdk_inferentia:neuron_cores_*`; none without the launcher
   */
  constructor(private readonly modelName: string, private readonly plugin?: StandinPluginStartup, private readonly cores?: StandinCoresSeen) {}

  /** Counts a request's prompt when it is admitted. */
  prompt(tokens: number): void {
    this.promptTokens += tokens;
  }

  /** Counts a finished request by its finish reason. */
  finished(reason: string): void {
    this.success[reason] = (this.success[reason] ?? 0) + 1;
  }

  onFirstToken(_s: Sequence, ttftSeconds: number): void {
    this.generationTokens++;
    this.ttft.observe(ttftSeconds);
  }

  onToken(_s: Sequence, interTokenSeconds: number): void {
    this.generationTokens++;
    this.itl.observe(interTokenSeconds);
  }

  onFinish(s: Sequence, nowMs: number): void {
    this.e2e.observe((nowMs - s.arrivedAt) / 1000);
    if (s.produced > 1 && s.firstTokenAt !== undefined) {
      this.tpot.observe((nowMs - s.firstTokenAt) / 1000 / (s.produced - 1));
    }
  }

  /** The plugin's series (vllm-neuron docs/guides/features-guide.md, "Metrics"): padding, executions and start times. */
  private renderPlugin(labels: string, state: { running: number; maxNumSeqs: number }): string[] {
    const plugin = this.plugin!;
    const gauge = (name: string, help: string, value: number): string[] => [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}{${labels}} ${value}`];
    // Decode runs in the smallest power-of-two bucket that holds the running sequences.
    let bucket = 1;
    while (bucket < state.running && bucket < state.maxNumSeqs) bucket *= 2;
    return [
      ...gauge('vllm_neuron:num_seqs_padding', 'Padded sequence slots in the last decode batch.', Math.min(bucket, state.maxNumSeqs) - state.running),
      ...gauge('vllm_neuron:num_batched_tokens_padding', 'Padded tokens in the last prefill batch.', 0),
      ...gauge('vllm_neuron:neff_execution_count', 'Compiled graph executions.', this.generationTokens),
      ...gauge('vllm_neuron:compilation_time_seconds', 'Seconds spent compiling at start.', plugin.compilationSeconds),
      ...gauge('vllm_neuron:model_load_time_seconds', 'Seconds spent loading the model.', plugin.modelLoadSeconds),
      ...gauge('vllm_neuron:startup_time_seconds', 'Seconds from start to ready.', plugin.compilationSeconds + plugin.modelLoadSeconds),
    ];
  }

  /** The launcher's series, labelled by copy and by how it counted (serving/vllm/cores_seen.py). */
  private renderCores(): string[] {
    const c = this.cores!;
    const labels = `copy="${c.copy}",source="standin"`;
    return [
      `# TYPE ${COPY_CORES_METRICS.seen} gauge`, `${COPY_CORES_METRICS.seen}{${labels}} ${c.seen}`,
      `# TYPE ${COPY_CORES_METRICS.needed} gauge`, `${COPY_CORES_METRICS.needed}{${labels}} ${c.needed}`,
    ];
  }

  /** The Prometheus text exposition. */
  render(state: { running: number; waiting: number; maxNumSeqs: number; lostMs: number }): string {
    const labels = `engine="0",model_name="${this.modelName}"`;
    const gauge = (name: string, help: string, value: number): string[] => [`# HELP ${name} ${help}`, `# TYPE ${name} gauge`, `${name}{${labels}} ${value}`];
    const counter = (name: string, help: string, value: number): string[] => [`# HELP ${name} ${help}`, `# TYPE ${name} counter`, `${name}{${labels}} ${value}`];
    return [
      ...gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', state.running),
      ...gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', state.waiting),
      // Contiguous KV on Neuron: one block per sequence slot (num_gpu_blocks_override = max_num_seqs).
      ...gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', state.running / state.maxNumSeqs),
      ...counter('vllm:prompt_tokens_total', 'Number of prefill tokens processed.', this.promptTokens),
      ...counter('vllm:generation_tokens_total', 'Number of generation tokens processed.', this.generationTokens),
      '# HELP vllm:request_success_total Count of successfully processed requests.',
      '# TYPE vllm:request_success_total counter',
      ...Object.entries(this.success).map(([reason, n]) => `vllm:request_success_total{${labels},finished_reason="${reason}"} ${n}`),
      ...this.ttft.render(labels),
      ...this.itl.render(labels),
      ...this.tpot.render(labels),
      ...this.e2e.render(labels),
      ...(this.plugin ? this.renderPlugin(labels, state) : []),
      ...(this.cores ? this.renderCores() : []),
      // Not a vLLM metric: the stand-in's own health, engine time lost to host stalls (see engine.ts).
      ...counter('standin:clock_lost_seconds_total', 'Engine time the stand-in lost to host stalls.', state.lostMs / 1000),
      '',
    ].join('\n');
  }
}
