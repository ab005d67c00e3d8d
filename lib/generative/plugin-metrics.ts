/**
 * The vLLM Neuron plugin's own `/metrics` series (prefix `vllm_neuron:`) and what the proof in tokens reads from them:
 * how long the replica spent compiling, loading and starting, and whether it compiled at serving time.
 *
 * Names from the plugin's features guide, "Metrics" (vllm-project/vllm-neuron docs/guides/features-guide.md, SDK 2.33):
 * `vllm_neuron:num_seqs_padding`, `vllm_neuron:num_batched_tokens_padding`, `vllm_neuron:neff_execution_count`,
 * `vllm_neuron:startup_time_seconds`, `vllm_neuron:compilation_time_seconds`, `vllm_neuron:model_load_time_seconds`,
 * `vllm_neuron:model_load_size_bytes`. Pure: the caller fetches the text.
 */

/** The plugin series the proof reads. */
export const PLUGIN_METRICS = {
  startupSeconds: 'vllm_neuron:startup_time_seconds',
  compilationSeconds: 'vllm_neuron:compilation_time_seconds',
  modelLoadSeconds: 'vllm_neuron:model_load_time_seconds',
  modelLoadBytes: 'vllm_neuron:model_load_size_bytes',
  numSeqsPadding: 'vllm_neuron:num_seqs_padding',
  numBatchedTokensPadding: 'vllm_neuron:num_batched_tokens_padding',
  neffExecutions: 'vllm_neuron:neff_execution_count',
} as const;

/**
 * Seconds of compilation above which a replica is judged to have compiled at serving time. A replica that found every
 * graph in the shared cache (compiled ahead on a CPU instance) only loads NEFFs; neuronx-cc on one bucket of a 70B
 * graph takes minutes ("sometimes exceeding several minutes for large graphs", plugin docs, compilation cache). The
 * bound leaves room for graph capture, which a warm start still traces unless the precompile cache is on.
 */
export const COLD_COMPILE_LIMIT_SECONDS = 120;

/** What one replica reported about its start. Absent fields were not exported. */
export interface PluginStartup {
  readonly startupSeconds?: number;
  readonly compilationSeconds?: number;
  readonly modelLoadSeconds?: number;
  readonly modelLoadBytes?: number;
  readonly numSeqsPadding?: number;
  readonly numBatchedTokensPadding?: number;
  readonly neffExecutions?: number;
}

/**
 * The plugin's startup figures in a Prometheus text exposition, or undefined when it has no `vllm_neuron:` series (an
 * NxD Inference engine). A series with several label sets is summed (one value per rank or bucket); a histogram or
 * summary contributes its `_sum`.
 */
export function parsePluginStartup(text: string): PluginStartup | undefined {
  const values = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('vllm_neuron:')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+([^\s]+)/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    if (!Number.isFinite(value)) continue;
    const name = match[1].replace(/_sum$/, '');
    if (/_(bucket|count|created)$/.test(match[1])) continue;
    values.set(name, (values.get(name) ?? 0) + value);
  }
  if (values.size === 0) return undefined;
  const startup: Record<string, number> = {};
  for (const [field, series] of Object.entries(PLUGIN_METRICS)) {
    const value = values.get(series);
    if (value !== undefined) startup[field] = value;
  }
  return startup;
}

/**
 * Why a replica's start fails the proof: a compilation at serving time, which means the shared cache missed (the plan
 * changed what the graphs depend on, or the compile job did not run); empty when it passes.
 */
export function judgePluginStartup(startup: PluginStartup, limitSeconds = COLD_COMPILE_LIMIT_SECONDS): string[] {
  const compiled = startup.compilationSeconds;
  if (compiled === undefined || compiled <= limitSeconds) return [];
  return [`the engine compiled for ${Math.round(compiled)} s at serving time (${PLUGIN_METRICS.compilationSeconds}, limit `
    + `${limitSeconds} s): the compiled graphs were not in the shared cache; run the CPU compile job for this plan `
    + '(NeuronCompileJob) before deploying, so serving copies only load them'];
}

/**
 * The NeuronCores each copy saw before its engine loaded, which the cdk-inferentia launcher adds to the engine's
 * `/metrics` (serving/vllm/cores_seen.py): one gauge of each per copy, labelled `copy` (its host) and `source` (how
 * the cores were counted: `NEURON_RT_VISIBLE_CORES`, `neuron-ls` or the device files).
 */
export const COPY_CORES_METRICS = {
  seen: 'cdk_inferentia:neuron_cores_seen',
  needed: 'cdk_inferentia:neuron_cores_needed',
} as const;

/** What one copy saw at start. */
export interface CopyCores {
  readonly copy: string;
  readonly coresSeen: number;
  readonly coresNeeded: number;
  /** How the launcher counted them. */
  readonly source: string;
}

/** The copies' core counts in a Prometheus text exposition (none without the launcher's series). */
export function parseCopyCores(text: string): CopyCores[] {
  const copies = new Map<string, { seen?: number; needed?: number; source: string }>();
  for (const line of text.split('\n')) {
    const match = /^(cdk_inferentia:neuron_cores_(?:seen|needed))\{([^}]*)\}\s+([^\s]+)/.exec(line);
    if (!match) continue;
    const labels = Object.fromEntries([...match[2].matchAll(/([a-zA-Z_]\w*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    const value = Number(match[3]);
    if (labels.copy === undefined || !Number.isFinite(value)) continue;
    const entry = copies.get(labels.copy) ?? { source: labels.source ?? '' };
    if (match[1] === COPY_CORES_METRICS.seen) entry.seen = value;
    else entry.needed = value;
    copies.set(labels.copy, entry);
  }
  return [...copies].flatMap(([copy, e]) => (e.seen !== undefined && e.needed !== undefined
    ? [{ copy, coresSeen: e.seen, coresNeeded: e.needed, source: e.source }] : []));
}

/** Why the copies' cores fail the proof: a copy that saw fewer cores than it needs; empty when none did. */
export function judgeCopyCores(copies: readonly CopyCores[]): string[] {
  return copies.filter((c) => c.coresSeen < c.coresNeeded).map((c) => `copy ${c.copy} saw ${c.coresSeen} NeuronCores (${c.source}) `
    + `but its tensor-parallel degree needs ${c.coresNeeded}: raise NumberOfAcceleratorDevicesRequired (SageMaker) or the `
    + 'task\'s device mappings (ECS) so each copy gets them');
}
