import { Catalog } from '../../../lib/catalog/catalog';
import { hardwareProblems } from '../../../lib/catalog/hardware-rules';
import { BUILT_IN_INSTANCES } from '../../../lib/catalog/instances';
import { parsePriceFile } from '../../../lib/catalog/price-file';
import { problemsOf } from '../../support/input-error';

/** A Trn3 as a price file defines it: 16 Trainium3 chips at LNC=1 (8 NeuronCore-v4 each, 144 GiB). */
const TRN3 = { name: 'trn3.48xlarge', chips: 16, coresPerChip: 8, logicalNeuronCoreConfig: 1, coreVersion: 'v4', deviceMemoryPerChipGiB: 144, vcpus: 192, memoryGiB: 2048 };
const TRN2 = Catalog.builtIn().instance('trn2.48xlarge')!;
const PRICE = { region: 'us-east-1', hosting: 'ec2', usdPerHour: 50 };

/** The problems of a price file defining `instance` and pricing it. */
const instanceProblems = (instance: Record<string, unknown>) =>
  problemsOf(() => parsePriceFile({ instances: [instance], prices: [{ instanceType: instance.name, ...PRICE }] }, 'prices.json'));

describe('Every instance type passes the hardware rules of its chip', () => {
  test.each(BUILT_IN_INSTANCES.map((s) => [s.name, s] as const))('GIVEN the built-in %s THEN it has no problem', (_name, spec) => {
    expect(hardwareProblems(spec)).toEqual([]);
  });

  test.each([
    ['a Trn3 with NeuronCore-v2 and LNC=3', { ...TRN3, coreVersion: 'v2', logicalNeuronCoreConfig: 3 }, [
      'prices.json: instances[0].coreVersion: expected "v4" for trn3 (Trainium3), got "v2"',
      'prices.json: instances[0].logicalNeuronCoreConfig: expected 1 or 2 on trn3 (Trainium3) (physical NeuronCores one logical core combines), got 3',
    ]],
    ['a trn2u with no LNC and the LNC=2 core count', { ...TRN2, name: 'trn2u.48xlarge', family: undefined, logicalNeuronCoreConfig: undefined, source: undefined, unverified: undefined }, [
      'prices.json: instances[0].coresPerChip: expected 8 for trn2u (Trainium2) at logicalNeuronCoreConfig 1 (8 physical NeuronCore-v3 per chip / 1), got 4; '
        + 'at the default LNC=2 also give "logicalNeuronCoreConfig": 2',
    ]],
    ['an Inf2 with 64 GiB a chip and LNC=2', { name: 'inf2.96xlarge', chips: 24, coresPerChip: 2, logicalNeuronCoreConfig: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 64, vcpus: 384, memoryGiB: 1536 }, [
      'prices.json: instances[0].logicalNeuronCoreConfig: inf2 (Inferentia2) has no Logical NeuronCore Configuration (every core is physical); leave it out, got 2',
      'prices.json: instances[0].deviceMemoryPerChipGiB: expected 32 for inf2 (Inferentia2), got 64',
    ]],
    ['a GPU instance', { ...TRN3, name: 'g5.xlarge' }, [
      'prices.json: instances[0].name: "g5.xlarge" is not of a Neuron instance family (inf1, inf2, trn1, trn1n, trn2, trn2u, trn3); the planner plans Inferentia and Trainium only',
    ]],
  ])('GIVEN a price file defining %s THEN each wrong fact is named with the right one', (_what, instance, problems) => {
    expect(instanceProblems(JSON.parse(JSON.stringify(instance)))).toEqual(problems);
  });

  test('GIVEN a Trn3 with its chip\'s facts THEN the file is read', () => {
    expect(instanceProblems(TRN3)).toEqual([]);
  });
});

describe('A price file redefines a built-in type only when it says so', () => {
  const twelveChips = { name: 'trn2.48xlarge', chips: 12, coresPerChip: 4, logicalNeuronCoreConfig: 2, coreVersion: 'v3', deviceMemoryPerChipGiB: 96, vcpus: 192, memoryGiB: 2048 };

  test('GIVEN trn2.48xlarge with 12 chips THEN it is refused, naming the fact it changes and both fixes', () => {
    expect(instanceProblems(twelveChips)).toEqual([
      'prices.json: instances[0]: "trn2.48xlarge" is built in, and this entry changes its chips 12 (built in: 16); drop the entry to plan '
        + 'with the built-in facts, or add "replacesBuiltIn": true to replace them',
    ]);
  });

  test('GIVEN the same with "replacesBuiltIn": true THEN the file replaces the built-in facts', () => {
    const file = parsePriceFile({ instances: [{ ...twelveChips, replacesBuiltIn: true }], prices: [] }, 'prices.json');
    expect(Catalog.builtIn().withPriceFile(file).instance('trn2.48xlarge')).toMatchObject({ chips: 12 });
    expect(file.instances[0]).not.toHaveProperty('replacesBuiltIn');
  });

  test('GIVEN the built-in facts again (as catalog refresh writes them) THEN no flag is needed', () => {
    const facts = Object.fromEntries(Object.entries(TRN2).filter(([k]) => !['source', 'unverified', 'family'].includes(k)));
    expect(instanceProblems({ ...facts, source: 'EC2 DescribeInstanceTypes' })).toEqual([]);
  });

  test('GIVEN "replacesBuiltIn": true on a type that is not built in THEN it is refused', () => {
    expect(instanceProblems({ ...TRN3, replacesBuiltIn: true })).toEqual([
      'prices.json: instances[0].replacesBuiltIn: "trn3.48xlarge" is not built in, so there is nothing to replace; leave replacesBuiltIn out',
    ]);
  });
});

describe('A price file\'s prices are prices a Neuron instance can have', () => {
  test.each([
    [{ instanceType: 'inf2.48xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 1e308 }, 'prices.json: prices[0].usdPerHour: expected USD per instance-hour '
      + 'of at most 1,000 (the dearest Neuron instance lists under 150; is it a monthly or yearly figure?), got 1e+308'],
    [{ instanceType: 'trn2.48xlarge', region: 'us-east-1', hosting: 'sagemaker', usdPerHour: 30, kind: 'capacity-block' }, 'prices.json: prices[0].kind: '
      + '"capacity-block" is the rate of an EC2 Capacity Block for ML, which SageMaker hosting is not billed by; give it with "hosting": "ec2", or give '
      + 'the SageMaker hosting price with "kind": "on-demand"'],
  ])('GIVEN %j THEN it is refused with the fix', (price, problem) => {
    expect(problemsOf(() => parsePriceFile({ prices: [price] }, 'prices.json'))).toEqual([problem]);
  });

  test('GIVEN asOf 2026-13-45 THEN the date is refused: the pattern alone took it', () => {
    expect(problemsOf(() => parsePriceFile({ asOf: '2026-13-45', prices: [] }, 'prices.json')))
      .toEqual(['prices.json: asOf: expected a date the calendar has, such as 2026-11-22, got "2026-13-45"']);
  });
});
