import { Hosting, Price, PricingKind } from './types';

/*
 * Built-in hourly prices: offline fallbacks only. `catalog refresh` reads current ones from the AWS Price List API.
 *
 * Every number keeps its source (listed with how far to trust it in SOURCES.md); where no source has a number
 * (other regions, ml.trn1n, RI rates for trn1n) there is no row, so the planner never prices with a guess.
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

// EC2 on-demand Linux. Inf1 from AWS-authored code (undated, around 2021-22); the rest are UNVERIFIED.
const INF1_OD = `${NEURON}: src/neuronperf/src/neuronperf/benchmarking.py _get_cost_per_hour (AWS-authored, undated)`;
const THIRD_PARTY_OD = 'UNVERIFIED: identical in several independent third-party code files; no AWS page found '
  + '(see SOURCES.md, Prices)';
const ec2OnDemand = (name: string, usd: number, source: string, asOf: string, unverified: boolean): Price =>
  row(name, 'ec2', 'on-demand', usd, source, asOf, unverified);

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
const OD_CORROBORATED = `${THIRD_PARTY_OD}; the same figure in ${FMBENCH}`;
const SM_CORROBORATED = `${SM_THIRD_PARTY}; the same figure in ${FMBENCH}, under SageMaker hosting`;
const SM_FMBENCH = `UNVERIFIED: ${FMBENCH}, "SageMaker Hourly Instance Pricing"; replaces 24.73 from the Studio/notebook `
  + 'table, which is not the hosting price';

/**
 * The built-in prices, all in us-east-1.
 *
 * `unverified: true` marks every number the reference facts mark UNVERIFIED; the CLI prints those as `UNVERIFIED`.
 *
 * @see https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/benchmarks/inf2/inf2-performance.html
 */
export const BUILT_IN_PRICES: readonly Price[] = Object.freeze([
  ec2OnDemand('inf1.xlarge', 0.228, INF1_OD, NEURON_READ, false),
  ec2OnDemand('inf1.2xlarge', 0.362, INF1_OD, NEURON_READ, false),
  ec2OnDemand('inf1.6xlarge', 1.18, INF1_OD, NEURON_READ, false),
  ec2OnDemand('inf1.24xlarge', 4.721, INF1_OD, NEURON_READ, false),
  ec2OnDemand('inf2.xlarge', 0.7582, OD_CORROBORATED, FACTS_READ, true),
  ec2OnDemand('inf2.8xlarge', 1.9679, OD_CORROBORATED, FACTS_READ, true),
  ec2OnDemand('inf2.24xlarge', 6.4906, OD_CORROBORATED, FACTS_READ, true),
  ec2OnDemand('inf2.48xlarge', 12.9813, OD_CORROBORATED, FACTS_READ, true),
  ec2OnDemand('trn1.2xlarge', 1.3438, THIRD_PARTY_OD, FACTS_READ, true),
  ec2OnDemand('trn1.32xlarge', 21.50, OD_CORROBORATED, FACTS_READ, true),
  ec2OnDemand('trn1n.32xlarge', 24.78, THIRD_PARTY_OD, FACTS_READ, true),

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
]);
