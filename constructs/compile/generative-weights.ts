import { Stack, Token } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as s3 from 'aws-cdk-lib/aws-s3';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { HF_COMMIT, type GenerativeWeightsIdentity } from '../../lib/compile';
import { InputError } from '../../lib/errors';

/** Options of {@link GenerativeWeights.fromS3Prefix}. */
export interface GenerativeWeightsS3Options {
  /**
   * A label to change when the files under the prefix change (a date, a commit of your training run), so the
   * compile's content hash changes with them.
   *
   * @default - the prefix is the identity: keep one prefix per version of the weights (the deploy refuses a cached
   * artifact whose weights' ETags changed under the same prefix)
   */
  readonly version?: string;
}

/** Options of {@link GenerativeWeights.fromHuggingFace}. */
export interface GenerativeWeightsHubOptions {
  /** Repository id `owner/name`, e.g. `meta-llama/Llama-3.1-8B-Instruct`. */
  readonly repository: string;
  /**
   * The commit to download: 40 hex digits. Branches (`main`) and tags are refused: both can be moved to other
   * weights, and the compile's cache would then serve artifacts built from the old ones.
   */
  readonly revision: string;
  /**
   * Secret whose string is a Hugging Face access token, for gated or private repositories (Llama needs one whose
   * account accepted the license). The compile host reads it at run time; it is never in the template, the user data
   * or an environment variable, and the host's role may read this one secret only.
   *
   * @default - no token: a public repository
   */
  readonly token?: secretsmanager.ISecret;
}

/**
 * The weights of a generative model, for the compile job (and, through its outputs, the hosting).
 *
 * Either an S3 prefix holding the uncompressed Hugging Face layout (`config.json`, `*.safetensors`, tokenizer
 * files), or a Hugging Face Hub repository at a commit, downloaded by the compile host and staged beside the
 * compiled artifacts so the hosting reads S3 only and never needs the token.
 *
 * @example
 * GenerativeWeights.fromS3Prefix(weightsBucket, 'llama-3.1-8b-instruct/2024-07-23/');
 * GenerativeWeights.fromHuggingFace({ repository: 'meta-llama/Llama-3.1-8B-Instruct',
 *   revision: '0e9e39f249a16976918f6564b8830bc894c89659', token: hfToken });
 */
export abstract class GenerativeWeights {
  /**
   * Weights already in S3 under `prefix`.
   *
   * @param prefix key prefix ending with `/`, e.g. `'llama-3.1-8b/v1/'`
   * @throws InputError when the prefix is empty, absolute, an `s3://` URI or lacks its trailing `/`
   */
  static fromS3Prefix(bucket: s3.IBucket, prefix: string, options: GenerativeWeightsS3Options = {}): GenerativeWeights {
    const problems: string[] = [];
    const where = 'GenerativeWeights.fromS3Prefix(bucket, prefix)';
    if (!Token.isUnresolved(prefix)) {
      if (prefix.startsWith('s3://')) {
        problems.push(`${where}: prefix=${JSON.stringify(prefix)} is a URI; pass the key prefix after the bucket name, ending with '/'`);
      } else if (prefix === '' || prefix === '/' || prefix.startsWith('/') || !prefix.endsWith('/') || /\s/.test(prefix)) {
        problems.push(`${where}: prefix=${JSON.stringify(prefix)} must be a key prefix without spaces, not starting with '/' and `
          + "ending with '/', e.g. 'llama-3.1-8b/v1/', so the compile reads that model directory only");
      }
    }
    if (options.version !== undefined && !/^[A-Za-z0-9._\-:+]+$/.test(options.version)) {
      problems.push(`${where}: version=${JSON.stringify(options.version)} must be letters, digits and . _ - : + only`);
    }
    InputError.throwIfAny(problems);
    return new S3Weights(bucket, prefix, options.version);
  }

  /**
   * Weights from the Hugging Face Hub at a commit.
   *
   * The compile host downloads them (its subnets need a route to huggingface.co) and uploads them beside the compiled
   * artifacts (`model/`), which the hosting then reads.
   *
   * @throws InputError when the repository is not `owner/name` or the revision is not a 40-hex-digit commit
   */
  static fromHuggingFace(options: GenerativeWeightsHubOptions): GenerativeWeights {
    const problems: string[] = [];
    const where = 'GenerativeWeights.fromHuggingFace';
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*\/[A-Za-z0-9][A-Za-z0-9._-]*$/.test(options.repository)) {
      problems.push(`${where}: repository=${JSON.stringify(options.repository)} is not a repository id; give owner/name, e.g. `
        + 'meta-llama/Llama-3.1-8B-Instruct');
    }
    if (!HF_COMMIT.test(options.revision)) {
      problems.push(`${where}: revision=${JSON.stringify(options.revision)} is not a commit; give the 40-hex-digit commit (the `
        + 'repository\'s "Files and versions" history, or `git ls-remote https://huggingface.co/<repository> main`): branches '
        + 'and tags can move to other weights, and the compile cache would serve artifacts built from the old ones');
    }
    InputError.throwIfAny(problems);
    return new HubWeights(options.repository, options.revision, options.token);
  }

  /** The secret holding the Hub token, when there is one. */
  readonly tokenSecret?: secretsmanager.ISecret;

  /**
   * The weights' identity as the compile spec records it.
   *
   * @param scope resolves an S3 bucket name that is a token, so the content hash stays stable across synths
   */
  abstract identity(scope: Stack): { readonly deploy: GenerativeWeightsIdentity; readonly hashed: GenerativeWeightsIdentity };

  /** Grants `grantee` (the compile host) what fetching the weights needs: the objects, or the token secret. */
  abstract grantFetch(grantee: iam.IGrantable): void;

  /** Grants `grantee` (the compile job's handler) the listing of S3 weights it checks before a launch. */
  abstract grantList(grantee: iam.IGrantable): void;
}

class S3Weights extends GenerativeWeights {
  constructor(readonly bucket: s3.IBucket, readonly prefix: string, private readonly version: string | undefined) {
    super();
  }

  identity(stack: Stack) {
    const name = this.bucket.bucketName;
    const stable = Token.isUnresolved(name) ? `cdk-ref-${JSON.stringify(stack.resolve(name)).replace(/[^A-Za-z0-9]/g, '').toLowerCase()}` : name;
    const version = this.version !== undefined ? { version: this.version } : {};
    return {
      deploy: { source: 's3' as const, s3Uri: `s3://${name}/${this.prefix}`, ...version },
      hashed: { source: 's3' as const, s3Uri: `s3://${stable.slice(0, 63)}/${this.prefix}`, ...version },
    };
  }

  grantFetch(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({ grantee, actions: ['s3:GetObject'], resourceArns: [this.bucket.arnForObjects(`${this.prefix}*`)] });
    this.grantList(grantee);
    this.bucket.encryptionKey?.grantDecrypt(grantee);
  }

  grantList(grantee: iam.IGrantable): void {
    iam.Grant.addToPrincipal({
      grantee, actions: ['s3:ListBucket'], resourceArns: [this.bucket.bucketArn],
      conditions: { StringLike: { 's3:prefix': [`${this.prefix}*`] } },
    });
  }
}

class HubWeights extends GenerativeWeights {
  constructor(readonly repository: string, readonly revision: string, readonly tokenSecret: secretsmanager.ISecret | undefined) {
    super();
  }

  identity() {
    const id = { source: 'huggingface' as const, repository: this.repository, revision: this.revision };
    return { deploy: id, hashed: id };
  }

  grantFetch(grantee: iam.IGrantable): void {
    this.tokenSecret?.grantRead(grantee);
  }

  grantList(): void {
    // Nothing to list: the Hub weights are identified by their commit.
  }
}
