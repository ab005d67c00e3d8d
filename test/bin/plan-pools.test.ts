import { runCli } from '../../bin/cli';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const BERT = ['plan', '--model', 'bert-base-uncased', '--throughput', '2000', '--p99', '10', '--region', 'us-east-1', '--hosting', 'sagemaker'];
/** The README's Llama 3.1 8B targets, at the mean lengths from measured rows only (the default spread plans for seconds). */
const LLAMA = [
  'plan', '--model', 'llama-3.1-8b-instruct', '--throughput', '2', '--input-tokens', '1024', '--output-tokens', '256',
  '--ttft-p99', '2000', '--tpot-p99', '60', '--region', 'us-east-1', '--hosting', 'sagemaker', '--fixed-lengths', '--no-estimates',
];

describe('plan --fallbacks', () => {
  test.each([['bert-base-uncased', BERT], ['llama-3.1-8b-instruct', LLAMA]])(
    'GIVEN %s on SageMaker WHEN planned with --fallbacks 2 --json THEN chosen.fallbacks has priorities 2 and 3 on other types',
    async (_model, argv) => {
      const { code, stdout } = await run(...argv, '--fallbacks', '2', '--json');
      expect(code).toBe(0);
      const { chosen, request } = JSON.parse(stdout);
      expect(request.options.fallbacks).toBe(2);
      const pools = chosen.fallbacks as Array<{ priority: number; instanceType: string; plan: { instanceType: string } }>;
      expect(pools.map((p) => p.priority)).toEqual([2, 3]);
      expect(pools.map((p) => p.instanceType)).not.toContain(chosen.instanceType);
      expect(new Set(pools.map((p) => p.instanceType)).size).toBe(2);
      expect(pools.every((p) => p.plan.instanceType === p.instanceType)).toBe(true);
      expect(chosen.mixedFleet).toMatchObject({ boundByPriority: expect.any(Number), worst: { priority: expect.any(Number) } });
    },
  );

  test('GIVEN --fallbacks 2 WHEN printed as tables THEN each pool shows its cost and the note what a fleet all on the worst pool costs', async () => {
    const { code, stdout } = await run(...BERT, '--fallbacks', '2');
    expect(code).toBe(0);
    const text = stdout.replace(/[\s│]+/g, ' ');
    expect(text).toContain('Instance pools (SageMaker provisions priority 1 first, then the next on insufficient capacity):');
    expect(text).toMatch(/ 1 ml\.inf2\.xlarge inf2 2 .* \$1\.98 compiled for it /);
    expect(text).toMatch(/ 2 ml\.\w+\.\w+ \w+ \d+ .* \$[\d.]+ (its own compile|priority 1's) /);
    expect(text).toMatch(/Mixed fleet: \d+ instance\(s\).* hold the targets whichever pools they come from/);
    expect(text).toMatch(/\$[\d.]+\/h if they all end up on priority \d \(\d+ x ml\.[\w.]+\), the most any pool costs\./);
  });

  test('GIVEN --fallbacks with EC2 hosting WHEN planned THEN it is refused with the SageMaker and ECS ways out', async () => {
    const { code, stderr } = await run(...BERT.map((a) => (a === 'sagemaker' ? 'ec2' : a)), '--fallbacks', '1');
    expect(code).not.toBe(0);
    expect(stderr).toContain("fallbacks=1 with hosting 'ec2': instance pools are a SageMaker endpoint feature");
    expect(stderr).toContain('docs/ecs.md');
  });
});
