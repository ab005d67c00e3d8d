/**
 * `plan --lengths-from` and `--workload`, in process (no CLI spawned per case). Generative plans use measured rows
 * only (`--no-estimates`) or one instance type, to keep the file's CPU time to a few seconds.
 */
import { readFileSync } from 'fs';
import { join } from 'path';
import { runCli } from '../../bin/cli';
import { sortedQuantile } from '../../lib/traffic/quantiles';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const EXAMPLES = join(__dirname, '..', '..', 'examples', 'traffic');
const LLAMA = ['plan', '--model', 'llama-3.1-8b-instruct', '--ttft-p99', '3000', '--tpot-p99', '60', '--region', 'us-east-1', '--hosting', 'sagemaker'];
/** One instance type and no levers: the fewest candidates that still plan (each candidate costs a capacity search). */
const FEW = ['--instance-types', 'inf2.48xlarge', '--no-speculative-decoding', '--no-fp8'];

/** The p99 of a column of a CSV, computed here from the file. */
function csvP99(file: string, column: string): number {
  const [header, ...rows] = readFileSync(file, 'utf8').trim().split('\n');
  const index = header.split(',').indexOf(column);
  return sortedQuantile(Float64Array.from(rows.map((r) => Number(r.split(',')[index]))).sort(), 0.99);
}

describe('plan from the user\'s own traffic', () => {
  test('GIVEN a RAG service\'s lengths WHEN planned THEN the request carries the file\'s distribution, its p99 within 5 %, naming the file', async () => {
    const file = join(EXAMPLES, 'rag.csv');
    const { code, stdout } = await run(...LLAMA, '--throughput', '1', '--lengths-from', file, ...FEW, '--json');
    expect(code).toBe(0);
    const { request, chosen } = JSON.parse(stdout);
    for (const [role, column] of [['input', 'input_tokens'], ['output', 'output_tokens']]) {
      expect(request.lengths[role]).toMatchObject({ spread: 'empirical', source: 'rag.csv (csv, 2,000 requests)' });
      expect(Math.abs(request.lengths[role].p99 / csvP99(file, column) - 1)).toBeLessThan(0.05);
    }
    // max_model_len covers the file's p99 of prompt + output, correlation included.
    expect(request.maxModelLength).toBe(request.lengths.totalP99);
    expect(chosen.generative.engine.maxModelLen).toBe(request.lengths.totalP99);
    expect(request.arrivals).toEqual({ scv: 1, source: 'Poisson arrivals (independent users; no timestamps given)' });
  });

  test('GIVEN a gateway log of OpenAI-style usage WHEN planned without --throughput THEN its lengths, its rate and its arrivals are the request\'s', async () => {
    // Planned for real by docs/generative-planning.md's example (npm run docs:examples); here the request is what counts,
    // and inf2.xlarge, which holds no replica, answers it at once.
    const { code, stdout } = await run(...LLAMA, '--lengths-from', join(EXAMPLES, 'gateway.jsonl'), '--instance-types', 'inf2.xlarge', '--no-estimates', '--json');
    expect(code).toBe(1);
    const { request } = JSON.parse(stdout);
    expect(request.lengths.input.source).toBe('gateway.jsonl (jsonl, 500 requests)');
    expect(request.targets.requestsPerSecond).toBeCloseTo(2.1, 1);
    expect(request.arrivals.source).toMatch(/^gateway\.jsonl: 500 arrival times \(created; arrivals sharing one spread over a second\)/);
  });

  test('GIVEN bursty timestamps WHEN planned THEN the request plans the gaps\' SCV, above 1.5, and the file\'s gaps (what it costs: test/lib/generative/traffic.test.ts)', async () => {
    // inf2.xlarge holds no Llama 3.1 8B replica: the plan stops at once, and its JSON still shows the request.
    const { code, stdout } = await run(...LLAMA, '--lengths-from', join(EXAMPLES, 'bursty.csv'), '--throughput', '2', '--instance-types', 'inf2.xlarge', '--no-estimates', '--json');
    expect(code).toBe(1);
    const { request, chosen } = JSON.parse(stdout);
    expect(chosen).toBeNull();
    expect(request.arrivals.scv).toBeGreaterThan(1.5);
    expect(request.arrivals.source).toMatch(/^bursty\.csv: 2,500 arrival times \(timestamp\)/);
    // Plans (and the proofs that read them) carry the arrivals in their targets, with the file's gaps.
    expect(request.targets.arrivals.gapQuantiles).toHaveLength(60);
  });

  test('GIVEN --workload code WHEN planned THEN it plans the code trace\'s lengths and names the trace', async () => {
    const { code, stdout } = await run(...LLAMA, '--throughput', '1', '--workload', 'code', '--instance-types', 'trn1.32xlarge', '--no-speculative-decoding', '--no-fp8');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Plan for llama-3\.1-8b-instruct: 1 requests\/s of 2048 \(p99 7435\) input and 28 \(p99 253\) output tokens/);
    expect(stdout.replace(/[\s│]+/g, ' ')).toContain('code workload spread). Spread of Azure LLM inference trace 2023, code service');
  });

  test('GIVEN a single-call model and bursty timestamps WHEN planned THEN an instance is planned for less, its rate the file\'s', async () => {
    const base = ['plan', '--model', 'bert-base-uncased', '--p99', '20', '--region', 'us-east-1', '--hosting', 'ec2', '--instance-types', 'inf2.xlarge', '--json'];
    const bursty = JSON.parse((await run(...base, '--lengths-from', join(EXAMPLES, 'bursty.csv'))).stdout).chosen;
    const poisson = JSON.parse((await run(...base, '--throughput', String(bursty.targets.throughputRps))).stdout).chosen;
    expect(bursty.targets.arrivals.scv).toBeGreaterThan(1.5);
    expect(bursty.targets.throughputRps).toBeCloseTo(4.05, 1);
    expect(bursty.capacityPerInstanceRps).toBeLessThan(poisson.capacityPerInstanceRps);
  });

  test.each([
    [['--lengths-from', 'rag.csv', '--input-tokens', '500', '--workload', 'chat'], 2,
      '--lengths-from rag.csv gives the prompt and output lengths whole (the file\'s own distribution); leave out --input-tokens, --workload'],
    [['--lengths-from', 'missing.csv'], 2, 'error: --lengths-from missing.csv: cannot read the file (ENOENT)'],
    [['--lengths-from', 'vllm-bench.json', '--throughput', '1', '--input-tokens', '100', '--output-tokens', '10', '--input-tokens-p99', '10000'], 2,
      "--lengths-from vllm-bench.json gives the prompt and output lengths whole (the file's own distribution); leave out --input-tokens, --input-tokens-p99, --output-tokens"],
    [['--input-tokens', '100', '--input-tokens-p99', '10000', '--output-tokens', '100', '--throughput', '1'], 2,
      'inputTokensP99=10000 is 100 x the mean (100); no lognormal holds a p99 above 14.97 x its mean (1496 here)'],
  ])('GIVEN %j WHEN planned THEN it is refused, exit %s, nothing on stdout', async (flags, exit, message) => {
    const argv = flags.map((f) => (/\.(csv|json|jsonl)$/.test(f) && f !== 'missing.csv' ? join(EXAMPLES, f) : f));
    const { code, stdout, stderr } = await run(...LLAMA, ...argv);
    expect(code).toBe(exit);
    expect(stdout).toBe('');
    expect(stderr.replace(EXAMPLES + '/', '')).toContain(message);
  });

  test('GIVEN a single-call model and a file without timestamps WHEN planned THEN it is refused with the fix', async () => {
    const { code, stderr } = await run('plan', '--model', 'bert-base-uncased', '--p99', '20', '--region', 'us-east-1', '--hosting', 'ec2', '--lengths-from', join(EXAMPLES, 'rag.csv'));
    expect(code).toBe(2);
    expect(stderr).toContain('a single-call plan reads only arrival times from the file, and it has too few (under 101) or none');
  });
});
