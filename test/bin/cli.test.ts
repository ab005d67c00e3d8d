import { runCli } from '../../bin/cli';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

const bert = ['plan', '--model', 'bert-base-uncased', '--throughput', '5000', '--p99', '10', '--region', 'us-east-1', '--hosting', 'sagemaker'];

describe('the cdk-inferentia plan command', () => {
  test('GIVEN the README example THEN it exits 0 with the plan, the layout, alternatives and rejections', async () => {
    const { code, stdout, stderr } = await run(...bert);
    expect(code).toBe(0);
    expect(stdout).toMatch(/ml\.inf2\.xlarge/);
    expect(stdout).toMatch(/NEURON_RT_VISIBLE_CORES/);
    expect(stdout).toMatch(/Alternatives/);
    expect(stdout).toMatch(/Rejected/);
    expect(stderr).toMatch(/UNVERIFIED/);
  });

  test('WHEN --json THEN it prints request, chosen, alternatives and rejected with the promised fields', async () => {
    const { code, stdout } = await run(...bert, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(Object.keys(report)).toEqual(['request', 'chosen', 'alternatives', 'rejected']);
    expect(report.chosen).toMatchObject({
      instanceType: 'ml.inf2.xlarge',
      hosting: 'sagemaker',
      instanceCount: 3, // ceil(5000 x 1.2 / 2674.19)
      processesPerInstance: 2,
      coresPerProcess: 1,
      batchSize: 8,
      visibleCores: ['0', '1'],
    });
    expect(report.chosen.processes.map((p: { visibleCores: string }) => p.visibleCores)).toEqual(['0', '1']);
    for (const field of ['p50Ms', 'p99Ms', 'capacityRps', 'utilization', 'hourlyCostUsd', 'costPer1MInferencesUsd']) {
      expect(typeof report.chosen[field]).toBe('number');
    }
  });

  test('GIVEN an impossible p99 THEN it exits 1 and says why per family', async () => {
    const { code, stderr } = await run('plan', '--model', 'bert-base-uncased', '--throughput', '100', '--p99', '0.2', '--region', 'us-east-1', '--hosting', 'ec2');
    expect(code).toBe(1);
    expect(stderr).toMatch(/inf2: p99 target 0.2 ms is below the fastest measured p99 of bert-base-uncased \(1.04 ms on NeuronCore-v2, batch 1\)/);
  });

  test.each([
    ['a non-numeric throughput', ['--throughput', 'fast'], /--throughput.*expected a number/],
    ['a zero throughput', ['--throughput', '0'], /expected a number above 0/],
    ['an unknown hosting', ['--hosting', 'eks'], /Allowed choices are ec2, sagemaker/],
    ['an unknown region', ['--region', 'moon-1'], /region='moon-1' is not an AWS region code/],
    ['a pinned process count that does not divide any core count', ['--processes', '5', '--instance-types', 'inf2.xlarge'], /processesPerInstance=5 does not divide the 2 NeuronCores of inf2.xlarge; valid values: 1, 2/],
  ])('GIVEN %s THEN it exits with the reason', async (_name, override, message) => {
    const argv = [...bert];
    for (let i = 0; i < override.length; i += 2) {
      const at = argv.indexOf(override[i]);
      if (at >= 0) argv[at + 1] = override[i + 1];
      else argv.push(override[i], override[i + 1]);
    }
    const { code, stderr } = await run(...argv);
    expect(code).toBe(override[0] === '--processes' ? 1 : 2);
    expect(stderr).toMatch(message);
  });

  test('GIVEN an unknown model THEN it exits 2 naming the closest models', async () => {
    const { code, stderr } = await run('plan', '--model', 'bert-base', '--throughput', '10', '--p99', '10', '--region', 'us-east-1', '--hosting', 'ec2');
    expect(code).toBe(2);
    expect(stderr).toMatch(/unknown model 'bert-base'; known models: bert-base-cased/);
  });

  test('GIVEN a missing required flag THEN it exits 2', async () => {
    const { code, stderr } = await run('plan', '--model', 'bert-base-uncased');
    expect(code).toBe(2);
    expect(stderr).toMatch(/required option/);
  });

  test('--help exits 0', async () => {
    const { code, stdout } = await run('--help');
    expect(code).toBe(0);
    expect(stdout).toMatch(/plan/);
  });
});
