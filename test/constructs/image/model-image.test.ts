import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ModelImage } from '../../../constructs/image/model-image';
import { ModelImageRepository } from '../../../constructs/image/model-image-repository';
import { NeuronInstanceType } from '../../../lib/catalog';
import { InputError } from '../../../lib/errors';
import { ECR_PULL_ACTIONS as PULL, ecrPullStatements } from '../../support/iam-policy';

const DIGEST = `sha256:${'0123456789abcdef'.repeat(4)}`;
const NEURONX_TAG = '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04';
const NEURON_TAG = '1.13.1-neuron-py310-sdk2.20.2-ubuntu20.04';

function newStack(region = 'us-east-1', app = new App()): Stack {
  return new Stack(app, `Stack-${region}`, { env: { account: '111111111111', region } });
}

function newRole(stack: Stack): iam.Role {
  return new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com') });
}

function policyStatements(stack: Stack): unknown[] {
  const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy');
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
}

function dlcRepositoryArn(region: string, account: string, repository: string): unknown {
  return { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:ecr:${region}:${account}:repository/${repository}`]] };
}

describe('ModelImage.fromRepository with a ModelImageRepository', () => {
  // GIVEN
  const stack = newStack();
  const images = new ModelImageRepository(stack, 'Images');
  const role = newRole(stack);
  // WHEN
  const config = ModelImage.fromRepository(images, DIGEST).bind(stack, role, NeuronInstanceType.INF2_XLARGE);

  test('returns the repository URI pinned by digest', () => {
    // THEN
    expect(stack.resolve(config.imageUri)).toEqual({
      'Fn::Join': ['', [
        { 'Fn::Select': [4, { 'Fn::Split': [':', { 'Fn::GetAtt': ['ImagesF8C4E866', 'Arn'] }] }] },
        '.dkr.ecr.',
        { 'Fn::Select': [3, { 'Fn::Split': [':', { 'Fn::GetAtt': ['ImagesF8C4E866', 'Arn'] }] }] },
        '.',
        { Ref: 'AWS::URLSuffix' },
        '/',
        { Ref: 'ImagesF8C4E866' },
        `@${DIGEST}`,
      ]],
    });
  });

  test('grants pull on that repository and decrypt through ECR on its key', () => {
    // THEN
    expect(policyStatements(stack)).toEqual(ecrPullStatements('ImagesF8C4E866', 'ImagesKey72752799'));
  });
});

describe('ModelImage.fromRepository with a plain ECR repository', () => {
  test('grants the ECR pull actions on that repository and the token, and nothing on KMS', () => {
    // GIVEN
    const stack = newStack();
    const repository = ecr.Repository.fromRepositoryName(stack, 'Imported', 'models/bert');
    const role = newRole(stack);
    // WHEN
    const config = ModelImage.fromRepository(repository, DIGEST).bind(stack, role, NeuronInstanceType.INF2_XLARGE);
    // THEN
    expect(JSON.stringify(stack.resolve(config.imageUri))).toContain(`/models/bert@${DIGEST}`);
    expect(policyStatements(stack)).toEqual([
      {
        Effect: 'Allow',
        Action: PULL,
        Resource: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':ecr:us-east-1:111111111111:repository/models/bert']],
        },
      },
      { Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
    ]);
  });
});

describe('ModelImage.fromRepository validation', () => {
  test.each([
    ['latest', /ModelImage\.fromRepository\(repository, digest\): digest="latest" looks like a tag, and tags can move/],
    [':v1', /digest=":v1" looks like a tag/],
    ['v1', /digest="v1" looks like a tag/],
    ['sha256:ABC', /digest="sha256:ABC" is not 'sha256:' followed by 64 lowercase hex digits/],
  ])('rejects %s, naming the prop and how to get the digest', (digest, message) => {
    // GIVEN
    const repository = ecr.Repository.fromRepositoryName(newStack(), 'Imported', 'models/bert');
    // WHEN
    const reference = () => ModelImage.fromRepository(repository, digest);
    // THEN
    expect(reference).toThrow(InputError);
    expect(reference).toThrow(message);
    expect(reference).toThrow(/docker inspect --format '\{\{index \.RepoDigests 0\}\}'.*aws ecr describe-images/);
  });
});

describe('ModelImage.fromNeuronDlc on Inf2 in two regions', () => {
  // GIVEN: two stacks with explicit regions whose DLC registry accounts differ.
  const app = new App();
  const east = newStack('us-east-1', app);
  const hyderabad = newStack('ap-south-2', app);
  const image = ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest: DIGEST });
  // WHEN
  const eastConfig = image.bind(east, newRole(east), NeuronInstanceType.INF2_XLARGE);
  const hyderabadConfig = image.bind(hyderabad, newRole(hyderabad), NeuronInstanceType.INF2_XLARGE);

  test('takes the registry account from the regional fact', () => {
    // THEN
    expect(eastConfig.imageUri).toBe(`763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx@${DIGEST}`);
    expect(hyderabadConfig.imageUri)
      .toBe(`772153158452.dkr.ecr.ap-south-2.amazonaws.com/pytorch-inference-neuronx@${DIGEST}`);
  });

  test('grants pull on exactly that repository, plus the token', () => {
    // THEN
    expect(policyStatements(east)).toEqual([
      { Effect: 'Allow', Action: PULL, Resource: dlcRepositoryArn('us-east-1', '763104351884', 'pytorch-inference-neuronx') },
      { Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
    ]);
    expect(policyStatements(hyderabad)).toEqual([
      { Effect: 'Allow', Action: PULL, Resource: dlcRepositoryArn('ap-south-2', '772153158452', 'pytorch-inference-neuronx') },
      { Effect: 'Allow', Action: 'ecr:GetAuthorizationToken', Resource: '*' },
    ]);
  });

  test('warns about nothing when the image is pinned by digest', () => {
    // THEN
    Annotations.fromStack(east).hasNoWarning('*', Match.anyValue());
  });
});

describe('ModelImage.fromNeuronDlc picks the repository from the instance family', () => {
  test('uses pytorch-inference-neuron on Inf1', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    const config = ModelImage.fromNeuronDlc({ tag: NEURON_TAG, digest: DIGEST })
      .bind(stack, newRole(stack), NeuronInstanceType.INF1_XLARGE);
    // THEN
    expect(config.imageUri).toBe(`763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuron@${DIGEST}`);
    expect(policyStatements(stack)).toContainEqual(
      { Effect: 'Allow', Action: PULL, Resource: dlcRepositoryArn('us-east-1', '763104351884', 'pytorch-inference-neuron') });
  });

  test('uses pytorch-inference-neuronx on Trn1', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    const config = ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest: DIGEST })
      .bind(stack, newRole(stack), NeuronInstanceType.TRN1_2XLARGE);
    // THEN
    expect(config.imageUri).toBe(`763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx@${DIGEST}`);
  });

  test('rejects a neuronx tag on Inf1, naming the tag, the instance and a tag that fits', () => {
    // GIVEN
    const stack = newStack();
    const role = newRole(stack);
    const image = ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest: DIGEST });
    // WHEN
    const bind = () => image.bind(stack, role, NeuronInstanceType.INF1_XLARGE);
    // THEN
    expect(bind).toThrow(InputError);
    expect(bind).toThrow(`tag ${NEURONX_TAG} is a neuronx (Inf2/Trn1/Trn2) image but the instance ml.inf1.xlarge is Inf1; `
      + `use pytorch-inference-neuron tags such as ${NEURON_TAG}`);
  });

  test('rejects a neuron tag on Inf2', () => {
    // GIVEN
    const stack = newStack();
    const role = newRole(stack);
    const image = ModelImage.fromNeuronDlc({ tag: NEURON_TAG });
    // WHEN
    const bind = () => image.bind(stack, role, NeuronInstanceType.INF2_8XLARGE);
    // THEN
    expect(bind).toThrow(`tag ${NEURON_TAG} is a neuron (Inf1) image but the instance ml.inf2.8xlarge is Inf2/Trn1/Trn2; `
      + `use pytorch-inference-neuronx tags such as ${NEURONX_TAG}`);
  });
});

describe('ModelImage.fromNeuronDlc without a digest', () => {
  test('references the tag and warns that the image is not pinned', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    const config = ModelImage.fromNeuronDlc({ tag: NEURONX_TAG }).bind(stack, newRole(stack), NeuronInstanceType.INF2_XLARGE);
    // THEN
    expect(config.imageUri).toBe(`763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx:${NEURONX_TAG}`);
    Annotations.fromStack(stack).hasWarning('/Stack-us-east-1', Match.stringLikeRegexp(
      `Neuron DLC pytorch-inference-neuronx:${NEURONX_TAG} is referenced by tag; pass its digest`));
  });
});

describe('ModelImage.fromNeuronDlc with a tag from an SDK that published no such image', () => {
  test('warns that the tag most likely does not exist', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    ModelImage.fromNeuronDlc({ tag: '2.9.0-neuronx-py312-sdk2.32.0-ubuntu24.04', digest: DIGEST })
      .bind(stack, newRole(stack), NeuronInstanceType.INF2_XLARGE);
    // THEN
    Annotations.fromStack(stack).hasWarning('/Stack-us-east-1', Match.stringLikeRegexp(
      'pytorch-inference-neuronx images are not published after Neuron SDK 2\\.31\\.x'));
  });

  test('accepts the last Inf1 SDK without a warning about it', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    ModelImage.fromNeuronDlc({ tag: NEURON_TAG, digest: DIGEST }).bind(stack, newRole(stack), NeuronInstanceType.INF1_XLARGE);
    // THEN
    Annotations.fromStack(stack).hasNoWarning('*', Match.anyValue());
  });
});

describe('ModelImage.fromNeuronDlc validation', () => {
  test('reports a bad tag and a bad digest together', () => {
    // WHEN
    const reference = () => ModelImage.fromNeuronDlc({ tag: 'latest', digest: 'latest' });
    // THEN
    expect(reference).toThrow(/2 problems/);
    expect(reference).toThrow(/tag="latest" is not a Neuron DLC tag \(\{framework version\}-\{neuron\|neuronx\}-py\{XY\}-sdk\{X\.Y\.Z\}-\{os\}\)/);
    expect(reference).toThrow(/fromNeuronDlc\(\{ digest \}\): digest="latest" looks like a tag/);
  });

  test('rejects a region without a known DLC registry, with the ways out', () => {
    // GIVEN
    const stack = newStack('il-central-1');
    const role = newRole(stack);
    const image = ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest: DIGEST });
    // WHEN
    const bind = () => image.bind(stack, role, NeuronInstanceType.INF2_XLARGE);
    // THEN
    expect(bind).toThrow(/region il-central-1 has no known AWS Deep Learning Containers registry/);
    expect(bind).toThrow(/use ModelImage\.fromRepository\(repository, digest\), or register the account with Fact\.register/);
  });
});

describe('ModelImage.fromNeuronDlc in a region-agnostic stack', () => {
  test('looks the registry account up at deploy time', () => {
    // GIVEN
    const stack = new Stack(new App(), 'Agnostic');
    // WHEN
    const config = ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest: DIGEST })
      .bind(stack, newRole(stack), NeuronInstanceType.INF2_XLARGE);
    // THEN
    const template = Template.fromStack(stack).toJSON();
    const mapping = Object.values(template.Mappings ?? {})[0] as Record<string, Record<string, string>>;
    expect(mapping['us-east-1']).toEqual({ value: '763104351884' });
    expect(mapping['ap-south-2']).toEqual({ value: '772153158452' });
    expect(JSON.stringify(stack.resolve(config.imageUri))).toContain('Fn::FindInMap');
  });
});

describe('ModelImage.fromServer builds serving/ on the Neuron DLC at deploy time', () => {
  // GIVEN
  const app = new App();
  const stack = newStack('us-west-2', app);
  const role = newRole(stack);
  const image = ModelImage.fromServer({ tag: NEURONX_TAG, digest: DIGEST });
  // WHEN
  const config = image.bind(stack, role, NeuronInstanceType.INF2_XLARGE);
  const assembly = app.synth();
  const manifest = JSON.parse(readFileSync(path.join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8'));
  const dockerImages = Object.values(manifest.dockerImages) as Array<{ source: Record<string, unknown> }>;

  test('THEN it is marked as the model server, with the SDK of its DLC tag', () => {
    expect(image.modelServer).toBe(true);
    expect(image.neuronSdkVersion).toBe('2.31.1');
    expect(ModelImage.fromNeuronDlc({ tag: NEURONX_TAG, digest: DIGEST }).modelServer).toBe(false);
  });

  test('THEN one Docker asset builds serving/ for linux/amd64 FROM the neuronx DLC by digest', () => {
    expect(dockerImages).toHaveLength(1);
    expect(dockerImages[0].source).toMatchObject({
      dockerBuildArgs: {
        BASE_IMAGE: `763104351884.dkr.ecr.us-west-2.amazonaws.com/pytorch-inference-neuronx@${DIGEST}`,
      },
      platform: 'linux/amd64',
    });
  });

  test('THEN the staged build context holds the server but not its tests or bytecode', () => {
    const staged = path.join(assembly.directory, dockerImages[0].source.directory as string);
    const files = readdirSync(staged);
    expect(files).toEqual(expect.arrayContaining(['Dockerfile', 'entrypoint.sh', 'frontend.py', 'worker.py']));
    expect(files).not.toContain('tests');
    expect(files).not.toContain('__pycache__');
  });

  test('THEN the image URI is the asset in the bootstrap repository, which the role may pull', () => {
    expect(stack.resolve(config.imageUri)).toEqual({
      'Fn::Sub': expect.stringMatching(/^\d+\.dkr\.ecr\.us-west-2\.\$\{AWS::URLSuffix\}\/cdk-hnb659fds-container-assets-\d+-us-west-2:[0-9a-f]{64}$/),
    });
    expect(policyStatements(stack)).toContainEqual(expect.objectContaining({
      Action: PULL,
      Resource: expect.objectContaining({ 'Fn::Join': expect.anything() }),
    }));
  });

  test('THEN synth says how to log Docker in to the DLC registry', () => {
    Annotations.fromStack(stack).hasInfo('*', Match.stringLikeRegexp(
      'aws ecr get-login-password --region us-west-2 \\| docker login --username AWS --password-stdin '
      + '763104351884\\.dkr\\.ecr\\.us-west-2\\.amazonaws\\.com',
    ));
  });
});

describe('ModelImage.fromServer with your handler carries the code, so the model data needs only the model', () => {
  // GIVEN a handler directory with a module and its requirements
  const handler = mkdtempSync(path.join(tmpdir(), 'handler-'));
  writeFileSync(path.join(handler, 'inference.py'), 'def model_fn(model_dir):\n    return None\n');
  writeFileSync(path.join(handler, 'requirements.txt'), 'transformers==4.44.0\n');
  const app = new App();
  const stack = newStack('us-west-2', app);
  // WHEN
  ModelImage.fromServer({ tag: NEURONX_TAG, digest: DIGEST, handler }).bind(stack, newRole(stack), NeuronInstanceType.INF2_XLARGE);
  const assembly = app.synth();
  const manifest = JSON.parse(readFileSync(path.join(assembly.directory, `${stack.artifactId}.assets.json`), 'utf8'));
  const [asset] = Object.values(manifest.dockerImages) as Array<{ source: { directory: string } }>;
  const staged = path.join(assembly.directory, asset.source.directory);

  test('THEN the build context holds the server and the handler under handler/, without the server tests', () => {
    expect(readdirSync(staged)).toEqual(expect.arrayContaining(['Dockerfile', 'frontend.py', 'handler']));
    expect(readdirSync(staged)).not.toContain('tests');
    expect(readdirSync(path.join(staged, 'handler')).sort()).toEqual(['inference.py', 'requirements.txt']);
  });

  test('THEN the Dockerfile copies it, installs its requirements and points the server at it', () => {
    const dockerfile = readFileSync(path.join(staged, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY handler/ /opt/cdk-inferentia/handler/');
    expect(dockerfile).toContain('RUN python3 -m pip install --no-cache-dir -r /opt/cdk-inferentia/handler/requirements.txt');
    expect(dockerfile).toContain('ENV MODEL_SERVER_CODE_DIR=/opt/cdk-inferentia/handler');
  });

  test('THEN the same sources stage to the same place, so the asset hash is stable', () => {
    const again = new App();
    const other = newStack('us-west-2', again);
    ModelImage.fromServer({ tag: NEURONX_TAG, digest: DIGEST, handler }).bind(other, newRole(other), NeuronInstanceType.INF2_XLARGE);
    const second = JSON.parse(readFileSync(path.join(again.synth().directory, `${other.artifactId}.assets.json`), 'utf8'));
    expect(Object.keys(second.dockerImages)).toEqual(Object.keys(manifest.dockerImages));
  });

  test('GIVEN a handler directory without a Python module THEN fromServer refuses it naming the directory', () => {
    const empty = mkdtempSync(path.join(tmpdir(), 'empty-'));
    expect(() => ModelImage.fromServer({ tag: NEURONX_TAG, digest: DIGEST, handler: empty }))
      .toThrow(/handler=".*empty-.*" holds no Python handler module/);
  });
});

describe('ModelImage.fromServer on Inf1', () => {
  test('GIVEN a neuron tag WHEN bound to inf1 THEN the build starts FROM pytorch-inference-neuron', () => {
    const app = new App();
    const stack = newStack('us-east-1', app);
    ModelImage.fromServer({ tag: NEURON_TAG, digest: DIGEST }).bind(stack, newRole(stack), NeuronInstanceType.INF1_XLARGE);
    const manifest = JSON.parse(readFileSync(path.join(app.synth().directory, `${stack.artifactId}.assets.json`), 'utf8'));
    expect(Object.values(manifest.dockerImages)).toEqual([expect.objectContaining({
      source: expect.objectContaining({
        dockerBuildArgs: { BASE_IMAGE: `763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuron@${DIGEST}` },
      }),
    })]);
  });
});

describe('ModelImage.fromServer refuses what it cannot build', () => {
  test('GIVEN a bad tag and a tag for a digest THEN one error names both, with the fix', () => {
    const reference = () => ModelImage.fromServer({ tag: 'latest', digest: 'v1' });
    expect(reference).toThrow(InputError);
    expect(reference).toThrow(/fromServer: tag="latest" is not a Neuron DLC tag[\s\S]*fromServer\(\{ digest \}\): digest="v1" looks like a tag/);
  });

  test('GIVEN no digest THEN it is refused: the build must start FROM a pinned DLC', () => {
    expect(() => ModelImage.fromServer({ tag: NEURONX_TAG } as never)).toThrow(/fromServer: digest is missing/);
  });

  test('GIVEN an Inf1 tag WHEN bound to inf2 THEN the instance mismatch is named', () => {
    const stack = newStack();
    expect(() => ModelImage.fromServer({ tag: NEURON_TAG, digest: DIGEST })
      .bind(stack, newRole(stack), NeuronInstanceType.INF2_XLARGE))
      .toThrow(/fromServer: tag 1\.13\.1-neuron-py310-sdk2\.20\.2-ubuntu20\.04 is a neuron \(Inf1\) image but the instance ml\.inf2\.xlarge/);
  });

  test('GIVEN a stack with no region THEN binding names the fix: a stack env with a region', () => {
    const stack = new Stack(new App(), 'Agnostic');
    expect(() => ModelImage.fromServer({ tag: NEURONX_TAG, digest: DIGEST })
      .bind(stack, newRole(stack), NeuronInstanceType.INF2_XLARGE))
      .toThrow(/fromServer: the stack Agnostic has no region at synth[\s\S]*env: \{ account, region \}/);
  });
});

describe('an image in your repository says what it runs', () => {
  const stack = new Stack(new App(), 'Images', { env: { account: '111111111111', region: 'us-east-1' } });
  const repository = new ModelImageRepository(stack, 'Repo');

  test('GIVEN no options THEN it is a stock image that needs no model data and whose SDK is unknown', () => {
    const image = ModelImage.fromRepository(repository, DIGEST);
    expect([image.modelServer, image.needsModelData, image.neuronSdkVersion]).toEqual([false, false, undefined]);
  });

  test('GIVEN modelServer and neuronSdkVersion THEN hostings see a model server image of that SDK', () => {
    const image = ModelImage.fromRepository(repository, DIGEST, { modelServer: true, neuronSdkVersion: '2.31.1' });
    expect([image.modelServer, image.needsModelData, image.neuronSdkVersion]).toEqual([true, false, '2.31.1']);
  });

  test('GIVEN a neuronSdkVersion that is not X.Y.Z THEN it is refused with the expected form', () => {
    expect(() => ModelImage.fromRepository(repository, DIGEST, { neuronSdkVersion: 'latest' }))
      .toThrow(/neuronSdkVersion="latest" is not a Neuron SDK version; pass it as X.Y.Z/);
  });
});
