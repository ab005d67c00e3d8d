import {
  BUILT_IN_INSTANCES, BUILT_IN_PRICES, Catalog, deviceMemoryPerCoreGiB, ec2Name, neuronCores, parsePriceFile, sageMakerName,
} from '../../../lib/catalog';
import { sageMakerAvailability } from '../../../lib/catalog/availability';

const ALL_NAMES = [
  'inf1.xlarge', 'inf1.2xlarge', 'inf1.6xlarge', 'inf1.24xlarge',
  'inf2.xlarge', 'inf2.8xlarge', 'inf2.24xlarge', 'inf2.48xlarge',
  'trn1.2xlarge', 'trn1.32xlarge', 'trn1n.32xlarge',
  'trn2.48xlarge',
];

describe('the built-in catalog holds the Neuron facts of the reference', () => {
  const catalog = Catalog.builtIn();

  test('it lists the twelve Inf1, Inf2, Trn1, Trn1n and Trn2 instance types in family then size order', () => {
    // GIVEN the built-in catalog WHEN listing its names THEN they are the eleven types of the first issue and trn2.48xlarge
    expect(catalog.instances.map((s) => s.name)).toEqual(ALL_NAMES);
  });

  // Per family: cores per chip, core version, GiB per chip; then per size: chips, NeuronCores (chips x cores per chip),
  // vCPU, host GiB (SOURCES.md, Instances).
  const FACTS = [
    ['inf1', 4, 'v1', 8, { 'xlarge': [1, 4, 4, 8], '2xlarge': [1, 4, 8, 16], '6xlarge': [4, 16, 24, 48], '24xlarge': [16, 64, 96, 192] }],
    ['inf2', 2, 'v2', 32, { 'xlarge': [1, 2, 4, 16], '8xlarge': [1, 2, 32, 128], '24xlarge': [6, 12, 96, 384], '48xlarge': [12, 24, 192, 768] }],
    ['trn1', 2, 'v2', 32, { '2xlarge': [1, 2, 8, 32], '32xlarge': [16, 32, 128, 512] }],
    ['trn1n', 2, 'v2', 32, { '32xlarge': [16, 32, 128, 512] }],
    ['trn2', 4, 'v3', 96, { '48xlarge': [16, 64, 192, 2048] }],
  ] as const;

  test.each(FACTS.flatMap(([family, perChip, version, gib, sizes]) =>
    Object.entries(sizes).map(([size, [chips, cores, vcpus, mem]]) => [`${family}.${size}`, chips, perChip, cores, version, gib, vcpus, mem] as const),
  ))('%s has %i chips x %i cores = %i NeuronCores (%s), %i GiB per chip, %i vCPU, %i GiB', (name, chips, perChip, cores, version, gib, vcpus, mem) => {
    // GIVEN the facts table (SOURCES.md, Instances) WHEN reading the spec THEN every field matches it
    const spec = catalog.instance(name)!;
    expect(spec).toMatchObject({
      name, family: name.split('.')[0], chips, coresPerChip: perChip, coreVersion: version, deviceMemoryPerChipGiB: gib,
      vcpus: vcpus, memoryGiB: mem, unverified: false,
    });
    expect(neuronCores(spec)).toBe(cores);
    expect(spec.source).toContain('aws-neuron-sdk');
  });

  test('device memory per NeuronCore is 2 GiB on Inf1 and 16 GiB on Inf2 and Trn1', () => {
    // GIVEN 8 GiB over 4 cores (Inf1) and 32 GiB over 2 cores (Inf2/Trn1) WHEN dividing THEN 2 and 16
    expect(deviceMemoryPerCoreGiB(catalog.instance('inf1.6xlarge')!)).toBe(2);
    expect(deviceMemoryPerCoreGiB(catalog.instance('inf2.48xlarge')!)).toBe(16);
    expect(deviceMemoryPerCoreGiB(catalog.instance('trn1.2xlarge')!)).toBe(16);
  });

  test('every instance type but trn2.48xlarge has a us-east-1 EC2 on-demand price', () => {
    // GIVEN the built-in prices WHEN looking each type up THEN only trn2.48xlarge, for which no source was found, is missing
    const missing = ALL_NAMES.filter((n) => catalog.price(n, 'us-east-1', 'ec2', 'on-demand') === undefined);
    expect(missing).toEqual(['trn2.48xlarge']);
  });

  test.each([
    // instance, hosting, kind, USD/h, unverified (SOURCES.md, Prices)
    ['inf1.xlarge', 'ec2', 'on-demand', 0.228, false],
    ['inf1.24xlarge', 'ec2', 'on-demand', 4.721, false],
    ['inf2.xlarge', 'ec2', 'on-demand', 0.7582, false],
    ['inf2.8xlarge', 'ec2', 'on-demand', 1.96786, false],
    ['trn1.2xlarge', 'ec2', 'on-demand', 1.34375, false],
    ['trn1n.32xlarge', 'ec2', 'on-demand', 24.78, false],
    ['inf2.xlarge', 'ec2', 'ri-effective', 0.328, false],
    ['trn1.32xlarge', 'ec2', 'ri-effective', 8.197, false],
    ['inf2.xlarge', 'sagemaker', 'on-demand', 0.99, true],
    ['trn1.32xlarge', 'sagemaker', 'on-demand', 28.497, true],
    // ml.inf1: conflicting third-party values; the higher figure of each range.
    ['inf1.xlarge', 'sagemaker', 'on-demand', 0.297, true],
    ['inf1.2xlarge', 'sagemaker', 'on-demand', 0.472, true],
    ['inf1.6xlarge', 'sagemaker', 'on-demand', 1.416, true],
    ['inf1.24xlarge', 'sagemaker', 'on-demand', 4.841, true],
  ] as const)('%s %s %s costs %d USD/h, unverified=%s', (name, hosting, kind, usd, unverified) => {
    // GIVEN the facts file WHEN looking the price up THEN the number and its UNVERIFIED flag match it
    const price = catalog.price(name, 'us-east-1', hosting, kind)!;
    expect(price).toMatchObject({ instanceType: name, region: 'us-east-1', usdPerHour: usd, unverified });
    expect(price.source.length).toBeGreaterThan(0);
    expect(price.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  test('UNVERIFIED values carry the word in their source and verified ones do not claim it for the value', () => {
    // GIVEN every built-in price WHEN it is flagged unverified THEN its source says UNVERIFIED
    for (const p of BUILT_IN_PRICES.filter((x) => x.unverified)) {
      expect(p.source).toMatch(/UNVERIFIED/);
    }
    // AND exactly the EC2 prices (on-demand from the AWS price list, RI-effective from the Neuron pages) are verified
    const verified = BUILT_IN_PRICES.filter((p) => !p.unverified);
    expect(verified.every((p) => p.hosting === 'ec2')).toBe(true);
    expect(BUILT_IN_PRICES.filter((p) => p.hosting === 'ec2').every((p) => !p.unverified)).toBe(true);
  });

  test('the ml.inf1 prices say they keep the higher of the conflicting figures', () => {
    expect(catalog.price('ml.inf1.6xlarge', 'us-east-1', 'sagemaker')!.source).toMatch(/higher figure/);
  });

  test('there are no invented rows: no ml.trn1n price, no trn1n RI rate, no listed SageMaker price outside us-east-1 (only ESTIMATEs)', () => {
    // GIVEN the sources have no number for these WHEN looking them up THEN there is no row
    expect(catalog.price('trn1n.32xlarge', 'us-east-1', 'sagemaker')).toBeUndefined();
    expect(catalog.price('trn1n.32xlarge', 'us-east-1', 'ec2', 'ri-effective')).toBeUndefined();
    const sageMaker = catalog.prices.filter((p) => p.hosting === 'sagemaker');
    expect([...new Set(sageMaker.filter((p) => p.estimate === undefined).map((p) => p.region))]).toEqual(['us-east-1']);
    expect(sageMaker.filter((p) => p.region !== 'us-east-1').every((p) => p.estimate !== undefined && p.unverified)).toBe(true);
    expect(catalog.regionsWithPrices('ec2', 'ri-effective')).toEqual(['us-east-1']);
    // AND eu-west-1 has no trn1 (the AWS price list publishes none there)
    expect(catalog.price('trn1.32xlarge', 'eu-west-1', 'ec2')).toBeUndefined();
    expect(BUILT_IN_PRICES).toHaveLength(141 + 10 + 10);
  });

  test.each([
    // region, instance, USD/h (AWS price list, SOURCES.md)
    ['eu-west-1', 'inf2.xlarge', 0.94775],
    ['eu-west-1', 'inf1.xlarge', 0.254],
    ['ap-northeast-1', 'inf2.48xlarge', 19.4719],
    ['us-west-2', 'trn1.32xlarge', 21.5],
    ['us-gov-west-1', 'inf1.2xlarge', 0.456],
  ] as const)('EC2 on-demand in %s: %s costs %d USD/h, with its source and date', (region, name, usd) => {
    const price = catalog.price(name, region, 'ec2')!;
    expect(price).toMatchObject({ region, usdPerHour: usd, unverified: false, asOf: '2026-11-25' });
    expect(price.source).toMatch(/AWS Price List/);
  });

  test('every Neuron region of the table prices EC2 on demand, inf2 where the price list has it', () => {
    const regions = catalog.regionsWithPrices('ec2', 'on-demand');
    expect(regions).toEqual(expect.arrayContaining(['us-east-1', 'us-east-2', 'us-west-2', 'eu-west-1', 'ap-northeast-1', 'eu-central-1']));
    expect(regions).toHaveLength(21);
  });

  test('the built-in data is frozen so no caller can change another caller\'s catalog', () => {
    expect(Object.isFrozen(BUILT_IN_INSTANCES)).toBe(true);
    expect(Object.isFrozen(BUILT_IN_INSTANCES[0])).toBe(true);
    expect(Object.isFrozen(BUILT_IN_PRICES[0])).toBe(true);
    expect(Catalog.builtIn()).toBe(catalog);
  });
});

describe('names convert between EC2 and SageMaker', () => {
  test('sageMakerName adds ml. once and ec2Name strips it', () => {
    expect(sageMakerName('inf2.xlarge')).toBe('ml.inf2.xlarge');
    expect(sageMakerName('ml.inf2.xlarge')).toBe('ml.inf2.xlarge');
    expect(ec2Name('ml.inf2.xlarge')).toBe('inf2.xlarge');
    expect(ec2Name('inf2.xlarge')).toBe('inf2.xlarge');
  });

  test('instance and price lookups accept both spellings', () => {
    const catalog = Catalog.builtIn();
    expect(catalog.instance('ml.inf2.8xlarge')).toBe(catalog.instance('inf2.8xlarge'));
    expect(catalog.price('ml.inf2.8xlarge', 'us-east-1', 'sagemaker')?.usdPerHour).toBe(2.36);
    expect(catalog.instance('m5.xlarge')).toBeUndefined();
  });
});

describe('a price file overrides and extends the catalog', () => {
  const file = parsePriceFile({
    source: 'team rates',
    asOf: '2026-11-01',
    instances: [
      // overrides the built-in inf2.xlarge (a hypothetical correction, said with replacesBuiltIn) and adds a hypothetical future size
      { name: 'inf2.xlarge', chips: 1, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 4, memoryGiB: 15, replacesBuiltIn: true },
      { name: 'inf2.96xlarge', chips: 24, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 384, memoryGiB: 1536 },
    ],
    prices: [
      { instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 0.76 },
      { instanceType: 'inf2.xlarge', region: 'il-central-1', hosting: 'ec2', usdPerHour: 0.8 },
      { instanceType: 'inf2.96xlarge', region: 'us-east-2', hosting: 'sagemaker', usdPerHour: 50, unverified: true },
    ],
  }, 'team.json');

  const base = Catalog.builtIn();
  const merged = base.withPriceFile(file);

  test('a price with the same instance type, region, hosting and kind replaces the built-in one in place', () => {
    // GIVEN the built-in 0.7582 WHEN the file gives 0.76 THEN the file wins, with its source and date
    expect(merged.price('inf2.xlarge', 'us-east-1', 'ec2')).toEqual({
      instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'ec2', kind: 'on-demand', usdPerHour: 0.76,
      source: 'team rates', asOf: '2026-11-01', unverified: false,
    });
    const at = base.prices.indexOf(base.price('inf2.xlarge', 'us-east-1', 'ec2')!);
    expect(merged.prices.indexOf(merged.price('inf2.xlarge', 'us-east-1', 'ec2')!)).toBe(at);
    // AND the RI-effective price of the same instance is untouched
    expect(merged.price('inf2.xlarge', 'us-east-1', 'ec2', 'ri-effective')?.usdPerHour).toBe(0.328);
  });

  test('other prices extend the catalog, and the regions follow', () => {
    // The two listed prices, and the SageMaker estimate il-central-1's EC2 price brings.
    expect(merged.prices).toHaveLength(base.prices.length + 3);
    expect(merged.price('inf2.xlarge', 'il-central-1', 'ec2')?.usdPerHour).toBe(0.8);
    expect(merged.regionsWithPrices()).toEqual([...base.regionsWithPrices(), 'il-central-1'].sort());
    expect(merged.regionsWithPrices('ec2')).toEqual([...base.regionsWithPrices('ec2'), 'il-central-1'].sort());
    expect([...new Set(merged.prices.filter((p) => p.hosting === 'sagemaker' && p.estimate === undefined).map((p) => p.region))].sort())
      .toEqual(['us-east-1', 'us-east-2']);
    expect(merged.regionsWithPrices('sagemaker', 'on-demand')).toContain('il-central-1');
    expect(merged.regionsWithPrices('ec2', 'ri-effective')).toEqual(['us-east-1']);
  });

  test('instances replace by name in place and new ones are appended', () => {
    expect(merged.instances.map((s) => s.name)).toEqual([...ALL_NAMES, 'inf2.96xlarge']);
    expect(merged.instance('inf2.xlarge')).toMatchObject({ memoryGiB: 15, family: 'inf2', source: 'team rates' });
    expect(merged.instance('ml.inf2.96xlarge')).toMatchObject({ family: 'inf2', chips: 24 });
  });

  test('the original catalog is unchanged', () => {
    expect(base.price('inf2.xlarge', 'us-east-1', 'ec2')?.usdPerHour).toBe(0.7582);
    expect(base.instance('inf2.96xlarge')).toBeUndefined();
    expect(base.pricesOf('ml.inf2.xlarge').filter((p) => p.region === 'us-east-1').map((p) => `${p.hosting}/${p.kind}`))
      .toEqual(['ec2/on-demand', 'ec2/ri-effective', 'sagemaker/on-demand']);
  });
});

describe('SageMaker availability per region follows the price evidence', () => {
  const catalog = Catalog.builtIn();

  test('GIVEN a SageMaker price THEN the type is offered, with the price as evidence', () => {
    expect(sageMakerAvailability(catalog, 'ml.inf2.xlarge', 'us-east-1')).toMatchObject({ availability: 'offered', evidence: expect.stringMatching(/^priced at 0\.99 USD\/h/) });
  });

  test('GIVEN an imported SageMaker offer file of the region without the type THEN it is not offered', () => {
    const offers = [{ service: 'AmazonSageMaker', region: 'ap-northeast-1', version: '20261002000000', asOf: '2026-11-25' }];
    expect(sageMakerAvailability(catalog, 'trn1n.32xlarge', 'ap-northeast-1', offers)).toEqual({
      availability: 'not-offered',
      evidence: 'the AmazonSageMaker offer file of ap-northeast-1 (version 20261002000000), imported 2026-11-25, has no real-time hosting price for ml.trn1n.32xlarge',
    });
  });

  test('GIVEN neither THEN it is unknown, and the evidence says how to find out', () => {
    expect(sageMakerAvailability(catalog, 'inf2.xlarge', 'eu-west-1')).toMatchObject({ availability: 'unknown', evidence: expect.stringMatching(/catalog refresh or npm run prices:import/) });
  });
});
