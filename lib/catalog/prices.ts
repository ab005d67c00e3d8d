import { OFFER_FILES_READ, PRICE_TABLE_ROWS, PRICE_TABLE_SOURCES } from './data/on-demand';
import type { OfferFileRead } from './data/on-demand';
import { Hosting, Price, PricingKind } from './types';

/*
 * Built-in hourly prices: offline fallbacks only. `catalog refresh` reads current ones from the AWS Price List API.
 *
 * On-demand prices by region come from the generated table `data/on-demand.ts` (`npm run prices:import` rewrites it
 * from downloaded AWS offer files); this file adds what no offer file holds: the RI-effective rates of the Neuron
 * performance pages and the us-east-1 SageMaker figures of third-party files, each replaced by a table row of the
 * same instance type, region, hosting and kind once an offer file provides one.
 *
 * Every number keeps its source (listed with how far to trust it in SOURCES.md); where no source has a number
 * (ml.trn1n, RI rates for trn1n, SageMaker outside us-east-1) there is no row; the one number the planner derives
 * instead, a SageMaker price outside us-east-1, is made at the end of this file, from listed prices, and says so.
 */

const NEURON = 'aws-neuron/aws-neuron-sdk 81ce03ae';
/** The NEURON snapshot the AWS-authored numbers were read from. */
const NEURON_READ = '2026-08-21';
/** The day this project read the third-party numbers out of the reference facts (their own date is unknown). */
const FACTS_READ = '2026-11-22';
/** The date the third-party SageMaker file says it read its list prices. */
const SAGEMAKER_THIRD_PARTY_READ = '2026-09-27';

const US_EAST_1 = 'us-east-1';

function row(
  instanceType: string, hosting: Hosting, kind: PricingKind, usdPerHour: number,
  source: string, asOf: string, unverified: boolean,
): Price {
  return Object.freeze({ instanceType, region: US_EAST_1, hosting, kind, usdPerHour, source, asOf, unverified });
}

// EC2 RI-effective: the "RI-Effective hourly rate" the Neuron performance pages use for cost per 1M inferences.
// The rates are AWS-authored; only the reservation term behind them is not stated (UNVERIFIED), hence the note.
const RI_NOTE = 'US East (N. Virginia) RI-effective rate used by the Neuron performance pages; reservation term not stated (UNVERIFIED)';
const INF1_RI = `${NEURON}: about-neuron/benchmarks/inf1/instance_prices.csv (${RI_NOTE})`;
const INF2_RI = `${NEURON}: about-neuron/benchmarks/inf2/inf2_instance_prices.csv (${RI_NOTE})`;
const TRN1_RI = `${NEURON}: about-neuron/benchmarks/trn1/trn1_instance_prices.csv (${RI_NOTE})`;
const riEffective = (name: string, usd: number, source: string): Price =>
  row(name, 'ec2', 'ri-effective', usd, source, NEURON_READ, false);

// SageMaker real-time inference (hosting) on-demand. All UNVERIFIED: one third-party file whose table is for
// Studio/notebook apps, not hosting; ml.inf1 figures conflict between third-party files.
const SM_THIRD_PARTY = 'UNVERIFIED: one third-party file ("us-east-1 list prices read on 2026-09-27"), whose table '
  + 'is for Studio/notebook apps, not hosting (see SOURCES.md, Prices)';
const SM_INF1_CONFLICT = 'UNVERIFIED: third-party files disagree (0.297 / 0.471-0.472 / 1.21-1.416 / 4.841 for '
  + 'xlarge / 2xlarge / 6xlarge / 24xlarge); the higher figure of each range is kept, to err towards cost '
  + '(see SOURCES.md, Prices)';
const sageMaker = (name: string, usd: number, source: string): Price =>
  row(name, 'sagemaker', 'on-demand', usd, source, name.startsWith('inf1.') ? FACTS_READ : SAGEMAKER_THIRD_PARTY_READ, true);

// A second third-party file: fmbench's pricing table (an aws-samples benchmarking tool, undated). It lists
// ml.inf2.* and ml.trn1.32xlarge under "SageMaker Hourly Instance Pricing" (hosting, unlike the Studio table above)
// and the same inf2 / trn1.32xlarge EC2 on-demand figures. It corroborates them but is no AWS price publication, so
// they stay UNVERIFIED like every third-party number here.
const FMBENCH = 'aws-samples/foundation-model-benchmarking-tool 00ef155d: src/fmbench/configs/pricing.yml '
  + '(third-party sample tool, undated)';
/** The day this project read the fmbench pricing file. */
const FMBENCH_READ = '2026-11-23';
const SM_CORROBORATED = `${SM_THIRD_PARTY}; the same figure in ${FMBENCH}, under SageMaker hosting`;
const SM_FMBENCH = `UNVERIFIED: ${FMBENCH}, "SageMaker Hourly Instance Pricing"; replaces 24.73 from the Studio/notebook `
  + 'table, which is not the hosting price';

/** The generated table's rows as prices. */
function tablePrices(): Price[] {
  return PRICE_TABLE_ROWS.map(([instanceType, region, hosting, usdPerHour, key]) => {
    const from = PRICE_TABLE_SOURCES[key];
    if (!from) {
      throw new Error(`lib/catalog/data/on-demand.ts: row ${instanceType} ${region} names unknown source "${key}"`);
    }
    return Object.freeze({ instanceType, region, hosting, kind: 'on-demand' as const, usdPerHour, ...from });
  });
}

/** The hand-kept rows of a key the table does not hold. */
function notInTable(rows: readonly Price[], table: readonly Price[]): Price[] {
  const key = (p: Price) => `${p.instanceType}|${p.region}|${p.hosting}|${p.kind}`;
  const tableKeys = new Set(table.map(key));
  return rows.filter((p) => !tableKeys.has(key(p)));
}

/** Prices no offer file holds, kept by hand (all us-east-1). */
const HAND_KEPT: readonly Price[] = [
  riEffective('inf1.xlarge', 0.110, INF1_RI),
  riEffective('inf1.2xlarge', 0.174, INF1_RI),
  riEffective('inf1.6xlarge', 0.567, INF1_RI),
  riEffective('inf1.24xlarge', 2.269, INF1_RI),
  riEffective('inf2.xlarge', 0.328, INF2_RI),
  riEffective('inf2.8xlarge', 0.850, INF2_RI),
  riEffective('inf2.24xlarge', 2.804, INF2_RI),
  riEffective('inf2.48xlarge', 5.608, INF2_RI),
  riEffective('trn1.2xlarge', 0.512, TRN1_RI),
  riEffective('trn1.32xlarge', 8.197, TRN1_RI),

  sageMaker('inf1.xlarge', 0.297, SM_INF1_CONFLICT),
  sageMaker('inf1.2xlarge', 0.472, SM_INF1_CONFLICT),
  sageMaker('inf1.6xlarge', 1.416, SM_INF1_CONFLICT),
  sageMaker('inf1.24xlarge', 4.841, SM_INF1_CONFLICT),
  sageMaker('inf2.xlarge', 0.99, SM_CORROBORATED),
  sageMaker('inf2.8xlarge', 2.36, SM_CORROBORATED),
  sageMaker('inf2.24xlarge', 7.79, SM_CORROBORATED),
  sageMaker('inf2.48xlarge', 15.58, SM_CORROBORATED),
  sageMaker('trn1.2xlarge', 1.54, SM_THIRD_PARTY),
  row('trn1.32xlarge', 'sagemaker', 'on-demand', 28.497, SM_FMBENCH, FMBENCH_READ, true),
];

const TABLE = tablePrices();

/**
 * The built-in prices: on-demand EC2 by region from the generated table, then the RI-effective rates and the
 * SageMaker prices (us-east-1) kept by hand.
 *
 * `unverified: true` marks every number the reference facts mark UNVERIFIED; the CLI prints those as `UNVERIFIED`.
 *
 * @see https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/inf2/inf2-performance.html
 */
export const BUILT_IN_PRICES: readonly Price[] = Object.freeze([...TABLE, ...notInTable(HAND_KEPT, TABLE)]);

/*
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

/** The region whose SageMaker and EC2 prices give the ratio. */
export const SAGEMAKER_RATIO_REGION = 'us-east-1';

const slot = (instanceType: string, region: string, hosting: string) => `${instanceType}|${region}|${hosting}`;

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
    if (p.kind === 'on-demand') onDemand.set(slot(p.instanceType, p.region, p.hosting), p);
  }
  const sageMakerFileRead = new Set(offersRead.filter((o) => o.service === 'AmazonSageMaker').map((o) => o.region));
  const estimates: Price[] = [];
  for (const ec2 of onDemand.values()) {
    if (ec2.hosting !== 'ec2' || sageMakerFileRead.has(ec2.region) || onDemand.has(slot(ec2.instanceType, ec2.region, 'sagemaker'))) {
      continue;
    }
    const smRef = onDemand.get(slot(ec2.instanceType, SAGEMAKER_RATIO_REGION, 'sagemaker'));
    const ec2Ref = onDemand.get(slot(ec2.instanceType, SAGEMAKER_RATIO_REGION, 'ec2'));
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
