/**
 * SageMaker hosting prices estimated where no readable source lists them: outside us-east-1.
 *
 * AWS publishes SageMaker hosting prices per region in its AmazonSageMaker offer files, which this project has not
 * imported beyond us-east-1; EC2 prices it has for every region. An instance's SageMaker price is its EC2 price plus
 * SageMaker's margin, so a region's SageMaker price is estimated as its EC2 price times the SageMaker/EC2 ratio
 * measured where both are known (us-east-1).
 *
 * Per instance type, not per family: the us-east-1 ratios differ within a family (inf2.xlarge 0.99 / 0.7582 = 1.31,
 * inf2.48xlarge 15.58 / 12.98127 = 1.20; inf1.xlarge 1.30, inf1.24xlarge 1.03), so one family ratio would misprice
 * sizes by 9 % (Inf2) to 27 % (Inf1), while a type's ratio is the same SageMaker margin on the same hardware. A type
 * with no SageMaker price in us-east-1 gets no estimate at all: SageMaker may not host it (there is no ml.trn1n).
 * Nor does a region whose AmazonSageMaker offer file was imported: there the file is the truth.
 *
 * Every estimate is `unverified`, carries its method in `estimate` (printed as ESTIMATE), and is replaced by any
 * listed price of the same key: `catalog refresh`, a price file, or an imported offer file.
 */
import { OFFER_FILES_READ } from './data/on-demand';
import type { OfferFileRead } from './data/on-demand';
import type { Price } from './types';

/** The region whose SageMaker and EC2 prices give the ratio. */
export const SAGEMAKER_RATIO_REGION = 'us-east-1';

const key = (instanceType: string, region: string, hosting: string) => `${instanceType}|${region}|${hosting}`;

/** `n` to 4 decimals, as prices are written. */
function round4(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

/**
 * The on-demand SageMaker prices `prices` lack, estimated from the EC2 on-demand prices it has.
 *
 * @param offersRead offer files imported: no estimate in a region whose AmazonSageMaker file was read @default OFFER_FILES_READ
 */
export function sageMakerEstimates(prices: readonly Price[], offersRead: readonly OfferFileRead[] = OFFER_FILES_READ): Price[] {
  const onDemand = new Map<string, Price>();
  for (const p of prices) {
    if (p.kind === 'on-demand') onDemand.set(key(p.instanceType, p.region, p.hosting), p);
  }
  const sageMakerFileRead = new Set(offersRead.filter((o) => o.service === 'AmazonSageMaker').map((o) => o.region));
  const estimates: Price[] = [];
  for (const ec2 of onDemand.values()) {
    if (ec2.hosting !== 'ec2' || sageMakerFileRead.has(ec2.region) || onDemand.has(key(ec2.instanceType, ec2.region, 'sagemaker'))) {
      continue;
    }
    const smRef = onDemand.get(key(ec2.instanceType, SAGEMAKER_RATIO_REGION, 'sagemaker'));
    const ec2Ref = onDemand.get(key(ec2.instanceType, SAGEMAKER_RATIO_REGION, 'ec2'));
    if (smRef === undefined || ec2Ref === undefined || smRef.estimate !== undefined || !(ec2Ref.usdPerHour > 0)) {
      continue;
    }
    const ratio = smRef.usdPerHour / ec2Ref.usdPerHour;
    const method = `EC2 on-demand in ${ec2.region} (${ec2.usdPerHour} USD/h) x the SageMaker/EC2 ratio of ${ec2.instanceType} in ` +
      `${SAGEMAKER_RATIO_REGION} (${smRef.usdPerHour} / ${ec2Ref.usdPerHour} = ${round4(ratio)})`;
    estimates.push(Object.freeze({
      instanceType: ec2.instanceType,
      region: ec2.region,
      hosting: 'sagemaker' as const,
      kind: 'on-demand' as const,
      usdPerHour: round4(ec2.usdPerHour * ratio),
      source: `ESTIMATE: ${method}; EC2 price from ${ec2.source}; ratio from ${smRef.source}`,
      asOf: ec2.asOf,
      unverified: true,
      estimate: method,
    }));
  }
  return estimates;
}
