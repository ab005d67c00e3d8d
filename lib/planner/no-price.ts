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

/** The regions (with hosting and kind) where the catalog prices any of `instanceTypes`, as `us-east-2 (ec2 on-demand)`. */
export function wherePriced(catalog: Catalog, instanceTypes: readonly string[]): string[] {
  const byRegion = new Map<string, Set<string>>();
  for (const p of instanceTypes.flatMap((t) => catalog.pricesOf(t))) {
    byRegion.set(p.region, (byRegion.get(p.region) ?? new Set()).add(`${p.hosting} ${p.kind}`));
  }
  return [...byRegion.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([region, kinds]) => `${region} (${[...kinds].join(', ')})`);
}

/**
 * `no on-demand ec2 price for trn2.48xlarge in us-west-2; the catalog prices it in us-east-2 (ec2 on-demand): plan
 * there, or add its price with a price file (...)`.
 */
export function noPriceReason(catalog: Catalog, types: readonly UnpricedType[], region: string, hosting: Hosting, pricing: PricingKind): string {
  const names = types.map((t) => t.ec2Name);
  const where = wherePriced(catalog, names);
  const it = types.length > 1 ? 'them' : 'it';
  // `catalog refresh` reads on-demand prices; other kinds are written by hand.
  const file = pricing === 'on-demand'
    ? `\`cdk-inferentia catalog refresh --regions ${region} --instance-types ${names.join(',')} --out prices.json\``
    : `{"prices":[{"instanceType":"${names[0]}","region":"${region}","hosting":"${hosting}","kind":"${pricing}","usdPerHour":...}]}`;
  return `no ${pricing} ${hosting} price for ${types.map((t) => t.shown).join(', ')} in ${region}; ` +
    (where.length > 0
      ? `the catalog prices ${it} in ${where.slice(0, 6).join(', ')}${where.length > 6 ? ` and ${where.length - 6} more regions` : ''}: plan there, or `
      : `the catalog prices ${it} nowhere: `) +
    `add the price with a price file (${file}, then --prices prices.json; Catalog.withPriceFile in code)`;
}
