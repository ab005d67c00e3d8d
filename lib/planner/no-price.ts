/**
 * Why instance types have no price for a request, said so the user can act: where the catalog does price them, and
 * how to add the price that is missing. "no on-demand ec2 price for trn2.48xlarge in us-west-2" alone never said that
 * Trn2 is priced in us-east-2 only, nor that a price file adds one.
 */
import type { Catalog } from '../catalog/catalog';
import type { Hosting, PricingKind } from '../catalog/types';

/** An instance type by its EC2 name, and as the plan shows it (`ml.` on SageMaker). */
export interface UnpricedType {
  readonly ec2Name: string;
  readonly shown: string;
}

/** The regions where the catalog prices any of `instanceTypes` for the hosting and kind, sorted. */
function regionsPricing(catalog: Catalog, instanceTypes: readonly string[], hosting: Hosting, pricing: PricingKind): string[] {
  const regions = instanceTypes.flatMap((t) => catalog.pricesOf(t)).filter((p) => p.hosting === hosting && p.kind === pricing).map((p) => p.region);
  return [...new Set(regions)].sort();
}

/** `us-east-2 (ec2 on-demand)`: every region and what it prices, when none prices the hosting and kind asked for. */
function otherPrices(catalog: Catalog, instanceTypes: readonly string[]): string[] {
  const byRegion = new Map<string, Set<string>>();
  for (const p of instanceTypes.flatMap((t) => catalog.pricesOf(t))) {
    byRegion.set(p.region, (byRegion.get(p.region) ?? new Set()).add(`${p.hosting} ${p.kind}`));
  }
  return [...byRegion.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([region, kinds]) => `${region} (${[...kinds].join(', ')})`);
}

/** At most `n` items, then how many more. */
const some = (items: readonly string[], n = 6) => `${items.slice(0, n).join(', ')}${items.length > n ? ` and ${items.length - n} more` : ''}`;

/**
 * `no on-demand ec2 price for trn2.48xlarge in us-west-2; the catalog prices it for ec2 on-demand in us-east-2: plan
 * there (--region us-east-2), or add its price with a price file (...)`.
 */
export function noPriceReason(catalog: Catalog, types: readonly UnpricedType[], region: string, hosting: Hosting, pricing: PricingKind): string {
  const names = types.map((t) => t.ec2Name);
  const it = types.length > 1 ? 'them' : 'it';
  const same = regionsPricing(catalog, names, hosting, pricing);
  const other = otherPrices(catalog, names);
  // `catalog refresh` reads on-demand prices; other kinds are written by hand.
  const file = pricing === 'on-demand'
    ? `\`cdk-inferentia catalog refresh --regions ${region} --instance-types ${names.join(',')} --out prices.json\``
    : `{"prices":[{"instanceType":"${names[0]}","region":"${region}","hosting":"${hosting}","kind":"${pricing}","usdPerHour":...}]}`;
  const where = same.length > 0
    ? `the catalog prices ${it} for ${hosting} ${pricing} in ${some(same)}: plan there (--region ${same[0]}), or `
    : other.length > 0
      ? `the catalog prices ${it} for ${hosting} ${pricing} nowhere, only in ${some(other)}: plan for what it prices, or `
      : `the catalog prices ${it} nowhere: `;
  return `no ${pricing} ${hosting} price for ${types.map((t) => t.shown).join(', ')} in ${region}; ${where}` +
    `add the price with a price file (${file}, then --prices prices.json; Catalog.withPriceFile in code)`;
}
