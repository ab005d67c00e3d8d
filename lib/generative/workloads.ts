/**
 * Workload presets: how prompt and output lengths spread in a kind of traffic, measured on public traces of LLM
 * services in Azure. A length given without a p99 takes its workload's spread (p99 / mean).
 *
 * Measured for this project by `scripts/azure-trace-stats.ts` (it reads a trace file through the same reader as
 * `plan --lengths-from`) on the 2023 traces of Azure/AzurePublicDataset at b469a113 (data/AzureLLMInferenceTrace_conv.csv
 * and _code.csv, one hour of 2023-11-16 each; Patel et al., "Splitwise", ISCA 2024). The 2024 week-long traces of the
 * same services (DynamoLLM, HPCA 2025: 27.3 million conversation and 16.8 million code requests) are kept outside the
 * repository, on Azure Blob storage, and could not be read here; their notebook's CDF plots
 * (analysis/AzureLLMInferenceDataset2024.ipynb) show prompts over the same range (under 8,000 tokens, conversation
 * median about 1,000, code about 1,900).
 */

/** The workload presets `--workload` names. */
export const WORKLOAD_PRESET_NAMES = ['chat', 'code'] as const;
/** A workload preset: `chat` (a conversation service, the default) or `code` (a coding assistant). */
export type WorkloadPresetName = (typeof WORKLOAD_PRESET_NAMES)[number];

/** One count of a trace, as measured. */
export interface TraceCount {
  readonly mean: number;
  readonly p5: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  /** Coefficient of variation (standard deviation / mean). */
  readonly cv: number;
}

/** A workload preset: its trace, and its prompts' and outputs' statistics there. */
export interface WorkloadPreset {
  readonly name: WorkloadPresetName;
  /** The trace, where it is and what describes it. */
  readonly trace: string;
  readonly requests: number;
  readonly input: TraceCount;
  readonly output: TraceCount;
  /** The gaps' SCV in the trace (rate drift slower than a minute removed); not planned with unless asked for. */
  readonly arrivalScv: number;
}

const REPOSITORY = 'Azure/AzurePublicDataset @ b469a113';
const SPLITWISE = 'Patel et al., "Splitwise", ISCA 2024';

/** The presets, from the public traces. */
export const WORKLOAD_PRESETS: Readonly<Record<WorkloadPresetName, WorkloadPreset>> = {
  chat: {
    name: 'chat',
    trace: `Azure LLM inference trace 2023, conversation service (${REPOSITORY} data/AzureLLMInferenceTrace_conv.csv, ` +
      `19,366 requests of 2023-11-16, described in ${SPLITWISE})`,
    requests: 19366,
    input: { mean: 1154.7, p5: 181, p50: 1020, p95: 4083, p99: 4142, cv: 0.96 },
    output: { mean: 211.1, p5: 41, p50: 129, p95: 451, p99: 601, cv: 0.77 },
    arrivalScv: 1.05,
  },
  code: {
    name: 'code',
    trace: `Azure LLM inference trace 2023, code service (${REPOSITORY} data/AzureLLMInferenceTrace_code.csv, ` +
      `8,819 requests of 2023-11-16, described in ${SPLITWISE})`,
    requests: 8819,
    input: { mean: 2047.8, p5: 75, p50: 1469, p95: 7315, p99: 7436, cv: 0.96 },
    output: { mean: 27.9, p5: 6, p50: 13, p95: 90, p99: 252, cv: 2.15 },
    arrivalScv: 47.8,
  },
};

/** The p99 / mean of a preset's prompts and outputs: the spread a length without a p99 takes. */
export function presetSpread(preset: WorkloadPreset): { readonly inputP99OverMean: number; readonly outputP99OverMean: number } {
  return {
    inputP99OverMean: Math.round((preset.input.p99 / preset.input.mean) * 100) / 100,
    outputP99OverMean: Math.round((preset.output.p99 / preset.output.mean) * 100) / 100,
  };
}
