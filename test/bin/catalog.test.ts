import 'aws-sdk-client-mock-jest';
import { readFileSync, writeFileSync } from 'fs';
import { join } from 'path';
import {
  DescribeInstanceTypeOfferingsCommand, DescribeInstanceTypesCommand, EC2Client,
} from '@aws-sdk/client-ec2';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { Command, CommanderError } from 'commander';
import { CatalogEntry, loadCatalog, registerCatalogCommand } from '../../bin/commands/catalog';
import type { CliIo } from '../../bin/commands/io';
import { parsePriceFile } from '../../lib/catalog';
import { InputError } from '../../lib/errors';
import { INF2_XLARGE } from '../lib/catalog/fixtures/ec2';
import { fakeGetProducts } from '../lib/catalog/fixtures/price-list';
import { tempDir } from '../support/temp-dir';

/** Runs `cdk-inferentia <args>` with only the catalog command registered, capturing its output. */
async function run(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const out = { stdout: '', stderr: '' };
  const io: CliIo = { stdout: (s) => { out.stdout += s; }, stderr: (s) => { out.stderr += s; } };
  const program = new Command('cdk-inferentia').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerCatalogCommand(program, io);
  await program.parseAsync(args, { from: 'user' });
  return out;
}

const dir = tempDir('catalog-cli-');

function writeJson(name: string, content: unknown): string {
  const path = join(dir(), name);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('catalog --json prints every instance with its NeuronCores and prices', () => {
  test('each instance has the spec fields, neuronCores, prices[region][hosting] and priceDetails', async () => {
    // GIVEN the built-in catalog WHEN printing it as JSON
    const { stdout, stderr } = await run('catalog', '--json', '--region', 'us-east-1');
    const entries = JSON.parse(stdout) as CatalogEntry[];

    // THEN all twelve instances are there
    expect(entries.map((e) => e.name)).toHaveLength(12);
    expect(stderr).toBe('');
    // AND inf2.xlarge: 1 chip x 2 cores, the on-demand prices by region and hosting, all prices in the details
    const inf2 = entries.find((e) => e.name === 'inf2.xlarge')!;
    expect(inf2).toMatchObject({
      family: 'inf2', chips: 1, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 4, memoryGiB: 16,
      neuronCores: 2, sageMakerName: 'ml.inf2.xlarge', unverified: false,
      prices: { 'us-east-1': { ec2: 0.7582, sagemaker: 0.99 } },
    });
    expect(inf2.priceDetails.map((d) => [d.hosting, d.kind, d.usdPerHour, d.unverified])).toEqual([
      ['ec2', 'on-demand', 0.7582, false],
      ['ec2', 'ri-effective', 0.328, false],
      ['sagemaker', 'on-demand', 0.99, true],
    ]);
    expect(inf2.priceDetails.every((d) => d.source.length > 0 && /^\d{4}-\d{2}-\d{2}$/.test(d.asOf))).toBe(true);
    // AND inf1.24xlarge has 16 chips x 4 cores, and a verified EC2 price
    expect(entries.find((e) => e.name === 'inf1.24xlarge')).toMatchObject({ neuronCores: 64, prices: { 'us-east-1': { ec2: 4.721, sagemaker: 4.841 } } });
    expect(entries.find((e) => e.name === 'inf1.24xlarge')!.priceDetails[0]).toMatchObject({ kind: 'on-demand', unverified: false });
    // AND trn1n.32xlarge has no SageMaker price: the key is absent, not zero
    expect(entries.find((e) => e.name === 'trn1n.32xlarge')!.prices).toEqual({ 'us-east-1': { ec2: 24.78 } });
  });

  test('--prices, --region and --hosting narrow the prices to one region and hosting', async () => {
    // GIVEN a price file for il-central-1 EC2 (no built-in price there)
    const file = writeJson('prices.json', {
      source: 'my quote', asOf: '2026-11-01',
      prices: [{ instanceType: 'inf2.xlarge', region: 'il-central-1', hosting: 'ec2', usdPerHour: 0.8 }],
    });
    // WHEN printing il-central-1 EC2 only
    const { stdout, stderr } = await run('catalog', '--json', '--prices', file, '--region', 'il-central-1', '--hosting', 'ec2');
    const entries = JSON.parse(stdout) as CatalogEntry[];
    // THEN only the file's price appears, with its source and date, and unpriced types have no prices
    expect(entries.find((e) => e.name === 'inf2.xlarge')).toMatchObject({
      prices: { 'il-central-1': { ec2: 0.8 } },
      priceDetails: [{ region: 'il-central-1', hosting: 'ec2', kind: 'on-demand', usdPerHour: 0.8, source: 'my quote', asOf: '2026-11-01', unverified: false }],
    });
    expect(entries.find((e) => e.name === 'inf2.8xlarge')).toMatchObject({ prices: {}, priceDetails: [] });
    expect(stderr).toBe('');
  });

  test('a region without prices is a warning that says how to add them', async () => {
    const { stderr } = await run('catalog', '--json', '--region', 'il-central-1');
    expect(stderr).toMatch(/^warning: no sagemaker prices for il-central-1 \(sagemaker prices exist for .*\); add them with --prices FILE, /m);
    expect(stderr).toContain('e.g. written by `cdk-inferentia catalog refresh --regions il-central-1 --out prices.json`\n');
  });

  test('SageMaker outside us-east-1 shows the estimate and its method', async () => {
    const { stdout } = await run('catalog', '--json', '--region', 'eu-west-1', '--hosting', 'sagemaker');
    const inf2 = (JSON.parse(stdout) as CatalogEntry[]).find((e) => e.name === 'inf2.xlarge')!;
    expect(inf2.priceDetails[0]).toMatchObject({ unverified: true, estimate: expect.stringMatching(/^EC2 on-demand in eu-west-1/) });
  });

  test('eu-west-1 and ap-northeast-1 have built-in EC2 prices, with their source', async () => {
    const { stdout } = await run('catalog', '--json', '--region', 'ap-northeast-1', '--hosting', 'ec2');
    const inf2 = (JSON.parse(stdout) as CatalogEntry[]).find((e) => e.name === 'inf2.xlarge')!;
    expect(inf2.prices).toEqual({ 'ap-northeast-1': { ec2: 1.1373 } });
    expect(inf2.priceDetails[0].source).toMatch(/AWS Price List bulk offer file/);
  });
});

describe('catalog prints a table that marks every UNVERIFIED price', () => {
  test('unverified cells say UNVERIFIED, verified ones do not, and each cell points at its source', async () => {
    const { stdout } = await run('catalog');
    const row = (name: string) => stdout.split('\n').find((l) => l.includes(` ${name} `))!;

    // GIVEN inf2.xlarge's SageMaker price is UNVERIFIED and its EC2 prices are not
    expect(row('inf2.xlarge')).toMatch(/│ 0\.7582 \[\d+\]\s+│ 0\.328 \[\d+\]\s+│ 0\.99 UNVERIFIED \[\d+\]/);
    // AND the table shows us-east-1 by default, AWS price list first
    expect(row('inf1.xlarge')).toMatch(/│ 0\.228 \[1\]\s+│/);
    expect(row('trn1n.32xlarge')).toMatch(/│ 24\.78 \[\d+\]\s+│ -\s+│ -\s+│/);
    expect(stdout).toMatch(/Prices of us-east-1 shown; the catalog also prices af-south-1, .*eu-west-1, .* \(pass --region, or --json for all\)/);
    // AND the notes list the sources with their dates, and what UNVERIFIED means
    expect(stdout).toMatch(/\[1\] AWS Price List API \(AmazonEC2, .*aws\/karpenter-provider-aws .* \(as of 2026-11-25\)/);
    expect(stdout).toMatch(/\[\d\] UNVERIFIED: one third-party file .* \(as of 2026-09-27\)/);
    expect(stdout).toContain('UNVERIFIED: no AWS-authored source backs the number');
    // AND the NeuronCores column shows chips x cores per chip
    expect(row('inf2.48xlarge')).toContain('24 (12x2)');
    expect(row('inf1.6xlarge')).toContain('16 (4x4)');
  });
});

describe('catalog rejects bad usage with one clear error', () => {
  test('a region name instead of a code is an InputError', async () => {
    await expect(run('catalog', '--region', 'Ireland')).rejects.toThrow(
      new InputError('--region: expected an AWS region code such as us-east-1, got "Ireland"'),
    );
  });

  test('an unknown hosting is a commander usage error naming the choices', async () => {
    const error = await run('catalog', '--hosting', 'ecs').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommanderError);
    expect((error as CommanderError).message).toMatch(/Allowed choices are ec2, sagemaker/);
  });

  test('a price file that is not JSON names the file', async () => {
    const file = writeJson('broken.json', '{"prices": [');
    await expect(run('catalog', '--prices', file)).rejects.toThrow(new RegExp(`^--prices ${file}: not valid JSON`));
  });

  test('a missing price file names the file', async () => {
    await expect(run('catalog', '--prices', join(dir(), 'nope.json'))).rejects.toThrow(/--prices .*nope\.json: cannot read the file \(ENOENT/);
  });

  test('an invalid price file reports its problems prefixed with the file', async () => {
    const file = writeJson('bad.json', { prices: [{ instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: -1 }] });
    await expect(run('catalog', '--prices', file)).rejects.toThrow(`${file}: prices[0].usdPerHour: expected a positive number, got -1`);
  });
});

describe('loadCatalog', () => {
  test('without a path it is the built-in catalog, with one it merges the file', () => {
    const file = writeJson('p.json', { prices: [{ instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 0.75 }] });
    expect(loadCatalog().price('inf2.xlarge', 'us-east-1', 'ec2')?.usdPerHour).toBe(0.7582);
    expect(loadCatalog(file).price('inf2.xlarge', 'us-east-1', 'ec2')).toMatchObject({ usdPerHour: 0.75, source: 'user price file', unverified: false });
  });
});

describe('catalog refresh writes a price file from AWS', () => {
  const pricingMock = mockClient(PricingClient);
  const ec2Mock = mockClient(EC2Client);
  const pricingRegions: string[] = [];

  beforeEach(() => {
    pricingMock.reset();
    ec2Mock.reset();
    pricingRegions.length = 0;
    pricingMock.on(GetProductsCommand).callsFake(async (input, getClient) => {
      pricingRegions.push(await getClient().config.region());
      return fakeGetProducts(input);
    });
    ec2Mock.on(DescribeInstanceTypeOfferingsCommand).resolves({
      InstanceTypeOfferings: [{ InstanceType: 'inf2.xlarge', LocationType: 'region', Location: 'us-east-1' }],
    });
    ec2Mock.on(DescribeInstanceTypesCommand).resolves({ InstanceTypes: [INF2_XLARGE] });
  });

  test('it writes a valid file, asks the Price List API in us-east-1, and says what it wrote', async () => {
    // GIVEN AWS prices inf2.xlarge on EC2 and SageMaker in us-east-1
    const out = join(dir(), 'refreshed.json');

    // WHEN refreshing
    const { stdout } = await run('catalog', 'refresh', '--regions', 'us-east-1', '--instance-types', 'inf2.xlarge', '--out', out);

    // THEN the file holds both prices and reads back as a price file
    const file = parsePriceFile(JSON.parse(readFileSync(out, 'utf8')), out);
    expect(file.prices.map((p) => [p.hosting, p.usdPerHour, p.unverified])).toEqual([['ec2', 0.7582, false], ['sagemaker', 0.99, false]]);
    expect(file.instances.map((s) => s.name)).toEqual(['inf2.xlarge']);
    // one EC2 page, two SageMaker pages (the fake pages one product at a time)
    expect(pricingRegions).toEqual(['us-east-1', 'us-east-1', 'us-east-1']);
    expect(stdout).toBe(`wrote 2 prices and 1 instance type for us-east-1 (${file.asOf}) to ${out}; use it with --prices ${out}\n`);

    // AND `catalog --prices` shows the refreshed price as verified
    const { stdout: table } = await run('catalog', '--prices', out, '--region', 'us-east-1', '--hosting', 'ec2');
    expect(table.split('\n').find((l) => l.includes(' inf2.xlarge '))).toMatch(/│ 0\.7582 \[\d+\]\s+│/);
  });

  test('a hosting AWS has no price for is a warning', async () => {
    ec2Mock.on(DescribeInstanceTypeOfferingsCommand).resolves({
      InstanceTypeOfferings: [{ InstanceType: 'inf2.8xlarge', LocationType: 'region', Location: 'us-east-1' }],
    });
    const { stderr } = await run('catalog', 'refresh', '--regions', 'us-east-1', '--hostings', 'sagemaker', '--instance-types', 'inf2.8xlarge', '--out', join(dir(), 'x.json'));
    expect(stderr).toBe('warning: AWS lists no sagemaker price for the Neuron instance types in us-east-1\n');
  });

  test('bad hostings and regions fail before any AWS call', async () => {
    await expect(run('catalog', 'refresh', '--regions', 'us-east-1', '--hostings', 'ec2,ecs', '--out', join(dir(), 'x.json')))
      .rejects.toThrow('--hostings: expected ec2 and/or sagemaker, got "ecs"');
    await expect(run('catalog', 'refresh', '--regions', 'us-east-1,Ireland', '--out', join(dir(), 'x.json')))
      .rejects.toThrow('--regions: "Ireland" is not an AWS region code');
    expect(pricingMock).toHaveReceivedCommandTimes(GetProductsCommand, 0);
    expect(ec2Mock).toHaveReceivedCommandTimes(DescribeInstanceTypeOfferingsCommand, 0);
  });

  test('an --out path in a missing directory is refused before any AWS call, naming the path', async () => {
    const out = join(dir(), 'missing-dir', 'prices.json');
    await expect(run('catalog', 'refresh', '--regions', 'us-east-1', '--instance-types', 'inf2.xlarge', '--out', out))
      .rejects.toThrow(`--out ${out}: the directory ${join(dir(), 'missing-dir')} does not exist`);
    expect(pricingMock).toHaveReceivedCommandTimes(GetProductsCommand, 0);
  });

  test('--regions and --out are required', async () => {
    await expect(run('catalog', 'refresh', '--regions', 'us-east-1')).rejects.toThrow(/required option '--out <file>' not specified/);
  });
});
