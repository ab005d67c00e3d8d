import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Catalog } from '../../lib/catalog/catalog';
import { BUILT_IN_INSTANCES } from '../../lib/catalog/instances';
import { sageMakerAvailability } from '../../lib/catalog/availability';
import { mergeOffers, offerKey, parseCsvLine } from '../../lib/catalog/offer-file';
import { cli, CURRENT_TABLE, main, readOffer, renderPriceTable } from '../../scripts/import-prices';

// Two small files shaped like AWS bulk offer files (made-up prices): each keeps the rows a parser must skip.
const EC2_CSV = join(__dirname, 'fixtures', 'ec2-eu-west-1.csv');
const SAGEMAKER_JSON = join(__dirname, 'fixtures', 'sagemaker-ap-northeast-1.json');
const SAGEMAKER_CSV = join(__dirname, 'fixtures', 'sagemaker-us-west-2.csv');

describe('an offer file is read into the Neuron on-demand prices it holds', () => {
  test('GIVEN an EC2 CSV offer THEN only Linux, shared, Used, on-demand BoxUsage rows of Neuron types are kept', async () => {
    // WHEN reading the file whose other rows are a reservation, Windows, an unused reservation, dedicated
    // tenancy, a capacity block, an m5 and SQL Server software
    const offer = await readOffer(EC2_CSV);
    // THEN the two plain rows remain, with the file's service and version
    expect(offer).toMatchObject({ service: 'AmazonEC2', header: { version: '20261001000000' } });
    expect(offer.prices).toEqual([
      { instanceType: 'inf2.xlarge', region: 'eu-west-1', hosting: 'ec2', usdPerHour: 1 },
      { instanceType: 'inf2.8xlarge', region: 'eu-west-1', hosting: 'ec2', usdPerHour: 2.5 },
    ]);
  });

  test('GIVEN a SageMaker JSON offer THEN only real-time hosting of ml. Neuron types is kept, under the EC2 name', async () => {
    const offer = await readOffer(SAGEMAKER_JSON);
    expect(offer.prices).toEqual([{ instanceType: 'inf2.xlarge', region: 'ap-northeast-1', hosting: 'sagemaker', usdPerHour: 1.23 }]);
  });

  test('GIVEN a SageMaker CSV offer THEN hosting rows of either usage-type spelling are kept; training, async, storage and GPUs are not', async () => {
    // WHEN reading a file whose columns are named as the AmazonSageMaker offer CSV names them (Instance Name,
    // Component, Region Code, usageType) and whose other rows are training, asynchronous inference, a g5 and storage
    const offer = await readOffer(SAGEMAKER_CSV);
    // THEN the two real-time hosting rows of Neuron types remain, under their EC2 names
    expect(offer).toMatchObject({ service: 'AmazonSageMaker', header: { version: '20261003000000' }, regions: ['us-west-2'] });
    expect(offer.prices).toEqual([
      { instanceType: 'inf2.xlarge', region: 'us-west-2', hosting: 'sagemaker', usdPerHour: 2 },
      { instanceType: 'trn1.32xlarge', region: 'us-west-2', hosting: 'sagemaker', usdPerHour: 30 },
    ]);
  });

  test('GIVEN a SageMaker offer of a region with ML instances but no Neuron hosting THEN the region is covered and every Neuron type is not offered there', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offer-'));
    try {
      const path = join(dir, 'sagemaker-ca-west-1.json');
      writeFileSync(path, JSON.stringify({
        offerCode: 'AmazonSageMaker', version: '20261004000000', disclaimer: 'made-up test data, not AWS prices',
        products: { M1: { sku: 'M1', productFamily: 'ML Instance', attributes: { regionCode: 'ca-west-1', instanceName: 'ml.m5.large', component: 'Hosting', usagetype: 'CAW1-Host:ml.m5.large' } } },
        terms: { OnDemand: { M1: { 'M1.T': { priceDimensions: { 'M1.T.D': { unit: 'Hrs', pricePerUnit: { USD: '0.1' } } } } } } },
      }));
      // WHEN it is read and merged into the built-in table
      const offer = await readOffer(path);
      expect(offer).toMatchObject({ prices: [], regions: ['ca-west-1'] });
      const merged = mergeOffers(CURRENT_TABLE, [offer], BUILT_IN_INSTANCES.map((i) => i.name), '2026-11-26');
      // THEN the table records the file, and availability says not offered, citing it
      expect(merged.offersRead).toContainEqual({ service: 'AmazonSageMaker', region: 'ca-west-1', version: '20261004000000', asOf: '2026-11-26' });
      expect(merged.rows).toEqual(CURRENT_TABLE.rows);
      expect(sageMakerAvailability(Catalog.builtIn(), 'inf2.xlarge', 'ca-west-1', merged.offersRead)).toEqual({
        availability: 'not-offered',
        evidence: 'the AmazonSageMaker offer file of ca-west-1 (version 20261004000000), imported 2026-11-26, has no real-time hosting price for ml.inf2.xlarge',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('GIVEN a file of another service THEN the error names the offer code and what is expected', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'offer-'));
    try {
      const path = join(dir, 'rds.json');
      writeFileSync(path, JSON.stringify({ offerCode: 'AmazonRDS', products: {}, terms: {} }));
      await expect(readOffer(path)).rejects.toThrow(/offer code "AmazonRDS"; expected an offer file of AmazonEC2 or AmazonSageMaker/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('CSV fields keep quoted commas and doubled quotes; field names normalise across CSV and JSON', () => {
    expect(parseCsvLine('"a","b, c","say ""hi""",,"",7')).toEqual(['a', 'b, c', 'say "hi"', '', '', '7']);
    expect(offerKey('Pre Installed S/W')).toBe(offerKey('preInstalledSw'));
    expect(offerKey('Region Code')).toBe(offerKey('regionCode'));
  });
});

describe('npm run prices:import regenerates the built-in table in one command', () => {
  test('the committed table is exactly what the script renders: it was generated, not hand-formatted', () => {
    expect(renderPriceTable(CURRENT_TABLE)).toBe(readFileSync(join(__dirname, '../../lib/catalog/data/on-demand.ts'), 'utf8'));
  });

  test('GIVEN two offer files WHEN imported THEN their regions are replaced, the others kept, sources and files recorded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    try {
      const out = join(dir, 'on-demand.ts');
      const summary = await main([EC2_CSV, SAGEMAKER_JSON, '--out', out], '2026-11-25');
      const text = readFileSync(out, 'utf8');
      // THEN eu-west-1 EC2 is what the file says, and a type the file lacks there is gone
      expect(text).toContain("['inf2.xlarge', 'eu-west-1', 'ec2', 1, 'offer AmazonEC2 eu-west-1 20261001000000'],");
      expect(text).not.toContain("'inf1.xlarge', 'eu-west-1'");
      // AND the SageMaker file adds its region; other regions keep their rows and sources
      expect(text).toContain("['inf2.xlarge', 'ap-northeast-1', 'sagemaker', 1.23, 'offer AmazonSageMaker ap-northeast-1 20261002000000'],");
      expect(text).toContain("['inf2.xlarge', 'us-east-1', 'ec2', 0.7582, 'karpenter-aws'],");
      expect(text).toContain("{ service: 'AmazonEC2', region: 'eu-west-1', version: '20261001000000', asOf: '2026-11-25' },");
      expect(text).toMatch(/AmazonEC2\/current\/eu-west-1\/index\.csv, version 20261001000000 \(published 2026-10-01T00:00:00Z\)/);
      expect(summary).toMatch(/~ inf2\.xlarge eu-west-1 ec2 0\.94775 -> 1/);
      expect(summary).toMatch(/- inf1\.xlarge eu-west-1 ec2 0\.254/);
      expect(summary).toMatch(/\+ inf2\.xlarge ap-northeast-1 sagemaker 1\.23/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('GIVEN --check THEN nothing is written and the changes are listed', async () => {
    const summary = await main(['--check', EC2_CSV, '--out', '/nonexistent/dir/file.ts'], '2026-11-25');
    expect(summary).toMatch(/changes \(--check: nothing written\)$/);
  });
});

describe('npm run prices:import parses its arguments: usage errors exit 2 naming the argument, and nothing is written', () => {
  const TABLE = join(__dirname, '../../lib/catalog/data/on-demand.ts');

  async function runScript(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const code = await cli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) }, '2026-11-25');
    return { code, stdout, stderr };
  }

  test('GIVEN no file THEN exit 2 asking for an offer file, and the built-in table is not rewritten', async () => {
    const before = readFileSync(TABLE, 'utf8');
    const { code, stderr } = await runScript([]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: give at least one offer file/);
    expect(readFileSync(TABLE, 'utf8')).toBe(before);
  });

  test.each([
    [['--chekc', EC2_CSV], /error: unknown option '--chekc'.*Did you mean --check\?/s],
    [[EC2_CSV, '--out'], /error: option '--out <file>' argument missing/],
    [['no-such-offer.csv'], /^error: no-such-offer\.csv: no such file/],
  ])('GIVEN %j THEN exit 2 naming the argument', async (argv, message) => {
    const { code, stderr } = await runScript(argv);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  test('GIVEN a .json file that is not JSON THEN exit 2 naming the file, not a raw SyntaxError', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'prices-'));
    try {
      const bad = join(dir, 'index.json');
      writeFileSync(bad, '{"formatVersion": ');
      const { code, stderr } = await runScript([bad, '--check']);
      expect(code).toBe(2);
      expect(stderr).toMatch(new RegExp(`^error: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: not valid JSON \\(`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
