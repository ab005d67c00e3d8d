import { App, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { ModelImageRepository } from '../../../constructs/image/model-image-repository';
import { InputError } from '../../../lib/errors';
import { ecrPullStatements, expectRolePolicy } from '../../support/iam-policy';

const DIGEST = `sha256:${'ab12'.repeat(16)}`;

function newStack(): Stack {
  return new Stack(new App(), 'Stack', { env: { account: '111111111111', region: 'us-east-1' } });
}

function newRole(stack: Stack): iam.Role {
  return new iam.Role(stack, 'Puller', { assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com') });
}

describe('A ModelImageRepository with default props', () => {
  // GIVEN
  const stack = newStack();
  // WHEN
  new ModelImageRepository(stack, 'Images');
  const template = Template.fromStack(stack);

  test('scans on push, forbids moving tags, and encrypts with its own key', () => {
    // THEN
    template.hasResourceProperties('AWS::ECR::Repository', {
      ImageScanningConfiguration: { ScanOnPush: true },
      ImageTagMutability: 'IMMUTABLE',
      EncryptionConfiguration: {
        EncryptionType: 'KMS',
        KmsKey: { 'Fn::GetAtt': [Match.stringLikeRegexp('^ImagesKey'), 'Arn'] },
      },
    });
  });

  test('lets CloudFormation name the repository', () => {
    // THEN
    const repositories = template.findResources('AWS::ECR::Repository');
    expect(Object.values(repositories)[0].Properties.RepositoryName).toBeUndefined();
  });

  test('expires untagged images after 7 days and keeps the last 20 tagged images', () => {
    // THEN
    const repository = Object.values(template.findResources('AWS::ECR::Repository'))[0];
    const policy = JSON.parse(repository.Properties.LifecyclePolicy.LifecyclePolicyText);
    expect(policy.rules).toEqual([
      {
        rulePriority: 1,
        description: 'Expire untagged images after 7 days',
        selection: { tagStatus: 'untagged', countType: 'sinceImagePushed', countNumber: 7, countUnit: 'days' },
        action: { type: 'expire' },
      },
      {
        rulePriority: 2,
        description: 'Keep the last 20 tagged images',
        selection: { tagStatus: 'tagged', tagPatternList: ['*'], countType: 'imageCountMoreThan', countNumber: 20 },
        action: { type: 'expire' },
      },
    ]);
  });

  test('retains the repository and the key when they leave the stack', () => {
    // THEN
    template.hasResource('AWS::ECR::Repository', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    template.hasResource('AWS::KMS::Key', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
  });

  test('rotates its key', () => {
    // THEN
    template.hasResourceProperties('AWS::KMS::Key', { EnableKeyRotation: true });
  });

  test('keeps the logical ids of the repository and the key stable', () => {
    // THEN: renaming either replaces a stateful resource, so these ids are a contract.
    expect(Object.keys(template.findResources('AWS::ECR::Repository'))).toEqual(['ImagesF8C4E866']);
    expect(Object.keys(template.findResources('AWS::KMS::Key'))).toEqual(['ImagesKey72752799']);
  });

  test('defines no repository policy until a grant needs one', () => {
    // THEN
    const repository = Object.values(template.findResources('AWS::ECR::Repository'))[0];
    expect(repository.Properties.RepositoryPolicyText).toBeUndefined();
  });
});

describe('A ModelImageRepository with every prop set', () => {
  test('uses the given name, key, lifecycle counts and removal policy, and defines no key', () => {
    // GIVEN
    const stack = newStack();
    const key = new kms.Key(stack, 'TeamKey', { enableKeyRotation: true });
    // WHEN
    new ModelImageRepository(stack, 'Images', {
      repositoryName: 'models/bert-base',
      encryptionKey: key,
      maxTaggedImages: 5,
      untaggedImageExpiry: Duration.days(1),
      removalPolicy: RemovalPolicy.DESTROY,
    });
    // THEN
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::KMS::Key', 1);
    template.hasResource('AWS::ECR::Repository', {
      DeletionPolicy: 'Delete',
      Properties: Match.objectLike({
        RepositoryName: 'models/bert-base',
        EmptyOnDelete: Match.absent(),
        EncryptionConfiguration: { EncryptionType: 'KMS', KmsKey: { 'Fn::GetAtt': ['TeamKeyFB11FE16', 'Arn'] } },
      }),
    });
    const repository = Object.values(template.findResources('AWS::ECR::Repository'))[0];
    const rules = JSON.parse(repository.Properties.LifecyclePolicy.LifecyclePolicyText).rules;
    expect(rules.map((r: { selection: { countNumber: number } }) => r.selection.countNumber)).toEqual([1, 5]);
  });
});

describe('ModelImageRepository validation', () => {
  test('reports every bad prop in one error that names the prop, the value and the fix', () => {
    // GIVEN / WHEN
    const build = () => new ModelImageRepository(newStack(), 'Images', {
      repositoryName: 'Models/Bert',
      maxTaggedImages: 0,
      untaggedImageExpiry: Duration.hours(5),
    });
    // THEN
    expect(build).toThrow(InputError);
    expect(build).toThrow(/3 problems/);
    expect(build).toThrow(/repositoryName="Models\/Bert" is not a valid ECR repository name; use 2-256 lowercase/);
    expect(build).toThrow(/maxTaggedImages=0 must be a whole number of at least 1/);
    expect(build).toThrow(/untaggedImageExpiry=5 hours must be a whole number of days, at least 1/);
  });
});

describe('ModelImageRepository.imageUriForDigest', () => {
  // GIVEN
  const stack = newStack();
  const images = new ModelImageRepository(stack, 'Images');

  test('pins the image by digest', () => {
    // WHEN
    const uri = stack.resolve(images.imageUriForDigest(DIGEST));
    // THEN
    expect(JSON.stringify(uri)).toContain(`@${DIGEST}`);
    expect(JSON.stringify(uri)).toContain('.dkr.ecr.');
  });

  test.each([
    ['latest', /digest="latest" looks like a tag, and tags can move; deploy by digest/],
    [':v1', /digest=":v1" looks like a tag/],
    ['sha256:abc', /digest="sha256:abc" is not 'sha256:' followed by 64 lowercase hex digits/],
    [`111111111111.dkr.ecr.us-east-1.amazonaws.com/x@${DIGEST}`, /is a full image reference; pass only the digest after '@'/],
  ])('rejects %s with a message that says how to get the digest', (digest, message) => {
    // WHEN / THEN
    expect(() => images.imageUriForDigest(digest)).toThrow(message);
  });

  test('quotes the commands that print a digest', () => {
    // WHEN / THEN
    expect(() => images.imageUriForDigest('latest')).toThrow(/docker inspect --format '\{\{index \.RepoDigests 0\}\}'/);
    expect(() => images.imageUriForDigest('latest')).toThrow(/aws ecr describe-images --repository-name/);
  });
});

describe('ModelImageRepository.grantPull', () => {
  test('grants the three ECR read actions on this repository, the token on *, and decrypt through ECR on its key', () => {
    // GIVEN
    const stack = newStack();
    const images = new ModelImageRepository(stack, 'Images');
    const role = newRole(stack);
    // WHEN
    const grant = images.grantPull(role);
    // THEN
    expect(grant.success).toBe(true);
    expectRolePolicy(stack, 'Puller', ecrPullStatements('ImagesF8C4E866', 'ImagesKey72752799'));
  });
});

describe('ModelImageRepository.grantPullToAccounts', () => {
  test('lets the promotion accounts pull through the repository policy and decrypt through ECR in the key policy', () => {
    // GIVEN
    const stack = newStack();
    const images = new ModelImageRepository(stack, 'Images');
    // WHEN
    images.grantPullToAccounts(['222222222222', '333333333333']);
    // THEN
    const template = Template.fromStack(stack);
    const principals = {
      AWS: [
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::222222222222:root']] },
        { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::333333333333:root']] },
      ],
    };
    template.hasResourceProperties('AWS::ECR::Repository', {
      RepositoryPolicyText: {
        Statement: [{
          Sid: 'PullFromPromotionTargets',
          Effect: 'Allow',
          Principal: principals,
          Action: ['ecr:BatchCheckLayerAvailability', 'ecr:GetDownloadUrlForLayer', 'ecr:BatchGetImage'],
        }],
      },
    });
    template.hasResourceProperties('AWS::KMS::Key', {
      KeyPolicy: {
        Statement: Match.arrayWith([{
          Sid: 'DecryptImagesForPromotionTargets',
          Effect: 'Allow',
          Principal: principals,
          Action: 'kms:Decrypt',
          Resource: '*',
          Condition: { StringEquals: { 'kms:ViaService': 'ecr.us-east-1.amazonaws.com' } },
        }]),
      },
    });
  });

  test('rejects ids that are not 12 digits, duplicates and an empty list, naming each', () => {
    // GIVEN
    const images = new ModelImageRepository(newStack(), 'Images');
    // WHEN
    const grant = () => images.grantPullToAccounts(['12345', '222222222222', '222222222222', 'arn:aws:iam::1:root']);
    // THEN
    expect(grant).toThrow(/3 problems/);
    expect(grant).toThrow(/accountId="12345" is not a 12-digit AWS account id/);
    expect(grant).toThrow(/accountId="arn:aws:iam::1:root" is not a 12-digit AWS account id/);
    expect(grant).toThrow(/\["222222222222"\] appear more than once/);
    expect(() => images.grantPullToAccounts([])).toThrow(/accountIds=\[\] is empty/);
  });

  test('warns that an imported key needs its policy changed by hand', () => {
    // GIVEN
    const stack = newStack();
    const key = kms.Key.fromKeyArn(stack, 'Imported', 'arn:aws:kms:us-east-1:111111111111:key/1234abcd-12ab-34cd-56ef-1234567890ab');
    const images = new ModelImageRepository(stack, 'Images', { encryptionKey: key });
    // WHEN
    images.grantPullToAccounts(['222222222222']);
    // THEN
    Annotations.fromStack(stack).hasWarning('/Stack/Images',
      Match.stringLikeRegexp('allow kms:Decrypt through ECR to accounts 222222222222 in that key\'s policy'));
  });
});

describe('ModelImageRepository importers', () => {
  test('import a repository by name and by attributes', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    const byName = ModelImageRepository.fromRepositoryName(stack, 'ByName', 'models/bert');
    const byAttrs = ModelImageRepository.fromRepositoryAttributes(stack, 'ByAttrs', {
      repositoryName: 'models/bert',
      repositoryArn: 'arn:aws:ecr:us-east-1:222222222222:repository/models/bert',
    });
    // THEN
    expect(stack.resolve(byName.repositoryName)).toBe('models/bert');
    expect(byAttrs.repositoryArn).toBe('arn:aws:ecr:us-east-1:222222222222:repository/models/bert');
    expect(byAttrs.repositoryUriForDigest(DIGEST)).toContain('222222222222.dkr.ecr.us-east-1.');
  });
});

describe('ModelImageRepository.fromRepositoryArn', () => {
  test('imports a repository of another account by ARN, with its name and URI from the ARN', () => {
    // GIVEN
    const stack = newStack();
    // WHEN
    const imported = ModelImageRepository.fromRepositoryArn(stack, 'ByArn',
      'arn:aws:ecr:us-east-1:222222222222:repository/models/bert');
    // THEN
    expect(imported.repositoryArn).toBe('arn:aws:ecr:us-east-1:222222222222:repository/models/bert');
    expect(imported.repositoryName).toBe('models/bert');
    expect(stack.resolve(imported.repositoryUriForDigest(DIGEST))).toEqual({
      'Fn::Join': ['', ['222222222222.dkr.ecr.us-east-1.', { Ref: 'AWS::URLSuffix' }, `/models/bert@${DIGEST}`]],
    });
  });
});

describe('ModelImageRepository.grantPush', () => {
  test('grants the ECR upload actions on this repository and the token on *, and no KMS permission', () => {
    // GIVEN a build pipeline's role
    const stack = newStack();
    const images = new ModelImageRepository(stack, 'Images');
    const role = new iam.Role(stack, 'Builder', { assumedBy: new iam.ServicePrincipal('codebuild.amazonaws.com') });
    // WHEN
    const grant = images.grantPush(role);
    // THEN
    expect(grant.success).toBe(true);
    const policies = Template.fromStack(stack).findResources('AWS::IAM::Policy');
    const statements = Object.values(policies).flatMap((p) => p.Properties.PolicyDocument.Statement) as {
      Action: string | string[]; Resource: unknown;
    }[];
    const actions = statements.flatMap((s) => ([] as string[]).concat(s.Action));
    expect(actions).toEqual(expect.arrayContaining(['ecr:PutImage', 'ecr:InitiateLayerUpload', 'ecr:UploadLayerPart',
      'ecr:CompleteLayerUpload', 'ecr:BatchCheckLayerAvailability', 'ecr:GetAuthorizationToken']));
    expect(actions.filter((a) => a.startsWith('kms:'))).toEqual([]);
    const put = statements.find((s) => ([] as string[]).concat(s.Action).includes('ecr:PutImage'));
    expect(put?.Resource).toEqual({ 'Fn::GetAtt': ['ImagesF8C4E866', 'Arn'] });
  });
});
