import { Annotations, Duration, RemovalPolicy, Token } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { InputError } from '../../lib/errors';
import { digestProblem } from './private/image-digest';
import { viaService } from '../private/image-via-service';
import { throwIfProblems } from '../private/construct-errors';
import { markOwned } from '../private/ownership';

/** The actions a pull needs on the repository itself; `ecr:GetAuthorizationToken` is registry-wide. */
export const ECR_PULL_ACTIONS: readonly string[] = [
  'ecr:BatchCheckLayerAvailability',
  'ecr:GetDownloadUrlForLayer',
  'ecr:BatchGetImage',
];

/** ECR repository names: lowercase path segments of letters, digits and `._-` separators, 2-256 characters. */
const REPOSITORY_NAME = /^(?:[a-z0-9]+(?:[._-][a-z0-9]+)*\/)*[a-z0-9]+(?:[._-][a-z0-9]+)*$/;

/** Props of {@link ModelImageRepository}. */
export interface ModelImageRepositoryProps {
  /**
   * Name of the repository.
   *
   * Leave it unset unless another system needs a fixed name: a fixed name blocks replacement and a second
   * copy of the stack in the same account and region.
   *
   * @default - CloudFormation-generated
   */
  readonly repositoryName?: string;

  /**
   * KMS key that encrypts the images at rest.
   *
   * @default - a key this construct defines, with yearly rotation, retained on delete
   */
  readonly encryptionKey?: kms.IKey;

  /**
   * Tagged images to keep; older tagged images expire.
   *
   * Must exceed the number of images any stage (dev, staging, prod, rollback targets) still deploys by digest:
   * an expired image cannot be pulled when SageMaker scales out or replaces an instance.
   *
   * @default 20
   */
  readonly maxTaggedImages?: number;

  /**
   * How long an untagged image (a build that was never tagged, or a tag that moved away) is kept.
   *
   * @default Duration.days(7)
   */
  readonly untaggedImageExpiry?: Duration;

  /**
   * What happens to the repository when it leaves the stack.
   *
   * With `RemovalPolicy.DESTROY` CloudFormation deletes the repository only when it holds no image.
   *
   * @default RemovalPolicy.RETAIN
   */
  readonly removalPolicy?: RemovalPolicy;
}

/**
 * A private ECR repository for model-serving images, secure by default.
 *
 * Scan on push, IMMUTABLE tags (a tag, once pushed, always names the same bytes), KMS encryption, lifecycle
 * rules that expire untagged images and keep the last N tagged ones, and RETAIN on delete. Deploy from it by
 * digest (`imageUriForDigest`, `ModelImage.fromRepository`), and let promotion targets pull the same digest
 * with `grantPullToAccounts`.
 *
 * The repository is the child `Resource` and the key the child `Key`; their logical ids are a contract.
 *
 * @example
 * const images = new ModelImageRepository(this, 'Images');
 * const image = ModelImage.fromRepository(images, 'sha256:...');
 *
 * @see https://docs.aws.amazon.com/AmazonECR/latest/userguide/image-tag-mutability.html
 */
export class ModelImageRepository extends Construct {
  /**
   * Imports a repository by name, e.g. one another stack or account created.
   *
   * The import knows no encryption key: when that repository uses a customer managed key, grant decrypt yourself.
   */
  static fromRepositoryName(scope: Construct, id: string, repositoryName: string): ecr.IRepository {
    return ecr.Repository.fromRepositoryName(scope, id, repositoryName);
  }

  /** Imports a repository by name and ARN, e.g. a promotion source in another account. */
  static fromRepositoryAttributes(scope: Construct, id: string, attrs: ecr.RepositoryAttributes): ecr.IRepository {
    return ecr.Repository.fromRepositoryAttributes(scope, id, attrs);
  }

  /**
   * Imports a repository by ARN, e.g. one in the account images are promoted from.
   *
   * Like {@link fromRepositoryName}, the import knows no encryption key.
   */
  static fromRepositoryArn(scope: Construct, id: string, repositoryArn: string): ecr.IRepository {
    return ecr.Repository.fromRepositoryArn(scope, id, repositoryArn);
  }

  /** The underlying ECR repository. */
  readonly repository: ecr.Repository;
  /** The key that encrypts the images. */
  readonly encryptionKey: kms.IKey;
  /** `ACCOUNT.dkr.ecr.REGION.amazonaws.com/NAME`, without tag or digest. */
  readonly repositoryUri: string;
  /** ARN of the repository. */
  readonly repositoryArn: string;
  /** Name of the repository. */
  readonly repositoryName: string;

  constructor(scope: Construct, id: string, props: ModelImageRepositoryProps = {}) {
    super(scope, id);
    markOwned(this);
    const maxTaggedImages = props.maxTaggedImages ?? 20;
    const untaggedImageExpiry = props.untaggedImageExpiry ?? Duration.days(7);
    throwIfProblems(this, validateProps(props, maxTaggedImages, untaggedImageExpiry));

    this.encryptionKey = props.encryptionKey ?? new kms.Key(this, 'Key', {
      description: `Encrypts the model images of ${this.node.path}`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });

    this.repository = new ecr.Repository(this, 'Resource', {
      repositoryName: props.repositoryName,
      imageScanOnPush: true,
      imageTagMutability: ecr.TagMutability.IMMUTABLE,
      encryption: ecr.RepositoryEncryption.KMS,
      encryptionKey: this.encryptionKey,
      lifecycleRules: [
        {
          rulePriority: 1,
          description: `Expire untagged images after ${untaggedImageExpiry.toDays()} days`,
          tagStatus: ecr.TagStatus.UNTAGGED,
          maxImageAge: untaggedImageExpiry,
        },
        {
          rulePriority: 2,
          description: `Keep the last ${maxTaggedImages} tagged images`,
          tagStatus: ecr.TagStatus.TAGGED,
          tagPatternList: ['*'],
          maxImageCount: maxTaggedImages,
        },
      ],
      removalPolicy: props.removalPolicy ?? RemovalPolicy.RETAIN,
    });

    this.repositoryUri = this.repository.repositoryUri;
    this.repositoryArn = this.repository.repositoryArn;
    this.repositoryName = this.repository.repositoryName;
  }

  /**
   * The URI that pins one image: `REPOSITORY_URI@sha256:...`.
   *
   * @param digest `sha256:` and 64 hex digits, as `docker inspect` or `aws ecr describe-images` print it
   */
  imageUriForDigest(digest: string): string {
    InputError.throwIfAny([digestProblem(`${this.node.path}.imageUriForDigest(digest)`, digest)]
      .filter((p): p is string => p !== undefined));
    return this.repository.repositoryUriForDigest(digest);
  }

  /**
   * Lets the grantee pull images: the ECR read actions on this repository, `ecr:GetAuthorizationToken`
   * (which supports no resource-level permission, hence `*`), and `kms:Decrypt` on the key through ECR only.
   */
  grantPull(grantee: iam.IGrantable): iam.Grant {
    // The L2 grant also writes the repository policy when the grantee lives in another account.
    return this.repository.grantPull(grantee).combine(iam.Grant.addToPrincipal({
      grantee,
      actions: ['kms:Decrypt'],
      resourceArns: [this.encryptionKey.keyArn],
      conditions: { StringEquals: { 'kms:ViaService': viaService(this, 'ecr') } },
    }));
  }

  /**
   * Lets the grantee push images, e.g. the role of the pipeline that builds them: the ECR upload actions on this
   * repository and `ecr:GetAuthorizationToken` (which supports no resource-level permission, hence `*`).
   *
   * No KMS permission is needed: ECR encrypts the layers itself, through the grant it put on the key when it
   * created the repository. Tags are immutable, so each build pushes a tag of its own; deploy it by digest.
   *
   * @see https://docs.aws.amazon.com/AmazonECR/latest/userguide/image-push-iam.html
   * @see https://docs.aws.amazon.com/AmazonECR/latest/userguide/encryption-at-rest.html
   */
  grantPush(grantee: iam.IGrantable): iam.Grant {
    return this.repository.grantPush(grantee);
  }

  /**
   * Lets other accounts (promotion targets such as staging and prod) pull the images.
   *
   * Adds a repository policy statement and, when this construct owns the key policy, a key policy statement
   * limited to use through ECR. Each target account still grants its own roles pull rights, e.g. with
   * `ModelImage.fromRepository(ModelImageRepository.fromRepositoryAttributes(...), digest)`.
   *
   * @param accountIds 12-digit AWS account ids
   */
  grantPullToAccounts(accountIds: string[]): void {
    const problems: string[] = [];
    if (accountIds.length === 0) {
      problems.push(`${this.node.path}.grantPullToAccounts(accountIds): accountIds=[] is empty; `
        + 'pass the 12-digit ids of the accounts that deploy these images');
    }
    for (const accountId of accountIds) {
      if (!Token.isUnresolved(accountId) && !/^\d{12}$/.test(accountId)) {
        problems.push(`${this.node.path}.grantPullToAccounts(accountIds): accountId=${JSON.stringify(accountId)} `
          + 'is not a 12-digit AWS account id; pass the id as a string of 12 digits, e.g. "123456789012"');
      }
    }
    const duplicates = accountIds.filter((a, i) => accountIds.indexOf(a) !== i);
    if (duplicates.length > 0) {
      problems.push(`${this.node.path}.grantPullToAccounts(accountIds): ${JSON.stringify(duplicates)} `
        + 'appear more than once; list each account once');
    }
    InputError.throwIfAny(problems);

    const principals = accountIds.map((accountId) => new iam.AccountPrincipal(accountId));
    this.repository.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'PullFromPromotionTargets',
      principals,
      actions: [...ECR_PULL_ACTIONS],
    }));
    const { statementAdded } = this.encryptionKey.addToResourcePolicy(new iam.PolicyStatement({
      sid: 'DecryptImagesForPromotionTargets',
      principals,
      actions: ['kms:Decrypt'],
      // A key policy's resource is always the key itself.
      resources: ['*'],
      conditions: { StringEquals: { 'kms:ViaService': viaService(this, 'ecr') } },
    }), true);
    if (!statementAdded) {
      Annotations.of(this).addWarningV2('@cdk-inferentia/model-image-repository:keyPolicyNotManaged',
        `The key policy of the imported encryption key is not managed by this stack; allow kms:Decrypt `
        + `through ECR to accounts ${accountIds.join(', ')} in that key's policy, or their pulls fail.`);
    }
  }
}

function validateProps(props: ModelImageRepositoryProps, maxTaggedImages: number, untaggedImageExpiry: Duration): string[] {
  const problems: string[] = [];
  const name = props.repositoryName;
  if (name !== undefined && !Token.isUnresolved(name)
    && (name.length < 2 || name.length > 256 || !REPOSITORY_NAME.test(name))) {
    problems.push(`repositoryName=${JSON.stringify(name)} is not a valid ECR repository name; use 2-256 lowercase `
      + "letters, digits and '._-/' separators, starting and ending with a letter or digit (e.g. \"models/bert\"), "
      + 'or leave it unset for a generated name');
  }
  if (!Token.isUnresolved(maxTaggedImages) && (!Number.isInteger(maxTaggedImages) || maxTaggedImages < 1)) {
    problems.push(`maxTaggedImages=${maxTaggedImages} must be a whole number of at least 1; it should cover every `
      + 'image any stage still deploys (the default is 20)');
  }
  if (!untaggedImageExpiry.isUnresolved()) {
    const days = untaggedImageExpiry.toHours() / 24;
    if (!Number.isInteger(days) || days < 1) {
      problems.push(`untaggedImageExpiry=${untaggedImageExpiry.toHumanString()} must be a whole number of days, `
        + 'at least 1 (ECR lifecycle rules count in days), e.g. Duration.days(7)');
    }
  }
  return problems;
}
