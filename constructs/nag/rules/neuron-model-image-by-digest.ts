import { CfnResource, Stack } from 'aws-cdk-lib';
import { NagRuleCompliance } from 'cdk-nag/lib/nag-rules';
import { isRecord, renderedProperties } from '../private/cfn-properties';
import { classifyImageReference, imageUriParts } from '../private/image-reference';
import { modelContainers } from '../private/sagemaker';

/**
 * SageMaker models reference every container image by digest, never by tag.
 *
 * Checks the `Image` of `PrimaryContainer` and of each element of `Containers` of `AWS::SageMaker::Model`. An image
 * built from a repository URI token plus a literal `@sha256:<64 hex>` is a digest; `:latest`, any other `:tag`, or a
 * bare repository URI (Docker reads it as `:latest`) is not. Non-compliant as soon as one image is a tag; otherwise
 * not applicable while any image (or container) is unknown at synth time, or when no container names an image (e.g.
 * `ModelPackageName`).
 *
 * @param node the CfnResource to check
 */
export function NeuronModelImageByDigest(node: CfnResource): NagRuleCompliance {
  if (node.cfnResourceType !== 'AWS::SageMaker::Model') {
    return NagRuleCompliance.NOT_APPLICABLE;
  }
  let digests = 0;
  let unknown = false;
  for (const container of modelContainers(renderedProperties(node))) {
    if (container === 'unresolved') {
      unknown = true;
      continue;
    }
    if (container.Image === undefined) {
      continue;
    }
    const kind = classifyImageReference(withRepositoriesOfStack(node, imageUriParts(container.Image)));
    if (kind === 'tag') {
      return NagRuleCompliance.NON_COMPLIANT;
    }
    if (kind === 'digest') {
      digests += 1;
    } else {
      unknown = true;
    }
  }
  return digests > 0 && !unknown ? NagRuleCompliance.COMPLIANT : NagRuleCompliance.NOT_APPLICABLE;
}

/**
 * Replaces references to an ECR repository of the same stack by literal stand-ins.
 *
 * `{ Ref }` of a repository is its name and `RepositoryUri` its URI: neither can hold a tag or a digest, so an image
 * that ends in one of them (`image: repository.repositoryUri`) is a bare repository, which Docker pulls as `:latest`.
 * Without this, such an image would end in an opaque part and pass as unknown.
 */
function withRepositoriesOfStack(node: CfnResource, parts: unknown[]): unknown[] {
  const stack = Stack.of(node);
  const repositories = new Set(
    stack.node
      .findAll()
      .filter((c): c is CfnResource => CfnResource.isCfnResource(c) && c.cfnResourceType === 'AWS::ECR::Repository')
      .map((repository) => stack.resolve(repository.logicalId) as string),
  );
  return parts.map((part) => {
    if (!isRecord(part)) {
      return part;
    }
    if (typeof part.Ref === 'string' && repositories.has(part.Ref)) {
      return 'repository-name';
    }
    const getAtt = part['Fn::GetAtt'];
    if (Array.isArray(getAtt) && repositories.has(getAtt[0]) && getAtt[1] === 'RepositoryUri') {
      return '123456789012.dkr.ecr.region.amazonaws.com/repository-name';
    }
    return part;
  });
}
