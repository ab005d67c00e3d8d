import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as s3 from 'aws-cdk-lib/aws-s3';
import { ModelData } from '../../../constructs/model/model-data';
import { applyPolicyChecks } from '../../../constructs/nag';
import { uploadStorageMiB } from '../../../constructs/model/private/data-directory';
import { InputError } from '../../../lib/errors';
import { failedRuleAssertions } from '../../support/cfn-rules';
import { nagFindings } from '../../support/nag';

const BUCKET = 'NeuronModelDataBucket20CC98DB';
const KEY = 'NeuronModelDataKey5FF39C7C';
const ACCESS_LOGS = 'NeuronModelDataAccessLogs9DF9E5C4';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'model-data-test-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A model directory with the given files (name -> content). */
function modelDir(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(scratch, 'model-'));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), content);
  }
  return dir;
}

function newStack(app = new App({ outdir: fs.mkdtempSync(path.join(scratch, 'out-')) })): Stack {
  return new Stack(app, 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
}

function newRole(stack: Stack, id = 'Role'): iam.Role {
  return new iam.Role(stack, id, { assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com') });
}

function statementsOf(stack: Stack, roleId: string): unknown[] {
  const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy', {
    Properties: { Roles: [{ Ref: Match.stringLikeRegexp(`^${roleId}`) }] },
  });
  return Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement);
}

const MODEL = { 'model.pt': 'weights', 'code/inference.py': 'def model_fn(d): pass\n' };

describe('ModelData.fromAsset with the default bucket', () => {
  // GIVEN
  const stack = newStack();
  const role = newRole(stack);
  // WHEN
  const config = ModelData.fromAsset(modelDir(MODEL)).bind(stack, role);
  const template = Template.fromStack(stack);
  const hash = config.fingerprint!;

  test('exposes a content hash and an uncompressed prefix named after it', () => {
    // THEN
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stack.resolve(config.s3Uri)).toEqual({ 'Fn::Join': ['', ['s3://', { Ref: BUCKET }, `/models/${hash}/`]] });
  });

  test('uploads the extracted files to that prefix with a BucketDeployment the Model must wait for', () => {
    // THEN
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      SourceBucketNames: [Match.anyValue()],
      SourceObjectKeys: [Match.stringLikeRegexp('\\.zip$')],
      DestinationBucketName: { Ref: BUCKET },
      DestinationBucketKeyPrefix: `models/${hash}/`,
      Extract: true,
      Prune: false,
      RetainOnDelete: true,
    });
    expect(config.dependable).toBeDefined();
    expect(config.dependable).toBe(stack.node.findChild('ModelData').node.findChild('Upload'));
  });

  test('grants read on that prefix only, listing under it only, and decrypt through S3 on the bucket key', () => {
    // THEN
    expect(statementsOf(stack, 'Role')).toEqual([
      {
        Effect: 'Allow',
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [BUCKET, 'Arn'] }, `/models/${hash}/*`]] },
      },
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: { 'Fn::GetAtt': [BUCKET, 'Arn'] },
        Condition: { StringLike: { 's3:prefix': [`models/${hash}/*`] } },
      },
      {
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: { 'Fn::GetAtt': [KEY, 'Arn'] },
        Condition: { StringEquals: { 'kms:ViaService': 's3.us-east-1.amazonaws.com' } },
      },
    ]);
  });

  test('defines a KMS-encrypted, versioned, private, logged bucket that is retained', () => {
    // THEN
    template.hasResource('AWS::S3::Bucket', {
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: Match.objectLike({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{
            BucketKeyEnabled: true,
            ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [KEY, 'Arn'] } },
          }],
        },
        VersioningConfiguration: { Status: 'Enabled' },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true,
        },
        OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
        LoggingConfiguration: { DestinationBucketName: { Ref: ACCESS_LOGS }, LogFilePrefix: 'model-bucket/' },
      }),
    });
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain' });
  });

  test('denies requests without TLS on both buckets and lets only S3 logging write the access logs', () => {
    // THEN
    for (const bucket of [BUCKET, ACCESS_LOGS]) {
      template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucket },
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({
            Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          })]),
        },
      });
    }
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: ACCESS_LOGS },
      PolicyDocument: {
        Statement: Match.arrayWith([{
          Sid: 'S3ServerAccessLogsFromModelBucket',
          Effect: 'Allow',
          Principal: { Service: 'logging.s3.amazonaws.com' },
          Action: 's3:PutObject',
          Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [ACCESS_LOGS, 'Arn'] }, '/model-bucket/*']] },
          Condition: {
            ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [BUCKET, 'Arn'] } },
            StringEquals: { 'aws:SourceAccount': '111111111111' },
          },
        }]),
      },
    });
  });

  test('never deletes objects on stack deletion', () => {
    // THEN
    template.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
    template.hasResource('AWS::S3::Bucket', { Properties: Match.objectLike({ BucketEncryption: Match.anyValue() }), DeletionPolicy: 'Retain' });
  });

  test('keeps the logical ids of the bucket, its key and its access-log bucket stable', () => {
    // THEN: these hold the model files; renaming them replaces stateful resources.
    expect(Object.keys(template.findResources('AWS::S3::Bucket')).sort()).toEqual([ACCESS_LOGS, BUCKET].sort());
    expect(Object.keys(template.findResources('AWS::KMS::Key'))).toEqual([KEY]);
  });
});

describe('ModelData.fromAsset when the files change', () => {
  test('gives a new fingerprint and a new prefix', () => {
    // GIVEN
    const before = newStack();
    const after = newStack();
    // WHEN
    const one = ModelData.fromAsset(modelDir(MODEL)).bind(before, newRole(before));
    const two = ModelData.fromAsset(modelDir({ ...MODEL, 'model.pt': 'retrained weights' })).bind(after, newRole(after));
    // THEN
    expect(two.fingerprint).not.toEqual(one.fingerprint);
    expect(JSON.stringify(after.resolve(two.s3Uri))).toContain(`/models/${two.fingerprint}/`);
  });

  test('keeps the fingerprint when nothing changed', () => {
    // GIVEN
    const first = newStack();
    const second = newStack();
    // WHEN
    const one = ModelData.fromAsset(modelDir(MODEL)).bind(first, newRole(first));
    const two = ModelData.fromAsset(modelDir(MODEL)).bind(second, newRole(second));
    // THEN
    expect(two.fingerprint).toEqual(one.fingerprint);
  });
});

describe('ModelData.fromAsset bound several times in one stack', () => {
  test('uploads a model once however many roles read it, and shares the bucket between models', () => {
    // GIVEN
    const stack = newStack();
    const bert = ModelData.fromAsset(modelDir(MODEL));
    const roberta = ModelData.fromAsset(modelDir({ 'model.pt': 'roberta' }));
    // WHEN
    const a = bert.bind(stack, newRole(stack, 'A'));
    const b = bert.bind(stack, newRole(stack, 'B'));
    roberta.bind(stack, newRole(stack, 'C'));
    // THEN
    const template = Template.fromStack(stack);
    expect(a.s3Uri).toEqual(b.s3Uri);
    expect(a.dependable).toBe(b.dependable);
    template.resourceCountIs('Custom::CDKBucketDeployment', 2);
    template.resourceCountIs('AWS::S3::Bucket', 2);
    expect(stack.node.tryFindChild('ModelData2')).toBeDefined();
  });
});

describe('ModelData.fromAsset with a bucket and prefix of the user', () => {
  test('uploads under <prefix><hash>/ in that bucket and defines no bucket of its own', () => {
    // GIVEN
    const stack = newStack();
    const bucket = s3.Bucket.fromBucketName(stack, 'Models', 'team-models');
    // WHEN
    const config = ModelData.fromAsset(modelDir(MODEL), { bucket, prefix: 'bert/' }).bind(stack, newRole(stack));
    // THEN
    const template = Template.fromStack(stack);
    expect(stack.resolve(config.s3Uri)).toBe(`s3://team-models/bert/${config.fingerprint}/`);
    template.resourceCountIs('AWS::S3::Bucket', 0);
    template.hasResourceProperties('Custom::CDKBucketDeployment', {
      DestinationBucketName: 'team-models',
      DestinationBucketKeyPrefix: `bert/${config.fingerprint}/`,
    });
    expect(statementsOf(stack, 'Role')).toContainEqual({
      Effect: 'Allow',
      Action: 's3:GetObject',
      Resource: { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, `:s3:::team-models/bert/${config.fingerprint}/*`]] },
    });
  });
});

describe('ModelData.fromAsset validation', () => {
  test('names a path that does not exist', () => {
    // GIVEN
    const missing = path.join(scratch, 'no-such-model');
    // WHEN / THEN
    expect(() => ModelData.fromAsset(missing)).toThrow(InputError);
    expect(() => ModelData.fromAsset(missing))
      .toThrow(`ModelData.fromAsset(path): path=${JSON.stringify(missing)} does not exist; pass the directory`);
  });

  test('rejects a file, naming it and asking for its directory', () => {
    // GIVEN
    const file = path.join(modelDir(MODEL), 'model.pt');
    // WHEN / THEN
    expect(() => ModelData.fromAsset(file)).toThrow(`path=${JSON.stringify(file)} is a file, not a directory`);
  });

  test('rejects an empty directory', () => {
    // GIVEN
    const empty = fs.mkdtempSync(path.join(scratch, 'empty-'));
    // WHEN / THEN
    expect(() => ModelData.fromAsset(empty)).toThrow(`path=${JSON.stringify(empty)} contains no files`);
  });

  test('resolves a relative path and shows both forms', () => {
    // GIVEN
    const relative = path.relative(process.cwd(), path.join(scratch, 'missing-relative'));
    // WHEN / THEN
    expect(() => ModelData.fromAsset(relative))
      .toThrow(`path=${JSON.stringify(relative)} (${path.resolve(relative)}) does not exist`);
  });

  test('rejects a directory too large for the upload Lambda and points to fromBucket', () => {
    // GIVEN: a sparse 6 GiB file takes no disk space
    const dir = fs.mkdtempSync(path.join(scratch, 'huge-'));
    fs.closeSync(fs.openSync(path.join(dir, 'model.pt'), 'w'));
    fs.truncateSync(path.join(dir, 'model.pt'), 6 * 1024 ** 3);
    // WHEN / THEN
    expect(() => ModelData.fromAsset(dir)).toThrow(/holds 6\.0 GiB, more than the upload Lambda can unpack/);
    expect(() => ModelData.fromAsset(dir)).toThrow(/use ModelData\.fromBucket\(bucket, 'PREFIX\/'\)/);
  });

  test('reports a bad path and a bad prefix together', () => {
    // WHEN
    const reference = () => ModelData.fromAsset(path.join(scratch, 'nope'), { prefix: 'models' });
    // THEN
    expect(reference).toThrow(/2 problems/);
    expect(reference).toThrow(/prefix="models" must end with '\/'/);
  });
});

describe('The upload Lambda storage', () => {
  test.each([
    [0, 512],
    [1024 ** 2, 1024],
    [1024 ** 3, 3072],
    [4.7 * 1024 ** 3, 10240],
    [5 * 1024 ** 3, 11264],
  ])('for %d bytes is %d MiB', (bytes, mib) => {
    // WHEN / THEN: zip plus extraction side by side, plus 512 MiB, in whole GiB.
    expect(uploadStorageMiB(bytes)).toBe(mib);
  });
});

describe('ModelData.fromBucket', () => {
  test('points at the prefix and grants read there, with decrypt through S3 when the bucket has a key', () => {
    // GIVEN
    const stack = newStack();
    const key = new kms.Key(stack, 'TeamKey', { enableKeyRotation: true });
    const bucket = new s3.Bucket(stack, 'Team', { encryptionKey: key, enforceSSL: true });
    // WHEN
    const config = ModelData.fromBucket(bucket, 'bert/v3/').bind(stack, newRole(stack));
    // THEN
    expect(stack.resolve(config.s3Uri)).toEqual({ 'Fn::Join': ['', ['s3://', { Ref: 'Team8E98563C' }, '/bert/v3/']] });
    expect(config.dependable).toBeUndefined();
    expect(config.fingerprint).toBeUndefined();
    expect(statementsOf(stack, 'Role')).toEqual([
      { Effect: 'Allow', Action: 's3:GetObject', Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': ['Team8E98563C', 'Arn'] }, '/bert/v3/*']] } },
      {
        Effect: 'Allow',
        Action: 's3:ListBucket',
        Resource: { 'Fn::GetAtt': ['Team8E98563C', 'Arn'] },
        Condition: { StringLike: { 's3:prefix': ['bert/v3/*'] } },
      },
      {
        Effect: 'Allow',
        Action: 'kms:Decrypt',
        Resource: { 'Fn::GetAtt': ['TeamKeyFB11FE16', 'Arn'] },
        Condition: { StringEquals: { 'kms:ViaService': 's3.us-east-1.amazonaws.com' } },
      },
    ]);
    Template.fromStack(stack).resourceCountIs('Custom::CDKBucketDeployment', 0);
  });

  test('grants nothing on KMS for a bucket without a key', () => {
    // GIVEN
    const stack = newStack();
    const bucket = s3.Bucket.fromBucketName(stack, 'Imported', 'team-models');
    // WHEN
    ModelData.fromBucket(bucket, 'bert/').bind(stack, newRole(stack));
    // THEN
    const actions = statementsOf(stack, 'Role').map((s) => (s as { Action: string }).Action);
    expect(actions).toEqual(['s3:GetObject', 's3:ListBucket']);
  });

  test.each([
    ['bert', /prefix="bert" must end with '\/', or it also matches keys such as "bert-old\/"; use "bert\/"/],
    ['/bert/', /prefix="\/bert\/" starts with '\/'; S3 keys have no leading slash, use "bert\/"/],
    ['s3://team-models/bert/', /prefix="s3:\/\/team-models\/bert\/" is a URI; pass only the key prefix/],
    ['', /prefix="" is the whole bucket; put the model files under a prefix/],
  ])('rejects the prefix %j, naming the fix', (prefix, message) => {
    // GIVEN
    const bucket = s3.Bucket.fromBucketName(newStack(), 'Imported', 'team-models');
    // WHEN / THEN
    expect(() => ModelData.fromBucket(bucket, prefix)).toThrow(InputError);
    expect(() => ModelData.fromBucket(bucket, prefix)).toThrow(message);
  });
});

describe('ModelData and cdk-nag', () => {
  test('leave no finding: the upload Lambda and the prefix wildcard are acknowledged, each by its exact id', () => {
    // GIVEN
    const app = new App({ outdir: fs.mkdtempSync(path.join(scratch, 'out-')) });
    const stack = newStack(app);
    // WHEN
    ModelData.fromAsset(modelDir(MODEL)).bind(stack, newRole(stack));
    applyPolicyChecks(app);
    // THEN
    expect(nagFindings(app, { plugins: ['AwsSolutions', 'Neuron'] })).toEqual([]);
  });

  test('acknowledge only the model prefix: another wildcard on the same role is still reported', () => {
    // GIVEN
    const app = new App({ outdir: fs.mkdtempSync(path.join(scratch, 'out-')) });
    const stack = newStack(app);
    const role = newRole(stack);
    const bucket = s3.Bucket.fromBucketName(stack, 'Imported', 'team-models');
    // WHEN
    ModelData.fromBucket(bucket, 'bert/').bind(stack, role);
    bucket.grantRead(role, 'other/*');
    applyPolicyChecks(app);
    // THEN
    expect(nagFindings(stack, { plugins: ['AwsSolutions'] }).map((f) => f.ruleId)).toEqual([
      'AwsSolutions-IAM5[Action::s3:GetBucket*]',
      'AwsSolutions-IAM5[Action::s3:GetObject*]',
      'AwsSolutions-IAM5[Action::s3:List*]',
      'AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:s3:::team-models/other/*]',
    ]);
  });
});

describe('ModelData.fromAsset with files the handler loads', () => {
  test('refuses the deploy and warns naming the missing files, while synth keeps working', () => {
    // GIVEN a directory with only the handler, like the example before the model is compiled
    const stack = newStack();
    const dir = modelDir({ 'code/inference.py': 'def model_fn(d): pass\n', 'vocab.txt': '[PAD]\n' });
    // WHEN
    ModelData.fromAsset(dir, { requiredFiles: ['model.pt', 'vocab.txt', 'tokenizer_config.json', 'code/inference.py'] })
      .bind(stack, newRole(stack));
    const template = Template.fromStack(stack).toJSON();
    // THEN
    const expected = `Model data ${dir} lacks model.pt, tokenizer_config.json, which the model server loads at startup: `
      + 'the endpoint would fail its health check after 15-25 minutes of instance time and roll back. Put them in '
      + 'the directory (e.g. compile the model and save its tokenizer there), then synth again.';
    expect(failedRuleAssertions(template, { accountId: '111111111111', region: 'us-east-1' })).toEqual([expected]);
    expect(stack.node.metadata.filter((m) => m.type === 'aws:cdk:warning').map((m) => String(m.data)))
      .toEqual([expect.stringContaining(expected)]);
  });

  test('adds no rule when every file is there, a directory does not count as a file', () => {
    // GIVEN
    const stack = newStack();
    const dir = modelDir({ ...MODEL, 'tokenizer/x': 'y' });
    // WHEN
    ModelData.fromAsset(dir, { requiredFiles: ['model.pt', 'code/inference.py'] }).bind(stack, newRole(stack));
    const other = newStack();
    ModelData.fromAsset(dir, { requiredFiles: ['tokenizer'] }).bind(other, newRole(other));
    // THEN
    expect(Object.keys(Template.fromStack(stack).toJSON().Rules ?? {}).filter((id) => id.includes('ModelFilesMissing')))
      .toEqual([]);
    expect(failedRuleAssertions(Template.fromStack(stack).toJSON(), { accountId: '111111111111', region: 'us-east-1' }))
      .toEqual([]);
    expect(failedRuleAssertions(Template.fromStack(other).toJSON(), { accountId: '111111111111', region: 'us-east-1' }))
      .toEqual([expect.stringContaining('lacks tokenizer,')]);
  });

  test('rejects paths outside the directory, all at once', () => {
    // WHEN / THEN
    expect(() => ModelData.fromAsset(modelDir(MODEL), { requiredFiles: ['/etc/passwd', '../model.pt', ''] }))
      .toThrow(new InputError(['/etc/passwd', '../model.pt', ''].map((f) => 'ModelData.fromAsset(path, '
        + `{ requiredFiles }): ${JSON.stringify(f)} is not a path inside the model directory; give it relative to the `
        + "directory, '/' separated, e.g. 'model.pt' or 'code/inference.py'")));
  });
});
