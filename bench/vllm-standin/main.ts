/**
 * The stand-in engine's command line: `npx tsx bench/vllm-standin/main.ts [options]`. Prints one JSON line,
 * `{"url": "http://127.0.0.1:PORT", ...timing}`, once it listens, so a test or bench that spawns it learns the port
 * (`--port 0` picks a free one). Stops on SIGTERM or SIGINT.
 *
 * Timings come from explicit numbers or a built-in profile's measured rows; every flag also reads an environment
 * variable (`STANDIN_STEP_MS`, ...). See README.md.
 */
import { readFileSync } from 'node:fs';
import { Command, Option } from 'commander';
import { parsePrefillBuckets, type StandinTiming } from './engine';
import { startStandin } from './server';
import { standinTimingOfProfile } from './timing';

const program = new Command('vllm-standin')
  .description('A stand-in for vLLM on Neuron: its HTTP and streaming protocol over simulated continuous batching')
  .addOption(new Option('--port <n>', 'port to listen on (0: any free port)').env('STANDIN_PORT').default('0'))
  .addOption(new Option('--host <host>', 'address to listen on').env('STANDIN_HOST').default('127.0.0.1'))
  .addOption(new Option('--served-model-name <name>', 'model name the API answers to').env('STANDIN_SERVED_MODEL_NAME').default('standin'))
  .addOption(new Option('--max-model-len <n>', 'longest prompt plus output').env('STANDIN_MAX_MODEL_LEN').default('4096'))
  .addOption(new Option('--max-num-seqs <n>', 'most sequences decoding at once').env('STANDIN_MAX_NUM_SEQS'))
  .addOption(new Option('--step-ms <ms>', 'decode step time').env('STANDIN_STEP_MS'))
  .addOption(new Option('--prefill-ms-per-token <ms>', 'prefill time per prompt token').env('STANDIN_PREFILL_MS_PER_TOKEN'))
  .addOption(new Option('--prefill-floor-ms <ms>', 'least time a prefill takes').env('STANDIN_PREFILL_FLOOR_MS').default('0'))
  .addOption(new Option('--prefill-buckets <list>', 'compiled prompt buckets as tokens:ms,... (ascending): a prompt takes its bucket\'s time, instead of the line').env('STANDIN_PREFILL_BUCKETS'))
  .addOption(new Option('--profile <id>', 'take the timings from this built-in generative profile').env('STANDIN_PROFILE'))
  .addOption(new Option('--instance-type <type>', 'with --profile: the rows of this instance type').env('STANDIN_INSTANCE_TYPE'))
  .addOption(new Option('--tensor-parallel-size <n>', 'with --profile: the rows of this degree').env('STANDIN_TENSOR_PARALLEL_SIZE'))
  .addOption(new Option('--slowdown <factor>', 'multiply every duration (above 1: slower than the plan)').env('STANDIN_SLOWDOWN').default('1'))
  .addOption(new Option('--plugin-compile-seconds <s>', 'play the vLLM Neuron plugin: the compile time its vllm_neuron: metrics report').env('STANDIN_PLUGIN_COMPILE_SECONDS'))
  .addOption(new Option('--plugin-load-seconds <s>', 'with --plugin-compile-seconds: the model load time').env('STANDIN_PLUGIN_LOAD_SECONDS').default('0'))
  .addOption(new Option('--neuron-cores-seen <n>', 'play the cdk-inferentia launcher: the NeuronCores this copy saw, in /metrics').env('STANDIN_NEURON_CORES_SEEN'))
  .addOption(new Option('--neuron-cores-needed <n>', 'with --neuron-cores-seen: the cores its tensor-parallel degree needs (default: as many)').env('STANDIN_NEURON_CORES_NEEDED'))
  .addOption(new Option('--copy <name>', 'with --neuron-cores-seen: the copy\'s name in those series').env('STANDIN_COPY').default('standin-0'))
  .addOption(new Option('--golden <file>', 'JSON object: prompt -> greedy answer (words are tokens)').env('STANDIN_GOLDEN'));

function positive(name: string, value: string | undefined, integer = false): number {
  const n = Number(value);
  if (value === undefined || !Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) {
    throw new Error(`${name}=${value ?? '(missing)'}: give a ${integer ? 'whole ' : ''}number at least 0`);
  }
  return n;
}

async function main(): Promise<void> {
  const o = program.parse().opts<Record<string, string | undefined>>();
  const slowdown = positive('--slowdown', o.slowdown);
  let timing: StandinTiming;
  if (o.profile !== undefined) {
    if (o.instanceType === undefined || o.tensorParallelSize === undefined || o.maxNumSeqs === undefined) {
      throw new Error('--profile needs --instance-type, --tensor-parallel-size and --max-num-seqs to pick its rows');
    }
    timing = standinTimingOfProfile(o.profile, o.instanceType, positive('--tensor-parallel-size', o.tensorParallelSize, true), positive('--max-num-seqs', o.maxNumSeqs, true), slowdown);
  } else {
    timing = {
      maxNumSeqs: positive('--max-num-seqs', o.maxNumSeqs, true),
      stepMs: positive('--step-ms', o.stepMs),
      prefillMsPerToken: positive('--prefill-ms-per-token', o.prefillMsPerToken),
      prefillFloorMs: positive('--prefill-floor-ms', o.prefillFloorMs),
      ...(o.prefillBuckets !== undefined ? { prefillBuckets: parsePrefillBuckets(o.prefillBuckets) } : {}),
      slowdown,
    };
  }
  if (timing.maxNumSeqs < 1) {
    throw new Error(`--max-num-seqs=${timing.maxNumSeqs}: at least 1`);
  }
  const golden = o.golden === undefined ? undefined : (JSON.parse(readFileSync(o.golden, 'utf8')) as Record<string, string>);
  const standin = await startStandin({
    ...timing,
    port: positive('--port', o.port, true),
    host: o.host,
    servedModelName: o.servedModelName,
    maxModelLen: positive('--max-model-len', o.maxModelLen, true),
    golden,
    ...(o.pluginCompileSeconds !== undefined
      ? { plugin: { compilationSeconds: positive('--plugin-compile-seconds', o.pluginCompileSeconds), modelLoadSeconds: positive('--plugin-load-seconds', o.pluginLoadSeconds) } }
      : {}),
    ...(o.neuronCoresSeen !== undefined
      ? { coresSeen: { copy: o.copy ?? 'standin-0', seen: positive('--neuron-cores-seen', o.neuronCoresSeen, true),
        needed: positive('--neuron-cores-needed', o.neuronCoresNeeded ?? o.neuronCoresSeen, true) } }
      : {}),
  });
  process.stdout.write(`${JSON.stringify({ url: standin.url, ...timing })}\n`);
  const stop = (): void => {
    void standin.close().then(() => process.exit(0));
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`vllm-standin: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
