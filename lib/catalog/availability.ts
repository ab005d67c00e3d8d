/**
 * Whether SageMaker real-time hosting offers a Neuron instance type in a region, as far as the catalog knows.
 *
 * The evidence is the price data: a SageMaker hosting price means the type is offered there; an imported
 * AmazonSageMaker offer file of the region without the type means it is not (AWS lists every product it sells in
 * the region's file); anything else is unknown. The SageMaker API's `ProductionVariantInstanceType` names the Neuron
 * types SageMaker hosts somewhere, not where.
 */
import type { Catalog } from './catalog';
import { ec2Name, sageMakerName } from './catalog';
import { OFFER_FILES_READ } from './data/on-demand';
import type { OfferFileRead } from './data/on-demand';

/** What the catalog knows about SageMaker hosting of one instance type in one region, and from what. */
export interface SageMakerAvailability {
  readonly availability: 'offered' | 'not-offered' | 'unknown';
  /** The price source, the offer file, or why nothing is known. */
  readonly evidence: string;
}

/**
 * SageMaker hosting availability of `instanceType` (`inf2.xlarge` or `ml.inf2.xlarge`) in `region`.
 *
 * @param offersRead the offer files behind the built-in table @default the table's `OFFER_FILES_READ`
 */
export function sageMakerAvailability(
  catalog: Catalog,
  instanceType: string,
  region: string,
  offersRead: readonly OfferFileRead[] = OFFER_FILES_READ,
): SageMakerAvailability {
  const price = catalog.price(instanceType, region, 'sagemaker');
  // An estimated price is derived from EC2's: no evidence that SageMaker offers the type there.
  if (price && price.estimate === undefined) {
    return { availability: 'offered', evidence: `priced at ${price.usdPerHour} USD/h: ${price.source} (${price.asOf})` };
  }
  const offer = offersRead.find((o) => o.service === 'AmazonSageMaker' && o.region === region);
  if (offer) {
    return {
      availability: 'not-offered',
      evidence: `the AmazonSageMaker offer file of ${region}${offer.version ? ` (version ${offer.version})` : ''}, imported ` +
        `${offer.asOf}, has no real-time hosting price for ${sageMakerName(ec2Name(instanceType))}`,
    };
  }
  return {
    availability: 'unknown',
    evidence: `no SageMaker price for ${sageMakerName(ec2Name(instanceType))} in ${region} and no AmazonSageMaker offer file of ` +
      `${region} imported; catalog refresh or npm run prices:import tells`,
  };
}
