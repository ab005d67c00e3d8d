import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { quietAwsSdkNodeWarning, runCli } from '../../bin/cli';

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

  test('WHEN --json THEN it prints request, chosen, alternatives, rejected and profile warnings with the promised fields', async () => {
    const { code, stdout } = await run(...bert, '--json');
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(Object.keys(report)).toEqual(['request', 'chosen', 'alternatives', 'rejected', 'hostWork', 'profileWarnings']);
    expect(report.chosen).toMatchObject({
      instanceType: 'ml.inf2.xlarge',
      hosting: 'sagemaker',
      processesPerInstance: 2,
      coresPerProcess: 1,
      batchSize: 1,
      inputsPerRequest: 1,
      serving: 'stock',
      batching: null,
      visibleCores: ['0', '1'],
    });
    // 5000 requests/s x 1.2 over the planned requests/s per instance.
    expect(report.chosen.instanceCount).toBe(Math.ceil((5000 * 1.2) / report.chosen.capacityPerInstanceRps - 1e-6));
    for (const field of ['p50Ms', 'p99Ms', 'predictedP99Ms', 'capacityPerInstanceRps', 'capacityRps', 'utilization', 'hourlyCostUsd', 'costPer1MRequestsUsd']) {
      expect(typeof report.chosen[field]).toBe('number');
    }
    expect(report.chosen.predictedP99Ms).toBeLessThanOrEqual(10);
  });

  test('WHEN --serving batching --hosting ec2 --inputs-per-request 2 THEN the plan batches requests of 2 inputs', async () => {
    const argv = ['plan', '--model', 'bert-base-uncased', '--throughput', '5000', '--p99', '50', '--region', 'us-east-1', '--hosting', 'ec2'];
    const { code, stdout } = await run(...argv, '--serving', 'batching', '--inputs-per-request', '2', '--json');
    expect(code).toBe(0);
    const { chosen } = JSON.parse(stdout);
    expect(chosen.serving).toBe('batching');
    expect(chosen.inputsPerRequest).toBe(2);
    const table = await run(...argv, '--serving', 'batching', '--inputs-per-request', '2');
    expect(table.stdout).toMatch(/5000 requests\/s of 2 inputs at p99 <= 50 ms/);
    expect(table.stdout).toMatch(/predicted p99 [\d.]+ ms at the target rate/);
  });

  test('the table shows the serving mode, capacity in requests/s and predicted p99', async () => {
    const { stdout } = await run(...bert);
    expect(stdout).toMatch(/stock on the model server \(host work overlapped with device calls\): one device call per request/);
    expect(stdout).toMatch(/requests\/s within p99 10 ms/);
    expect(stdout).toMatch(/requests\/s per instance/);
  });

  test('GIVEN an Inf1 plan THEN the Inf1 end of support stands beside the cost', async () => {
    const { code, stdout } = await run('plan', '--model', 'bert-base-uncased', '--throughput', '50', '--p99', '60', '--region', 'us-east-1', '--hosting', 'ec2', '--instance-types', 'inf1.xlarge');
    expect(code).toBe(0);
    expect(stdout).toMatch(/Inf1 support[\s│]+Inf1 is past Neuron end of support/);
  });

  test('GIVEN an impossible p99 THEN it exits 1 and says why per family', async () => {
    const { code, stderr } = await run('plan', '--model', 'bert-base-uncased', '--throughput', '100', '--p99', '1.5', '--region', 'us-east-1', '--hosting', 'ec2');
    expect(code).toBe(1);
    expect(stderr).toMatch(/inf2: .*measured p99 1.04 ms \+ 1 ms of host work per request exceeds the target 1.5 ms/);
  });

  test('GIVEN no plan fits and --json THEN stdout is still a JSON document with the reasons, exit 1', async () => {
    const { code, stdout } = await run('plan', '--model', 'bert-base-uncased', '--throughput', '100', '--p99', '1.5', '--region', 'us-east-1', '--hosting', 'ec2', '--json');
    expect(code).toBe(1);
    const doc = JSON.parse(stdout);
    expect(doc.chosen).toBeNull();
    expect(doc.reasons.some((r: string) => r.startsWith('inf2:'))).toBe(true);
    expect(doc.rejected.length).toBeGreaterThan(0);
    expect(doc.request.targets.p99Ms).toBe(1.5);
  });

  test.each([
    ['a non-numeric throughput', ['--throughput', 'fast'], /--throughput.*expected a decimal number/],
    ['a hexadecimal throughput', ['--throughput', '0x10'], /expected a decimal number, got '0x10'/],
    ['a zero throughput', ['--throughput', '0'], /expected a number above 0/],
    ['an unknown hosting', ['--hosting', 'eks'], /expected one of ec2, sagemaker, got 'eks'/],
    ['an unknown serving mode', ['--serving', 'fast'], /expected one of stock, batching, any, got 'fast'/],
    ['an unknown region', ['--region', 'moon-1'], /region='moon-1' is not an AWS region code/],
    ['a headroom given as a percentage', ['--headroom', '20'], /headroom=20 must be a fraction from 0 to 1.*for 20 % give 0.2/],
    ['an empty instance type list', ['--instance-types', ','], /instanceTypes is empty/],
    ['zero inputs per request', ['--inputs-per-request', '0'], /expected a whole number of 1 or more/],
    ['a pinned process count above the cores', ['--processes', '5', '--instance-types', 'inf2.xlarge'], /processesPerInstance=5 x 1 NeuronCores needs 5 but inf2.xlarge has 2/],
    ['an absurd throughput', ['--throughput', '1e300'], /more than 10,000 instances is not a plan/],
  ])('GIVEN %s THEN it exits with the reason', async (_name, override, message) => {
    const argv = [...bert];
    for (let i = 0; i < override.length; i += 2) {
      const at = argv.indexOf(override[i]);
      if (at >= 0) argv[at + 1] = override[i + 1];
      else argv.push(override[i], override[i + 1]);
    }
    const { code, stderr } = await run(...argv);
    expect(code).toBe(['--processes', '--throughput'].includes(override[0]) && !/decimal|above/.test(String(message)) ? 1 : 2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /); // never a stack trace
  });

  test("GIVEN --server neuron-dlc THEN the plan is made for a DLC's stock toolkit: fewer requests/s per instance, said in the table and in --json", async () => {
    const dlc = await run(...bert, '--server', 'neuron-dlc', '--json');
    const modelServer = await run(...bert, '--json');
    expect(dlc.code).toBe(0);
    const report = JSON.parse(dlc.stdout);
    expect(report.request.options.server).toBe('neuron-dlc');
    expect(report.chosen).toMatchObject({ serving: 'stock', server: 'neuron-dlc' });
    const chosen = JSON.parse(modelServer.stdout).chosen;
    expect(chosen.server).toBe('model-server');
    // bert-base-uncased's host work (1 ms) is as long as its batch-1 call: overlapping them nearly doubles a process's rate.
    expect(chosen.capacityPerInstanceRps).toBeGreaterThan(1.5 * report.chosen.capacityPerInstanceRps);
    const table = await run(...bert, '--server', 'neuron-dlc');
    expect(table.stdout).toMatch(/stock on a Neuron DLC's toolkit \(host work and device call one after the other\): one device call/);
  });

  test('GIVEN --server neuron-dlc with --serving batching, or an unknown server THEN it exits 2 naming the fix', async () => {
    const batching = await run(...bert, '--server', 'neuron-dlc', '--serving', 'batching');
    expect(batching.code).toBe(2);
    expect(batching.stderr).toMatch(/serving='batching' with server='neuron-dlc'.*--server model-server/);
    const unknown = await run(...bert, '--server', 'torchserve');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/--server.*torchserve.*model-server, neuron-dlc/);
    const help = await run('plan', '--help');
    expect(help.stdout.replace(/\s+/g, ' ')).toMatch(/--server <server> the server the plan is for \(default model-server\)/);
  });

  test('GIVEN a flag given twice THEN it exits 2 instead of silently taking the last value', async () => {
    const { code, stderr } = await run(...bert, '--throughput', '10');
    expect(code).toBe(2);
    expect(stderr).toMatch(/--throughput is given twice \(5000, then 10\); give it once/);
  });

  test('profile warnings are printed once, on stderr, and carried in --json', async () => {
    const argv = ['plan', '--model', 'openai/clip-vit-base-patch32', '--throughput', '100', '--p99', '100', '--region', 'us-east-1', '--hosting', 'ec2'];
    const { code, stderr } = await run(...argv);
    expect(code).toBe(0);
    const lines = stderr.split('\n').filter((l) => l.startsWith('warning:'));
    expect(new Set(lines).size).toBe(lines.length);
    const json = JSON.parse((await run(...argv, '--json')).stdout);
    expect(json.profileWarnings.length).toBeGreaterThan(0);
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

describe('plan takes the host work per request as a measured input', () => {
  const vit = ['plan', '--model', 'google/vit-base-patch16-224', '--throughput', '100', '--p99', '5', '--region', 'us-east-1', '--hosting', 'sagemaker'];

  test('GIVEN the built-in ViT profile THEN the plan counts the measured image default and says where it comes from', async () => {
    const { code, stdout } = await run(...vit);
    expect(code).toBe(0);
    expect(stdout).toMatch(/host work\s+│ 3 ms of one vCPU per request, in the model process \(measured default for one 224x224 image/);
    const { stdout: json } = await run(...vit, '--json');
    expect(JSON.parse(json).hostWork).toEqual({ msPerRequest: 3, source: 'measured default for one 224x224 image (npm run bench:host-work, 2026-11-25)' });
  });

  test('GIVEN --host-ms-per-request 12 THEN there is no plan, and the reason is the host work alone, with the fix', async () => {
    const { code, stderr } = await run(...vit, '--host-ms-per-request', '12');
    expect(code).toBe(1);
    expect(stderr).toMatch(/host work alone exceeds the target/);
    expect(stderr).toMatch(/12 ms of host CPU per request \(--host-ms-per-request 12\) is at least the p99 target of 5 ms before any device time/);
    expect(stderr).toMatch(/measure it \(npm run bench:host-work.*pass --host-ms-per-request.*raise the p99 target above 13\.4 ms/);
  });

  test('GIVEN host work that fits alone but not with the call THEN each rejection says the call alone fits', async () => {
    const { stderr } = await run(...vit, '--host-ms-per-request', '4');
    expect(stderr).toMatch(/the call alone fits, the host work \(4 ms from --host-ms-per-request 4\) does not/);
  });

  test('GIVEN a lower measured host cost THEN the plan needs fewer instances', async () => {
    const count = async (ms: string) => JSON.parse((await run(...vit, '--host-ms-per-request', ms, '--json')).stdout).chosen.instanceCount;
    expect(await count('2')).toBeLessThan(await count('3'));
  });

  test('GIVEN a non-positive value THEN the flag is refused by name', async () => {
    const { code, stderr } = await run(...vit, '--host-ms-per-request', '0');
    expect(code).not.toBe(0);
    expect(stderr).toMatch(/--host-ms-per-request/);
  });
});

describe('plan works offline in every region with built-in prices', () => {
  test.each(['eu-west-1', 'ap-northeast-1', 'us-west-2'])('GIVEN %s on EC2 THEN a plan priced from the AWS price list', async (region) => {
    const { code, stdout } = await run('plan', '--model', 'bert-base-uncased', '--throughput', '500', '--p99', '20', '--region', region, '--hosting', 'ec2', '--json');
    expect(code).toBe(0);
    const { chosen } = JSON.parse(stdout);
    expect(chosen.region).toBe(region);
    expect(chosen.price).toMatchObject({ region, unverified: false, source: expect.stringMatching(/AWS Price List/) });
  });

  test('GIVEN SageMaker in eu-west-1 THEN it plans offline, the price marked ESTIMATE with its method, in the text and the JSON', async () => {
    const args = ['plan', '--model', 'bert-base-uncased', '--throughput', '500', '--p99', '20', '--region', 'eu-west-1', '--hosting', 'sagemaker'];
    const text = await run(...args);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/\/h on-demand ESTIMATE \(EC2 on-demand in eu-west-1 \([\d.]+ USD\/h\) x the SageMaker\/EC2 ratio/);
    expect(text.stderr).toMatch(/price \$[\d.]+\/h is an ESTIMATE .*catalog refresh --regions eu-west-1 --out prices\.json/);
    const json = await run(...args, '--json');
    expect(JSON.parse(json.stdout).chosen.price).toMatchObject({ region: 'eu-west-1', hosting: 'sagemaker', estimate: expect.stringMatching(/^EC2 on-demand in eu-west-1/) });
  });

  test('GIVEN SageMaker with --pricing ri-effective in us-east-1 THEN the error names the missing kind, not the region', async () => {
    const { code, stderr } = await run('plan', '--model', 'bert-base-uncased', '--throughput', '500', '--p99', '20', '--region', 'us-east-1',
      '--hosting', 'sagemaker', '--pricing', 'ri-effective');
    expect(code).toBe(2);
    expect(stderr).not.toMatch(/outside us-east-1/);
    expect(stderr).toContain('no source has ri-effective rates for SageMaker hosting in any region (the RI-effective rates built in are '
      + 'the Neuron performance pages\' EC2 ones)');
    expect(stderr).toMatch(/--pricing on-demand/);
  });
});

describe('the README\'s numbers', () => {
  test('GIVEN the README\'s plan command THEN the plan it describes is the one the planner prints', async () => {
    const readme = fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8').replace(/\s+/g, ' ');
    const command = /npx cdk-inferentia plan (--model bert-base-uncased [^`]*?--hosting sagemaker)/.exec(readme);
    expect(command).not.toBeNull();
    const { stdout } = await run('plan', ...command![1].replace(/\\ /g, '').split(' '), '--json');
    const chosen = JSON.parse(stdout).chosen;
    const m = /prints the chosen plan \((\d+) x (\S+), (\d+) processes of (\d+) NeuronCore each, (\w+) serving at batch (\d+), ([\d,]+) requests\/s per instance within p99 (\d+) ms, predicted p99 ([\d.]+) ms at ([\d,]+) requests\/s, autoscaling to (\d+)\)/.exec(readme);
    expect(m).not.toBeNull();
    const num = (s: string) => Number(s.replace(/,/g, ''));
    expect({
      count: num(m![1]), type: m![2], processes: num(m![3]), cores: num(m![4]), serving: m![5], batch: num(m![6]),
      perInstance: num(m![7]), p99: num(m![8]), predicted: num(m![9]), throughput: num(m![10]), max: num(m![11]),
    }).toEqual({
      count: chosen.instanceCount, type: chosen.instanceType, processes: chosen.processesPerInstance, cores: chosen.coresPerProcess,
      serving: chosen.serving, batch: chosen.batchSize, perInstance: Math.round(chosen.capacityPerInstanceRps), p99: chosen.targets.p99Ms,
      predicted: Math.round(chosen.predictedP99Ms * 10) / 10, throughput: chosen.targets.throughputRps, max: chosen.maxInstanceCount,
    });
    // The README speaks of requests/s throughout: a request may carry several inferences (--inputs-per-request).
    expect(readme).not.toMatch(/2,000 inferences\/s/);
  });
});

describe('the AWS SDK Node-version warning', () => {
  test('GIVEN no setting THEN the CLI turns it off; GIVEN the user\'s own setting THEN it is kept (the README says how to see it)', () => {
    const unset: NodeJS.ProcessEnv = {};
    quietAwsSdkNodeWarning(unset);
    expect(unset.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('true');
    const own: NodeJS.ProcessEnv = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'false' };
    quietAwsSdkNodeWarning(own);
    expect(own.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED).toBe('false');
    expect(fs.readFileSync(path.join(__dirname, '..', '..', 'README.md'), 'utf8')).toContain('AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED=false');
  });
});

describe('the cdk-inferentia executable, run as a user runs it', () => {
  test('GIVEN Node 20 and no AWS credentials WHEN compile calls AWS THEN exit 1 with one line, no SDK Node-version warning', () => {
    // Costs about 3 s: one tsx process. The warning comes from the first AWS SDK client, so only the real entry shows it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-noise-'));
    const spec = path.join(dir, 'spec.json');
    fs.writeFileSync(spec, JSON.stringify({ model: 'm', source: { hubModelId: 'm' }, task: 'feature-extraction', sequenceLength: 128,
      batchSizes: [1], chip: 'inf2', coresPerProcess: 1, neuronSdkVersion: '2.26.1' }));
    const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: dir, AWS_CONFIG_FILE: '/nonexistent', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
      AWS_EC2_METADATA_DISABLED: 'true' };
    const run = spawnSync(process.execPath, [path.join(__dirname, '..', '..', 'bin', 'cdk-inferentia.js'), 'compile', '--spec', spec,
      '--bucket', 'my-models', '--region', 'us-east-1', '--instance-profile', 'arn:aws:iam::123456789012:instance-profile/c',
      '--subnets', 'subnet-0a1b2c3d', '--security-groups', 'sg-0a1b2c3d'], { env, encoding: 'utf8', timeout: 60_000 });
    fs.rmSync(dir, { recursive: true, force: true });
    expect(run.status).toBe(1);
    expect(run.stderr).not.toMatch(/NodeVersionSupportWarning|Warning:/);
    expect(run.stderr).toMatch(/^hash [0-9a-f]+: s3:\/\/my-models\/compiled\/[0-9a-f]+\/\nerror: no AWS credentials found/);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(2);
  });
});
