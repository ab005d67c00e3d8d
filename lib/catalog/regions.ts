/*
 * AWS region codes of the commercial (aws), China (aws-cn) and GovCloud (aws-us-gov) partitions.
 *
 * Source: aws-cdk-lib 2.276.0 region-info (`RegionInfo.regions`, built from lib/aws-entities `AWS_REGIONS`), read
 * 2026-11-22, minus the isolated partitions (us-iso*, us-isob*, us-isof*, eu-isoe-*) and the European Sovereign
 * Cloud (eusc-*), where this toolkit has neither prices nor Neuron images. Copied rather than imported because
 * lib/ stays free of aws-cdk-lib.
 */

/**
 * Every region code `isAwsRegion` accepts.
 *
 * @see https://docs.aws.amazon.com/global-infrastructure/latest/regions/aws-regions.html
 */
export const AWS_REGIONS: readonly string[] = Object.freeze([
  'af-south-1',
  'ap-east-1', 'ap-east-2',
  'ap-northeast-1', 'ap-northeast-2', 'ap-northeast-3',
  'ap-south-1', 'ap-south-2',
  'ap-southeast-1', 'ap-southeast-2', 'ap-southeast-3', 'ap-southeast-4', 'ap-southeast-5', 'ap-southeast-6',
  'ap-southeast-7',
  'ca-central-1', 'ca-west-1',
  'cn-north-1', 'cn-northwest-1',
  'eu-central-1', 'eu-central-2',
  'eu-north-1',
  'eu-south-1', 'eu-south-2',
  'eu-west-1', 'eu-west-2', 'eu-west-3',
  'il-central-1',
  'me-central-1', 'me-south-1', 'me-west-1',
  'mx-central-1',
  'sa-east-1',
  'us-east-1', 'us-east-2',
  'us-gov-east-1', 'us-gov-west-1',
  'us-west-1', 'us-west-2',
]);

const REGION_SET: ReadonlySet<string> = new Set(AWS_REGIONS);

/**
 * Whether `code` is a known commercial, China or GovCloud region code (`us-east-1`, not `US East (N. Virginia)`).
 */
export function isAwsRegion(code: string): boolean {
  return REGION_SET.has(code);
}
