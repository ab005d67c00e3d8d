import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ModelImage } from '../../../constructs/image/model-image';
import { NeuronInstanceType } from '../../../lib/catalog';
import { InputError } from '../../../lib/errors';
import { VLLM_DLC_PINS } from '../../../lib/generative/engine-image';
import type { VllmReplicaConfig } from '../../../lib/generative/engine-config';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const TRN2 = NeuronInstanceType.of('trn2.48xlarge');

function newStack(app = new App()): Stack {
  return new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-2' } });
}

function newRole(stack: Stack, id = 'Role'): iam.Role {
  return new iam.Role(stack, id, { assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com') });
}

const REPLICA: VllmReplicaConfig = {
  index: 1, port: 8080, devices: ['/dev/neuron4'], visibleCores: '16-31',
  args: ['/opt/ml/model', '--served-model-name=llama', '--tensor-parallel-size=16', '--port=8080'],
  environment: { NEURON_LOGICAL_NC_CONFIG: '2' },
};

describe('ModelImage.fromNeuronVllm wraps the Neuron vLLM DLC, built at deploy time FROM it by digest', () => {
  // GIVEN the pinned Trn2 image WHEN bound to a Trn2 instance
  const app = new App();
  const stack = newStack(app);
  const image = ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.trn2.tag, digest: DIGEST });
  const config = image.bind(stack, newRole(stack), TRN2);
  const again = image.bind(stack, newRole(stack, 'Other'), TRN2);
  const assembly = app.synth();
  const manifest = JSON.parse(readFileSync(path.join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8'));
  const dockerImages = Object.values(manifest.dockerImages) as Array<{ source: Record<string, unknown> }>;

  test('THEN it is a vLLM image with the SDK and vLLM version of its tag', () => {
    expect(image.vllmEngine).toBe(true);
    expect(image.modelServer).toBe(false);
    expect(image.neuronSdkVersion).toBe('2.33.0');
    expect(config.vllm).toMatchObject({ neuronSdkVersion: '2.33.0', vllmVersion: '0.29.0.1.2.0', command: ['serve'], healthCheckPath: '/health' });
    expect(ModelImage.fromServer({ tag: '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04', digest: DIGEST }).vllmEngine).toBe(false);
  });

  test('THEN one Docker asset (two binds) builds for linux/amd64 FROM ECR Public by digest, with only the wrapper files', () => {
    expect(dockerImages).toHaveLength(1);
    expect(again.imageUri).toBe(config.imageUri);
    expect(dockerImages[0].source).toMatchObject({
      dockerBuildArgs: { BASE_IMAGE: `public.ecr.aws/neuron/pytorch-inference-vllm-neuronx@${DIGEST}` },
      dockerFile: 'vllm/Dockerfile',
      platform: 'linux/amd64',
    });
    const staged = path.join(assembly.directory, dockerImages[0].source.directory as string);
    expect(readdirSync(staged).sort()).toEqual(['__init__.py', 'linewriter.py', 'neuron_monitor.py', 'vllm']);
    expect(readdirSync(path.join(staged, 'vllm')).sort()).toEqual(['Dockerfile', '__init__.py', 'cores_seen.py', 'engine_metrics.py', 'entrypoint.sh', 'launch.py', 'pool_header.py']);
  });

  test('THEN the binding renders a replica\'s environment: engine variables, arguments as JSON, metrics target', () => {
    const environment = config.vllm!.environment(REPLICA, { namespace: 'CdkInferentia/GenerativeEngine', service: 'llama' });
    expect(environment).toEqual({
      NEURON_LOGICAL_NC_CONFIG: '2',
      CDK_INFERENTIA_VLLM_ARGS: JSON.stringify(REPLICA.args),
      CDK_INFERENTIA_VLLM_PORT: '8080',
      ENGINE_METRICS_NAMESPACE: 'CdkInferentia/GenerativeEngine',
      ENGINE_METRICS_SERVICE: 'llama',
      ENGINE_METRICS_REPLICA: '1',
      ENGINE_METRICS_INTERVAL_S: '10',
    });
    const long = { ...REPLICA, args: [...REPLICA.args, `--served-model-name=${'x'.repeat(1024)}`] };
    expect(() => config.vllm!.environment(long, { namespace: 'N', service: 's' })).toThrow(/over the 1024 SageMaker accepts/);
  });

  test('THEN synth says where the image comes from', () => {
    Annotations.fromStack(stack).hasInfo('*', Match.stringLikeRegexp('builds the vLLM image FROM public.ecr.aws/neuron/pytorch-inference-vllm-neuronx@sha256:'));
  });
});

describe('ModelImage.fromNeuronVllm refuses what cannot serve', () => {
  test('GIVEN an SDK newer than 2.28 on Inf2 or Trn1 WHEN bound THEN the error names the limit and the pinned tag', () => {
    const stack = newStack();
    const image = ModelImage.fromNeuronVllm({ tag: '0.16.0-neuronx-py312-sdk2.29.1-ubuntu24.04', digest: DIGEST });
    for (const instance of [NeuronInstanceType.INF2_48XLARGE, NeuronInstanceType.TRN1_32XLARGE]) {
      expect(() => image.bind(stack, newRole(stack, `Role-${instance.spec.family}`), instance)).toThrow(
        new RegExp(`SDK 2\\.29\\.1, but NxD Inference runs on ${instance.spec.family} only up to SDK 2\\.28 .*use ${VLLM_DLC_PINS.inf2Trn1.tag.replace(/\./g, '\\.')}`));
    }
    expect(() => ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.inf2Trn1.tag, digest: DIGEST })
      .bind(stack, newRole(stack), NeuronInstanceType.INF2_48XLARGE)).not.toThrow();
  });

  test('GIVEN a plugin image on Inf2, an NxD Inference image on Trn2, an old plugin, an old V0 image or Inf1 WHEN bound THEN each is refused with the reason', () => {
    const stack = newStack();
    let roles = 0;
    const bind = (tag: string, instance: NeuronInstanceType) =>
      () => ModelImage.fromNeuronVllm({ tag, digest: DIGEST }).bind(stack, newRole(stack, `Role${roles++}`), instance);
    expect(bind('0.24.0.1.1.0-neuronx-py313-sdk2.32.0-ubuntu24.04', TRN2)).not.toThrow();
    expect(bind('0.21.0.1.0.0-neuronx-py313-sdk2.31.1-ubuntu24.04', TRN2)).toThrow(/plugin 1\.0\.0, older than 1\.1\.0/);
    expect(bind('0.9.1-neuronx-py311-sdk2.26.1-ubuntu22.04', TRN2)).toThrow(/is an NxD Inference vLLM image, whose engine settings differ/);
    expect(bind(VLLM_DLC_PINS.trn2.tag, NeuronInstanceType.INF2_48XLARGE)).toThrow(/documented for Trn2 and Trn3 only .*inf2 runs vLLM over NxD Inference/);
    expect(bind('0.9.1-neuronx-py311-sdk2.26.1-ubuntu22.04', NeuronInstanceType.INF2_48XLARGE)).toThrow(/vLLM 0\.9\.1, older than the plugin releases/);
    expect(bind(VLLM_DLC_PINS.inf2Trn1.tag, NeuronInstanceType.INF1_XLARGE)).toThrow(/inf1 has no vLLM on Neuron/);
  });

  test('GIVEN a bad tag, digest or registry WHEN the image is made THEN every problem is named at once', () => {
    const error = (() => {
      try {
        ModelImage.fromNeuronVllm({ tag: 'latest', digest: 'v1', registry: 'https://example.com' });
      } catch (e) {
        return e as InputError;
      }
      throw new Error('no error');
    })();
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/tag="latest" is not a Neuron vLLM DLC tag/);
    expect(error.message).toMatch(/digest="v1" looks like a tag/);
    expect(error.message).toMatch(/registry="https:\/\/example.com" is not a registry/);
    expect(() => ModelImage.fromNeuronVllm({ tag: VLLM_DLC_PINS.trn2.tag, digest: undefined as unknown as string }))
      .toThrow(/digest is missing/);
  });
});
