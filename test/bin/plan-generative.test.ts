import { runCli } from '../../bin/cli';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const TRAFFIC = [
  'plan', '--model', 'llama-3.1-8b-instruct', '--throughput', '2', '--input-tokens', '1024', '--output-tokens', '256',
  '--ttft-p99', '2000', '--tpot-p99', '60', '--region', 'us-east-1', '--hosting', 'sagemaker',
];

/** The measured rows' plan of an earlier issue's example: every request at the mean lengths, no estimates. */
const EXAMPLE = [...TRAFFIC, '--fixed-lengths', '--no-estimates'];

describe('plan for a generative model', () => {
  test('GIVEN the issue example WHEN planned THEN the report shows degree, replicas, memory, TTFT/TPOT, tokens/s and cost per 1M output tokens', async () => {
    const { code, stdout, stderr } = await run(...EXAMPLE);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Plan for llama-3\.1-8b-instruct: 2 requests\/s of 1024 input and 256 output tokens, TTFT p99 <= 2000 ms, TPOT p99 <= 60 ms/);
    expect(stdout.replace(/[\s│]+/g, " ")).toMatch(/vLLM over NxD Inference \(pytorch-inference-vllm-neuronx:0\.13\.0[^)]*\): tensor_parallel_size 8, max_num_seqs \d+, max_model_len 1280/);
    expect(stdout).toMatch(/weights 14\.96 \+ KV cache [\d.]+ \+ reserve [\d.]+ = [\d.]+ of \d+ GiB/);
    expect(stdout).toMatch(/TTFT p99 [\d.]+ ms, TPOT p99 [\d.]+ ms/);
    expect(stdout).toMatch(/\$[\d.]+ per 1M output tokens/);
    expect(stdout).toContain('NEURON_RT_VISIBLE_CORES');
    expect(stderr).toMatch(/warning: .*UNVERIFIED/);
  });

  test('GIVEN means only WHEN planned THEN lengths spread as chat traffic does, stated in the header, the report and the JSON', async () => {
    const { code, stdout } = await run(...TRAFFIC);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Plan for llama-3\.1-8b-instruct: 2 requests\/s of 1024 \(p99 3677\) input and 256 \(p99 730\) output tokens/);
    const flat = stdout.replace(/[\s│]+/g, ' ');
    expect(flat).toContain('3.59 x, default spread');
    // THEN the measured rows' 4,096 tokens plan (4,407 at p99 + p99), with the share of requests cut said
    expect(flat).toMatch(/max_model_len 4096, the length a published row was compiled for, not the 4407 the lengths need at p99: 0\.\d % of requests/);
    // THEN what to watch on the first deploy is one line, and FP8, measured on no Inf2 or Trn1, is only priced beside
    expect(flat).toMatch(/watch on first deploy a p99 target misses at 2 requests\/s if decode steps and prefills run \d+ % slower than the plan's timings/);
    expect(flat).toMatch(/fp8 \(unmeasured\)/);
    // The README's plan states what its times rest on, in one line.
    expect(flat).toMatch(/ evidence (ESTIMATE from .* headroom TPOT x[\d.]+, TTFT x[\d.]+: measured \/ predicted at the \d+th percentile of \d+ held-out predictions of "[^"]+"|measured: )/);
    const json = await run(...TRAFFIC, '--json');
    const report = JSON.parse(json.stdout);
    const g = report.chosen.generative;
    expect(g.lengths.input).toMatchObject({ mean: 1024, p99: 3677, spread: 'default' });
    expect(g.measurement ?? g.estimate).toBeDefined();
    expect(['measured', 'estimated']).toContain(g.evidence.basis);
    expect(g.evidence.nearest.length).toBeGreaterThan(0);
    expect(g.engine.levers?.fp8Weights).toBeUndefined();
    expect(g.lengthCut).toMatchObject({ requestedLength: 4407, measuredLength: 4096 });
    expect(g.sensitivity.stepSlowdownToMissTarget).toBeGreaterThan(1);
    expect(report.unmeasuredLevers.map((u: { levers: string[] }) => u.levers.join('+'))).toContain('fp8');
  });

  test('GIVEN --unmeasured-levers on a single-call model, or a lever it does not know WHEN planned THEN refused, exit 2', async () => {
    const single = await run('plan', '--model', 'bert-base-uncased', '--throughput', '100', '--p99', '50', '--unmeasured-levers', 'fp8', '--region', 'us-east-1', '--hosting', 'ec2');
    expect(single.code).toBe(2);
    expect(single.stderr).toContain('--unmeasured-levers apply to generative models only');
    const unknown = await run(...TRAFFIC, '--unmeasured-levers', 'fp4');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("expected one of speculation, fp8, prefix-caching, got 'fp4'");
  });

  test('GIVEN --json WHEN planned THEN chosen.generative carries the fields scripts read', async () => {
    const { code, stdout } = await run(...EXAMPLE, '--json');
    expect(code).toBe(0);
    const g = JSON.parse(stdout).chosen.generative;
    for (const key of ['tensorParallelDegree', 'replicasPerInstance', 'maxConcurrentSequences', 'maxModelLength', 'predictedTtftP99Ms',
      'predictedTpotP99Ms', 'outputTokensPerSecond', 'costPer1MOutputTokensUsd', 'measurement']) {
      expect(g).toHaveProperty(key);
    }
    expect(Object.keys(g.memoryGiB)).toEqual(expect.arrayContaining(['weights', 'kvCache', 'reserve', 'available']));
    expect(g.measurement[0]).toHaveProperty('source');
  });

  test('GIVEN single-call flags on a generative model (and missing token flags) WHEN planned THEN each is named, exit 2', async () => {
    const { code, stderr } = await run('plan', '--model', 'llama-3.1-8b-instruct', '--throughput', '2', '--p99', '50', '--region', 'us-east-1', '--hosting', 'ec2');
    expect(code).toBe(2);
    expect(stderr).toContain('llama-3.1-8b-instruct is a generative model: --p99 (use --ttft-p99 and --tpot-p99) apply to single-call models only');
    expect(stderr).toContain('give --input-tokens <mean prompt tokens>, --output-tokens <mean output tokens>, --ttft-p99 <ms>, --tpot-p99 <ms>');
  });

  test('GIVEN --server on a generative model WHEN planned THEN refused, exit 2: vLLM serves it', async () => {
    const { code, stderr } = await run('plan', '--model', 'llama-3.1-8b-instruct', '--throughput', '2', '--input-tokens', '500', '--output-tokens', '200',
      '--ttft-p99', '2000', '--tpot-p99', '100', '--server', 'neuron-dlc', '--region', 'us-east-1', '--hosting', 'ec2');
    expect(code).toBe(2);
    expect(stderr).toContain('llama-3.1-8b-instruct is a generative model: --server (generative models run on vLLM) apply to single-call models only');
  });

  test('GIVEN token flags on a single-call model WHEN planned THEN they are refused, exit 2', async () => {
    const { code, stderr } = await run('plan', '--model', 'bert-base-uncased', '--throughput', '100', '--p99', '50', '--ttft-p99', '100',
      '--region', 'us-east-1', '--hosting', 'ec2');
    expect(code).toBe(2);
    expect(stderr).toContain('bert-base-uncased is a single-call model: --ttft-p99 apply to generative models only');
  });

  test('GIVEN 70B on inf2.24xlarge only WHEN planned THEN no plan, and the reason is the memory that did not fit', async () => {
    const { code, stderr } = await run('plan', '--model', 'llama-3.3-70b-instruct', '--throughput', '0.1', '--input-tokens', '1024',
      '--output-tokens', '256', '--ttft-p99', '20000', '--tpot-p99', '200', '--region', 'us-east-1', '--hosting', 'ec2', '--instance-types', 'inf2.24xlarge');
    expect(code).toBe(1);
    expect(stderr).toMatch(/inf2\.24xlarge tp=8 \(the most inf2\.24xlarge offers\): does not fit: weights 131\.5 \+ KV cache [\d.]+ \+ reserve 12\.8 GiB > 128 GiB of 8 cores/);
  });

  test('GIVEN profiles WHEN listed THEN the generative models appear with their kind', async () => {
    const { code, stdout } = await run('profiles', '--json');
    expect(code).toBe(0);
    const generative = JSON.parse(stdout).generative as { id: string; kind: string; model: { architecture: string } }[];
    expect(generative.map((p) => `${p.id} ${p.model.architecture}`)).toEqual(expect.arrayContaining([
      'llama-3.1-8b-instruct decoder-only', 'llama-3.3-70b-instruct decoder-only', 'qwen3-32b decoder-only',
      'google/flan-t5-xl encoder-decoder', 't5-3b encoder-decoder',
    ]));
  });
});
