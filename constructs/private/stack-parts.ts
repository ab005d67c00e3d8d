/**
 * What every inference stack of the library does alike, whatever it hosts: its outputs, its zones, and for the
 * single-call stacks the model server image.
 */
import { CfnOutput, Fn } from 'aws-cdk-lib';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import type { Construct } from 'constructs';
import { constructError } from './construct-errors';
import { ModelImage } from '../image/model-image';
import type { ModelImageRepository } from '../image/model-image-repository';

/**
 * An inference stack's outputs (what to call, where its images go, what the planner chose), from one table of
 * `id: [description, value]` in the order the template lists them: each hosting's stack names its own rows.
 */
export function stackOutputs(stack: Construct, outputs: Readonly<Record<string, readonly [description: string, value: string]>>): void {
  for (const [id, [description, value]] of Object.entries(outputs)) {
    new CfnOutput(stack, id, { description, value });
  }
}

/**
 * The region's first two zones, resolved by CloudFormation (`Fn::GetAZs`): with an explicit `env` a VPC would otherwise
 * look its zones up at synth, which needs credentials. Every inference stack's `availabilityZones` returns these
 * unless zones are given.
 */
export function deployTimeZones(): string[] {
  return [Fn.select(0, Fn.getAzs()), Fn.select(1, Fn.getAzs())];
}

/** How an inference stack names its model server image: the image itself, or a digest in a repository. */
export interface StackImageProps {
  readonly image?: ModelImage;
  readonly imageDigest?: string;
  /** A repository other than the stack's own that holds `imageDigest`. */
  readonly imageRepositoryName?: string;
}

/**
 * The model server image a single-call inference stack deploys, on SageMaker or ECS alike: `image`, or the image of
 * `imageDigest` in the stack's `repository` (or in `imageRepositoryName`). Exactly one of `image` and `imageDigest`.
 *
 * @param owner the stack class named in errors, e.g. `InferenceStack`
 * @param neither what to pass when neither is set
 */
export function stackModelServerImage(
  scope: Construct,
  repository: ecr.IRepository | ModelImageRepository,
  props: StackImageProps,
  owner: string,
  neither: string,
): ModelImage {
  if ((props.image === undefined) === (props.imageDigest === undefined)) {
    throw constructError(scope, props.image === undefined
      ? `${owner}: neither image nor imageDigest is set; ${neither}`
      : `${owner}: both image and imageDigest are set; pass only one`);
  }
  if (props.imageRepositoryName !== undefined && props.imageDigest === undefined) {
    throw constructError(scope, `${owner}: imageRepositoryName is set without imageDigest; pass the digest of the image in `
      + 'that repository, or remove imageRepositoryName');
  }
  const source = props.imageRepositoryName === undefined
    ? repository
    : ecr.Repository.fromRepositoryName(scope, 'ImageRepository', props.imageRepositoryName);
  return props.image ?? ModelImage.fromRepository(source, props.imageDigest as string, { modelServer: true });
}
