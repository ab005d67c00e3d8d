import 'aws-sdk-client-mock-jest';
import {
  DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, EC2Client, InstanceTypeInfo,
} from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { refreshCatalog } from '../../../io/catalog';
import { Catalog, parsePriceFile } from '../../../lib/catalog';
import { parsePriceListItem, toInstanceSpec } from '../../../io/catalog/refresh';
import { InputError } from '../../../lib/errors';
import { INF1_XLARGE, INF2_8XLARGE, INF2_XLARGE, TRN1_2XLARGE, TRN2_48XLARGE } from '../../lib/catalog/fixtures/ec2';
import { fakeGetProducts, PRODUCTS } from '../../lib/catalog/fixtures/price-list';

const NOW = new Date('2026-11-22T10:00:00Z');
const TYPES = ['inf2.xlarge', 'inf2.8xlarge', 'trn1.2xlarge'];

/** A fake regional EC2: offers `offered`, describes them from `infos`. */
function fakeEc2(region: string, offered: string[], infos: InstanceTypeInfo[]) {
  const client = new EC2Client({ region });
  const mock = mockClient(client);
  mock.on(DescribeInstanceTypeOfferingsCommand).callsFake((input: { Filters: { Name: string; Values: string[] }[] }) => {
    const wanted = input.Filters.find((f) => f.Name === 'instance-type')!.Values;
    return {
      InstanceTypeOfferings: offered.filter((t) => wanted.includes(t))
        .map((t) => ({ InstanceType: t, LocationType: 'region', Location: region })),
    };
  });
  mock.on(DescribeInstanceTypesCommand).callsFake((input: { InstanceTypes: string[] }) => ({
    InstanceTypes: infos.filter((i) => input.InstanceTypes.includes(i.InstanceType!)),
  }));
  return { client, mock };
}

function setUp() {
  const pricing = new PricingClient({ region: 'us-east-1' });
  const pricingMock = mockClient(pricing);
  pricingMock.on(GetProductsCommand).callsFake((input) => fakeGetProducts(input));
  const useast = fakeEc2('us-east-1', ['inf1.xlarge', ...TYPES, 'trn1.32xlarge'], [INF2_XLARGE, INF2_8XLARGE, TRN1_2XLARGE]);
  const euwest = fakeEc2('eu-west-1', ['inf2.xlarge', 'inf2.8xlarge'], [INF2_XLARGE, INF2_8XLARGE]);
  const ec2 = (region: string) => (region === 'us-east-1' ? useast.client : euwest.client);
  return { pricing, pricingMock, useast, euwest, ec2 };
}

/** The Price List filters that match each of `fields` exactly, in order. */
function termMatch(fields: Record<string, string>): { Type: string; Field: string; Value: string }[] {
  return Object.entries(fields).map(([Field, Value]) => ({ Type: 'TERM_MATCH', Field, Value }));
}

describe('refreshCatalog reads facts, offerings and on-demand prices from AWS', () => {
  test('it prices offered EC2 types and SageMaker hosting per region, skipping other products', async () => {
    // GIVEN us-east-1 offering all three types and eu-west-1 only the two inf2 types
    const { pricing, ec2 } = setUp();

    // WHEN refreshing both regions for both hostings
    const file = await refreshCatalog({ regions: ['us-east-1', 'eu-west-1'], hostings: ['ec2', 'sagemaker'], instanceTypes: TYPES, pricing, ec2, now: NOW });

    // THEN the prices are the on-demand Linux/shared/no-software/Used and Host:ml.* products, nothing else
    const rows = file.prices.map((p) => [p.region, p.hosting, p.instanceType, p.usdPerHour]);
    expect(rows).toEqual([
      ['us-east-1', 'ec2', 'inf2.xlarge', 0.7582],
      ['us-east-1', 'ec2', 'inf2.8xlarge', 1.9679],
      ['us-east-1', 'ec2', 'trn1.2xlarge', 1.3438],
      ['us-east-1', 'sagemaker', 'inf2.xlarge', 0.99], // not the AsyncInf 1.01 nor the Training 0.95
      ['us-east-1', 'sagemaker', 'trn1.2xlarge', 1.54], // no ml.inf2.8xlarge product: no row
      ['eu-west-1', 'ec2', 'inf2.xlarge', 0.834],
      ['eu-west-1', 'ec2', 'inf2.8xlarge', 2.1647], // trn1.2xlarge is priced but not offered there: no row
      ['eu-west-1', 'sagemaker', 'inf2.xlarge', 1.09],
    ]);
    // AND each is an on-demand, verified price dated today with the product's SKU and publication in its source
    expect(file.prices[0]).toEqual({
      instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'ec2', kind: 'on-demand', usdPerHour: 0.7582,
      source: 'AWS Price List API GetProducts AmazonEC2 sku A7J6GBKB42E7ZP99, published 2026-11-20T01:12:44Z',
      asOf: '2026-11-22', unverified: false,
    });
    expect(file.asOf).toBe('2026-11-22');
    expect(file.source).toMatch(/Price List API.*DescribeInstanceTypes.*DescribeInstanceTypeOfferings/);
  });

  test('the hardware facts come from NeuronInfo, VCpuInfo and MemoryInfo, described once per type', async () => {
    const { pricing, ec2, useast, euwest } = setUp();
    const file = await refreshCatalog({ regions: ['us-east-1', 'eu-west-1'], hostings: ['ec2'], instanceTypes: TYPES, pricing, ec2, now: NOW });

    // THEN 32768 MiB per device is 32 GiB, 16384 MiB host memory is 16 GiB
    expect(file.instances).toEqual([
      { name: 'inf2.xlarge', family: 'inf2', chips: 1, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 4, memoryGiB: 16, source: 'EC2 DescribeInstanceTypes (us-east-1, 2026-11-22)', unverified: false },
      { name: 'inf2.8xlarge', family: 'inf2', chips: 1, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 32, memoryGiB: 128, source: 'EC2 DescribeInstanceTypes (us-east-1, 2026-11-22)', unverified: false },
      { name: 'trn1.2xlarge', family: 'trn1', chips: 1, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 8, memoryGiB: 32, source: 'EC2 DescribeInstanceTypes (us-east-1, 2026-11-22)', unverified: false },
    ]);
    // AND the facts agree with the built-in catalog
    for (const spec of file.instances) {
      expect({ ...spec, source: 'x' }).toEqual({ ...Catalog.builtIn().instance(spec.name)!, source: 'x' });
    }
    // AND offerings were asked for the requested types only, and eu-west-1 described nothing new
    expect(useast.mock).toHaveReceivedCommandWith(DescribeInstanceTypeOfferingsCommand, {
      LocationType: 'region', Filters: [{ Name: 'instance-type', Values: TYPES }],
    });
    expect(useast.mock).toHaveReceivedCommandWith(DescribeInstanceTypesCommand, { InstanceTypes: TYPES });
    expect(euwest.mock).toHaveReceivedCommandTimes(DescribeInstanceTypesCommand, 0);
  });

  test('GetProducts is filtered to the on-demand Linux product and paginated to the end', async () => {
    const { pricing, pricingMock, ec2 } = setUp();
    await refreshCatalog({ regions: ['us-east-1'], hostings: ['ec2', 'sagemaker'], instanceTypes: ['inf2.xlarge'], pricing, ec2, now: NOW });

    expect(pricingMock).toHaveReceivedCommandWith(GetProductsCommand, {
      ServiceCode: 'AmazonEC2',
      Filters: termMatch({
        regionCode: 'us-east-1', instanceType: 'inf2.xlarge', operatingSystem: 'Linux', tenancy: 'Shared', preInstalledSw: 'NA', capacitystatus: 'Used',
      }),
    });
    expect(pricingMock).toHaveReceivedCommandWith(GetProductsCommand, {
      ServiceCode: 'AmazonSageMaker',
      Filters: termMatch({ regionCode: 'us-east-1', instanceName: 'ml.inf2.xlarge', component: 'Hosting' }),
    });
    // The fake pages one product at a time: 1 EC2 page, and 2 SageMaker pages (Host and AsyncInf) plus none more.
    expect(pricingMock).toHaveReceivedCommandTimes(GetProductsCommand, 3);
    expect(pricingMock).toHaveReceivedNthCommandWith(3, GetProductsCommand, { ServiceCode: 'AmazonSageMaker', NextToken: expect.any(String) });
  });

  test('the result is a valid price file that overrides the built-in prices', async () => {
    const { pricing, ec2 } = setUp();
    const file = await refreshCatalog({ regions: ['us-east-1', 'eu-west-1'], hostings: ['ec2', 'sagemaker'], instanceTypes: TYPES, pricing, ec2, now: NOW });

    // WHEN written as JSON and read back as a user's price file
    const reread = parsePriceFile(JSON.parse(JSON.stringify(file)), 'refreshed.json');
    expect(reread).toEqual(file);

    // THEN the refreshed number replaces the built-in one (its date shows it), and SageMaker's price in eu-west-1
    // is the listed one, no longer the estimate from the region's EC2 price
    const catalog = Catalog.builtIn().withPriceFile(reread);
    expect(catalog.price('inf2.xlarge', 'us-east-1', 'ec2')).toMatchObject({ usdPerHour: 0.7582, unverified: false, asOf: '2026-11-22' });
    expect(Catalog.builtIn().price('ml.inf2.xlarge', 'eu-west-1', 'sagemaker')?.estimate).toBeDefined();
    const listed = catalog.price('ml.inf2.xlarge', 'eu-west-1', 'sagemaker');
    expect(listed?.usdPerHour).toBe(1.09);
    expect(listed?.estimate).toBeUndefined();
  });

  test('without instanceTypes it reads every catalog type', async () => {
    const { pricing, ec2, useast } = setUp();
    await refreshCatalog({ regions: ['us-east-1'], hostings: ['ec2'], pricing, ec2, now: NOW });
    expect(useast.mock).toHaveReceivedCommandWith(DescribeInstanceTypeOfferingsCommand, {
      Filters: [{ Name: 'instance-type', Values: Catalog.builtIn().instances.map((s) => s.name) }],
    });
  });

  test('a refused call names the API and the region', async () => {
    // GIVEN eu-west-1's EC2 refuses (a region not enabled in the account)
    const { pricing, ec2, euwest } = setUp();
    const denied = Object.assign(new Error('AWS was not able to validate the provided access credentials'), { name: 'AuthFailure' });
    euwest.mock.on(DescribeInstanceTypeOfferingsCommand).rejects(denied);
    // WHEN refreshing THEN the error says which call failed where
    await expect(refreshCatalog({ regions: ['us-east-1', 'eu-west-1'], hostings: ['ec2'], instanceTypes: TYPES, pricing, ec2, now: NOW }))
      .rejects.toThrow('EC2 DescribeInstanceTypeOfferings in eu-west-1 failed: AuthFailure: AWS was not able to validate the provided access credentials');
  });

  test('bad options fail before any call, listing every problem', async () => {
    const { pricing, pricingMock, ec2 } = setUp();
    const run = refreshCatalog({
      regions: ['Ireland'], hostings: ['ecs' as 'ec2'], instanceTypes: ['m5.large', 'ml.inf2.xlarge'], pricing, ec2,
    });
    await expect(run).rejects.toThrow(InputError);
    await expect(run).rejects.toMatchObject({
      problems: [
        'regions: expected an AWS region code such as us-east-1, got "Ireland"',
        'hostings: expected "ec2" or "sagemaker", got "ecs"',
        'instanceTypes: "m5.large" is not a Neuron instance type (families inf1, inf2, trn1, trn1n, trn2, trn2u, trn3)',
      ],
    });
    await expect(refreshCatalog({ regions: [], hostings: [], pricing, ec2 })).rejects.toMatchObject({
      problems: ['regions: expected at least one AWS region code such as us-east-1', 'hostings: expected at least one of ec2, sagemaker'],
    });
    expect(pricingMock).toHaveReceivedCommandTimes(GetProductsCommand, 0);
  });
});

describe('the Price List and DescribeInstanceTypes readers', () => {
  test('a product keeps only its on-demand hourly USD, not reserved rates or upfront fees', () => {
    const item = parsePriceListItem(JSON.stringify(PRODUCTS[0]));
    expect(item.usdPerHour).toEqual([0.7582]);
    expect(item.sku).toBe('A7J6GBKB42E7ZP99');
    expect(item.attributes.usagetype).toBe('BoxUsage:inf2.xlarge');
  });

  test('a product in an unexpected format is an error, not a misread price', () => {
    expect(() => parsePriceListItem('{"product":{"attributes":"none"}}')).toThrow(/unexpected Price List product format \(product.attributes/);
  });

  test('Inf1 devices are 4 NeuronCore-v1 with 8 GiB', () => {
    expect(toInstanceSpec(INF1_XLARGE, 's')).toMatchObject({ chips: 1, coresPerChip: 4, coreVersion: 'v1', deviceMemoryPerChipGiB: 8, memoryGiB: 8 });
  });

  test('a core generation the catalog does not model (Trn2, v3) or a type without NeuronInfo is skipped', () => {
    expect(toInstanceSpec(TRN2_48XLARGE, 's')).toBeUndefined();
    expect(toInstanceSpec({ ...INF2_XLARGE, NeuronInfo: undefined }, 's')).toBeUndefined();
  });
});
