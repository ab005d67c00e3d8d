/**
 * How Hugging Face optimum-neuron's guidellm result CSVs become rows (`generate_csv.py` over guidellm 0.1.0 reports, in
 * huggingface/optimum-neuron `benchmark/vllm/` and `benchmark/text-generation-inference/performance/`).
 *
 * Each CSV holds one line per guidellm profile: `synchronous` (one request at a time), `asynchronous@R req/sec` (an
 * open loop at R requests per second) and `throughput` (every request at once, up to `GUIDELLM__MAX_CONCURRENCY`).
 * Its latency columns are guidellm's means: request latency (s), TTFT (ms), inter-token latency (ms); output tokens
 * per second is the whole run's (every replica behind the load balancer). Prompts are 1500 +- 150 tokens and outputs
 * 250 +- 20 (`--data "prompt_tokens=1500,prompt_tokens_variance=150,generated_tokens=250,..."`).
 *
 * The SDK of a run is `__sdk_version__` of optimum/neuron/version.py at the commit that added its results: the
 * release the container was built for, not stated in the CSV.
 */
import type { NeuronChip, PublishedRow, ServingStack } from './types';

const REPOSITORY = 'huggingface/optimum-neuron';
const LENGTHS = 'guidellm emulated data, prompt_tokens=1500 prompt_tokens_variance=150, generated_tokens=250 generated_tokens_variance=20';

/** One benchmarked server configuration and the file its results are in. */
export interface GuidellmRun {
  readonly model: string;
  readonly stack: ServingStack;
  readonly instanceType: string;
  readonly chip: NeuronChip;
  readonly sdk: string;
  readonly tensorParallelDegree: number;
  readonly dataParallel?: number;
  readonly batchSize: number;
  readonly sequenceLength: number;
  /** guidellm's `GUIDELLM__MAX_CONCURRENCY` for the `throughput` profile; undefined where the script leaves guidellm's default. */
  readonly maxConcurrency?: number;
  readonly commit: string;
  readonly date: string;
  readonly path: string;
  /** The CSV's `Date` column of the run. */
  readonly run: string;
  readonly levers?: PublishedRow['levers'];
  readonly notes?: string;
}

/** One CSV line: input type, requests/s, request latency (s), TTFT (ms), inter-token latency (ms), output tokens/s. */
export type GuidellmLine = readonly [inputType: string, requestsPerSecond: number, latencySeconds: number, ttftMs: number, itlMs: number, outputTokensPerSecond: number];

const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

function guidellm(run: GuidellmRun, [inputType, rps, latencySeconds, ttftMs, itlMs, tps]: GuidellmLine): PublishedRow {
  const rate = /^asynchronous@([\d.]+) req\/sec$/.exec(inputType);
  const load: Pick<PublishedRow, 'load' | 'concurrency' | 'requestRate'> = inputType === 'synchronous'
    ? { load: 'concurrency', concurrency: 1 }
    : rate ? { load: 'rate', requestRate: Number(rate[1]) } : { load: 'saturation' };
  const cap = run.maxConcurrency === undefined ? 'guidellm\'s default concurrency cap' : `GUIDELLM__MAX_CONCURRENCY ${run.maxConcurrency}`;
  return {
    model: run.model,
    instanceType: run.instanceType,
    chip: run.chip,
    stack: run.stack,
    neuronSdkVersion: run.sdk,
    tensorParallelDegree: run.tensorParallelDegree,
    ...(run.dataParallel !== undefined ? { dataParallel: run.dataParallel } : {}),
    batchSize: run.batchSize,
    ...load,
    inputTokens: 1500,
    outputTokens: 250,
    lengthSpread: LENGTHS,
    sequenceLength: run.sequenceLength,
    weightDtype: 'bf16',
    levers: run.levers ?? {},
    ttft: { mean: round(ttftMs, 1) },
    tpot: { mean: round(itlMs) },
    e2e: { mean: round(latencySeconds * 1000, 0) },
    outputTokensPerSecond: round(tps, 1),
    requestsPerSecond: round(rps, 3),
    run: run.run,
    source: {
      repository: REPOSITORY,
      commit: run.commit,
      path: run.path,
      date: run.date,
      locator: `line "${inputType}" of run ${run.run}${inputType === 'throughput' ? ` (${cap})` : ''}`,
    },
    unverified: true,
    ...(run.notes ? { notes: run.notes } : {}),
  };
}

/** The rows of one run's CSV lines. */
export function guidellmRuns(run: GuidellmRun, lines: readonly GuidellmLine[]): PublishedRow[] {
  return lines.map((line) => guidellm(run, line));
}
