/**
 * A Trn2 plan's compile job: the vLLM Neuron plugin's graphs compiled on a CPU host, not on the accelerator.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { GenerativeWeights, NeuronGenerativeCompileJob } from '../../../constructs/compile';
import { ModelImage } from '../../../constructs/image/model-image';
import { Catalog } from '../../../lib/catalog/catalog';
import { parsePriceFile } from '../../../lib/catalog/price-file';
import { renderGenerativeBootScript } from '../../../lib/compile/generative-script';
import { findGenerativeProfile, planGenerative } from '../../../lib/generative';
import { VLLM_DLC_PINS } from '../../../lib/generative/engine-image';

const DIGEST = `sha256:${'e'.repeat(64)}`;

describe('a Trn2 plan compiles on a CPU instance with the plugin\'s CPU compilation', () => {
  const catalog = Catalog.builtIn().withPriceFile(parsePriceFile({
    prices: [{ instanceType: 'trn2.48xlarge', region: 'us-west-2', hosting: 'ec2', usdPerHour: 1, source: 'test' }],
  }, 'prices.json'));
  const plan = planGenerative(findGenerativeProfile('llama-3.3-70b-instruct')!, {
    requestsPerSecond: 0.1, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 10_000, tpotP99Ms: 100,
  }, { region: 'us-west-2', hosting: 'ec2', instanceTypes: ['trn2.48xlarge'] }, catalog);
  const app = new App();
  const stack = new Stack(app, 'Trn2', { env: { account: '111111111111', region: 'us-west-2' } });
  const vpc = new ec2.Vpc(stack, 'Vpc', { maxAzs: 2, natGateways: 1 });
  const job = new NeuronGenerativeCompileJob(stack, 'Compile', {
    plan, vpc, image: ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.trn2.tag, digest: DIGEST }),
    weights: GenerativeWeights.fromS3Prefix(s3.Bucket.fromBucketName(stack, 'Weights', 'my-weights'), 'llama-3.3-70b/v1/'),
  });

  test('THEN the job launches R7i hosts on the ECS-optimized CPU AMI, and the spec carries the plugin settings and the target', () => {
    const resource = Object.values(Template.fromStack(stack).findResources('Custom::NeuronCompileJob'))[0];
    const config = JSON.stringify(resource.Properties.Config);
    expect(config).toContain('\\"instanceTypes\\":[\\"r7i.12xlarge\\",\\"r7i.16xlarge\\"]');
    expect(config).toContain('/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id');
    expect(job.spec.plugin).toEqual({
      target: 'trn2', cpuCompile: true,
      engine: expect.objectContaining({ block_size: 32, enable_prefix_caching: true, additional_config: expect.anything() }),
    });
  });

  test('THEN the boot script runs the container without Neuron devices (and passes shellcheck)', () => {
    const script = renderGenerativeBootScript({
      spec: job.spec, hash: job.hash, region: 'us-west-2', bucket: 'artifacts', artifactPrefix: 'compiled/abc/', attemptId: 'att-1',
      instanceType: 'r7i.12xlarge', image: `111111111111.dkr.ecr.us-west-2.amazonaws.com/vllm@${DIGEST}`,
      scriptS3Uri: 's3://assets/compile_generative.py', scriptSha256: 'a'.repeat(64), timeoutSeconds: 2700,
    });
    expect(script).toContain('# A CPU compile (the vLLM Neuron plugin\'s, for trn2): no Neuron device on this host.');
    expect(script).not.toContain('no /dev/neuron devices on');
  });
});
