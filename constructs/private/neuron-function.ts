import * as fs from 'fs';
import * as path from 'path';
import { Duration, Size, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { InputError } from '../../lib/errors';

/**
 * Where the package build (`npm run build`, scripts/build.ts) writes one prebuilt bundle per handler,
 * `handlers/<hook>/index.js`: `dist/handlers/` seen from the compiled `dist/constructs/private/`. Seen from the
 * sources (`constructs/private/`) it names a folder that does not exist, so this repository always bundles from
 * source.
 */
export const HANDLER_BUNDLES_DIR = path.join(__dirname, '..', '..', 'handlers');

/**
 * esbuild settings shared by the bundling from source (NodejsFunction) and the package build's prebuilt bundles,
 * so both produce the same code: minified, with source maps that name the TypeScript lines but carry no sources,
 * every module bundled (the AWS SDK included, see {@link NeuronFunction}).
 */
export const HANDLER_BUNDLING = {
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  externalModules: [] as string[],
} as const;

/**
 * The prebuilt bundle of the handler whose source is `entry` (`lambdas/<hook>/index.ts`), if the package build made
 * one: the directory `bundlesDir/<hook>` holding `index.js`.
 */
export function prebuiltHandler(entry: string, bundlesDir: string = HANDLER_BUNDLES_DIR): string | undefined {
  if (path.basename(entry) !== 'index.ts') {
    return undefined;
  }
  const dir = path.join(bundlesDir, path.basename(path.dirname(entry)));
  return fs.existsSync(path.join(dir, 'index.js')) ? dir : undefined;
}

/** Props of {@link NeuronFunction}. */
export interface NeuronFunctionProps {
  /**
   * The handler's TypeScript entry file, `lambdas/<hook>/index.ts`; its export `handler` is invoked.
   *
   * The installed package ships no handler sources: it ships `dist/handlers/<hook>/index.js`, which the package build
   * bundles from every `lambdas/<hook>/index.ts`, and the function deploys that bundle when it is there (a consumer
   * needs neither esbuild nor tsx). Otherwise the entry is bundled from source with the local esbuild.
   */
  readonly entry: string;

  /**
   * Where prebuilt handler bundles are looked up, one `<hook>/index.js` each.
   *
   * @default HANDLER_BUNDLES_DIR - the package's `dist/handlers/`
   */
  readonly bundlesDir?: string;

  /** What the function is for, shown in the console. @default - none */
  readonly description?: string;

  /** @default Duration.minutes(1) */
  readonly timeout?: Duration;

  /**
   * Memory, which also sets the CPU share (1769 MB = one vCPU).
   *
   * @default Size.mebibytes(512)
   */
  readonly memorySize?: Size;

  /** Variables added to the function's environment. @default - none */
  readonly environment?: Readonly<Record<string, string>>;

  /** How long the function's log group keeps events. @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays;

  /** Run the function in this VPC, e.g. to reach an internal load balancer. @default - not in a VPC */
  readonly vpc?: ec2.IVpc;

  /** Subnets of `vpc` to place the function's interfaces in. @default - the VPC's private subnets */
  readonly vpcSubnets?: ec2.SubnetSelection;

  /** Security groups of the function in `vpc`. @default - one group with all outbound traffic allowed */
  readonly securityGroups?: ec2.ISecurityGroup[];
}

/**
 * The house Lambda function: a `NodejsFunction` with this project's defaults.
 *
 * - Node.js 24 (`lambda.Runtime.NODEJS_24_X`), the newest Node runtime both aws-cdk-lib 2.276 and Lambda offer,
 *   on arm64 (Graviton: about 20 % cheaper per GB-second than x86_64 for the same work).
 * - Bundled by the local esbuild (a devDependency), never in Docker; minified, with source maps and
 *   `--enable-source-maps` so stack traces name the TypeScript lines. The installed package deploys the bundle its
 *   build made instead (see `entry`).
 * - The AWS SDK v3 is bundled, not taken from the runtime: the function then runs the exact SDK versions the tests
 *   ran (the runtime's copy moves on its own schedule, and benchmark behaviour such as retries, error shapes and
 *   socket handling lives in the SDK); the cost is a larger zip and a slower cold start, which a deploy-time hook
 *   does not notice.
 * - An explicit log group with a retention, and a role of its own that can write only to that group: no
 *   `AWSLambdaBasicExecutionRole` (cdk-nag AwsSolutions-IAM4), no `logs:CreateLogGroup` on `*`.
 * - In a VPC, the interface permissions Lambda needs (the content of `AWSLambdaVPCAccessExecutionRole`, inline).
 *
 * The role (`<id>ServiceRole`) and the log group (`<id>LogGroup`) are siblings of the function: both must exist
 * before the function's constructor runs.
 */
export class NeuronFunction extends nodejs.NodejsFunction {
  /**
   * The runtime every house function uses.
   *
   * A getter, not a static field: reading `lambda.Runtime` loads aws-lambda's runtime table and the bundling code
   * behind it, which importing the package should not cost an app that deploys no house function.
   */
  static get RUNTIME(): lambda.Runtime {
    return lambda.Runtime.NODEJS_24_X;
  }

  /** The function's execution role. */
  readonly serviceRole: iam.Role;

  /** The log group the function writes to. */
  readonly functionLogGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: NeuronFunctionProps) {
    // Checked before the log group and role exist, so a broken install defines nothing.
    const prebuilt = prebuiltHandler(props.entry, props.bundlesDir);
    if (prebuilt === undefined && !fs.existsSync(props.entry)) {
      throw new InputError(`${scope.node.path}/${id}: the handler bundle ${path.basename(path.dirname(props.entry))}`
        + `/index.js is not in ${props.bundlesDir ?? HANDLER_BUNDLES_DIR} and its source ${props.entry} is not there to `
        + 'bundle; the package was installed without its build: reinstall it from the registry or a packed tarball, '
        + 'or run `npm run build` in its clone');
    }
    const logGroup = new logs.LogGroup(scope, `${id}LogGroup`, {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
    });
    const role = new iam.Role(scope, `${id}ServiceRole`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: props.description,
    });
    super(scope, id, {
      ...(prebuilt === undefined
        ? { entry: props.entry, handler: 'handler', bundling: { ...HANDLER_BUNDLING } }
        : { code: lambda.Code.fromAsset(prebuilt), handler: 'index.handler' }),
      description: props.description,
      runtime: NeuronFunction.RUNTIME,
      architecture: lambda.Architecture.ARM_64,
      timeout: props.timeout ?? Duration.minutes(1),
      memorySize: (props.memorySize ?? Size.mebibytes(512)).toMebibytes(),
      role,
      logGroup,
      vpc: props.vpc,
      vpcSubnets: props.vpcSubnets,
      securityGroups: props.securityGroups,
      environment: { NODE_OPTIONS: '--enable-source-maps', ...props.environment },
    });
    this.serviceRole = role;
    this.functionLogGroup = logGroup;

    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        sid: 'WriteOwnLogs',
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
        resources: [logGroup.logGroupArn],
      }),
    );
    if (props.vpc) {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          sid: 'ManageVpcInterfaces',
          actions: [
            'ec2:CreateNetworkInterface',
            'ec2:DescribeNetworkInterfaces',
            'ec2:DescribeSubnets',
            'ec2:DeleteNetworkInterface',
            'ec2:AssignPrivateIpAddresses',
            'ec2:UnassignPrivateIpAddresses',
          ],
          resources: ['*'],
        }),
      );
      Validations.of(role).acknowledge({
        id: 'AwsSolutions-IAM5[Resource::*]',
        reason:
          'Lambda creates and deletes the function\'s network interfaces in the VPC with these EC2 actions, the ' +
          'content of the AWS-managed AWSLambdaVPCAccessExecutionRole; the interfaces do not exist before Lambda ' +
          'creates them, so their ARNs cannot be named in advance (Describe* supports no resource-level permission).',
      });
    }
  }
}
