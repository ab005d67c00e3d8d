import { Catalog } from '../../../lib/catalog/catalog';
import { parsePriceFile } from '../../../lib/catalog/price-file';
import { TRAINIUM_INSTANCES, trainiumDeviceRequestProblem } from '../../../lib/catalog/instances';
import { engineSummary } from '../../../lib/generative/engine-image';
import { planGenerativeReport } from '../../../lib/generative/planner';
import { BUILT_IN_GENERATIVE_PROFILES as GENERATIVE_PROFILES } from '../../../lib/profiles/data/generative';

describe('the Trainium2 catalog', () => {
  test('GIVEN the built-in catalog THEN trn2.48xlarge has 16 chips of 4 logical cores at LNC=2', () => {
    const catalog = Catalog.builtIn();
    for (const name of ['trn2.48xlarge']) {
      const spec = catalog.instance(name);
      expect(spec).toMatchObject({ chips: 16, coresPerChip: 4, logicalNeuronCoreConfig: 2, coreVersion: 'v3', deviceMemoryPerChipGiB: 96, vcpus: 192, memoryGiB: 2048, unverified: false });
    }
    expect(TRAINIUM_INSTANCES.map((s) => s.name)).toEqual(['trn2.48xlarge']);
  });

  test('GIVEN the built-in prices THEN trn2.48xlarge has the on-demand EC2 rate of the US East (Ohio) offer file and no guessed price elsewhere', () => {
    const catalog = Catalog.builtIn();
    expect(catalog.price('trn2.48xlarge', 'us-east-2', 'ec2')).toMatchObject({ usdPerHour: 85.964, kind: 'on-demand', unverified: false });
    expect(catalog.price('trn2.48xlarge', 'us-east-1', 'ec2')).toBeUndefined();
    expect(catalog.price('trn2.48xlarge', 'us-east-2', 'sagemaker')).toBeUndefined();
  });

  test.each([
    [4, undefined], [2, undefined], [16, undefined], [32, undefined], [64, undefined],
  ])('GIVEN a tensor-parallel group of %i logical cores on trn2.48xlarge THEN it is one device request', (cores, problem) => {
    expect(trainiumDeviceRequestProblem(Catalog.builtIn().instance('trn2.48xlarge')!, cores)).toBe(problem);
  });

  test('GIVEN 8 chips out of a 2D torus request of 1, 4, 8 or 16 THEN 12 chips (48 cores) is refused with the valid degrees', () => {
    expect(trainiumDeviceRequestProblem(Catalog.builtIn().instance('trn2.48xlarge')!, 48))
      .toBe('48 logical cores span 12 chips of trn2.48xlarge; a Trainium device request holds 1, 4, 8, 16 chips (a sub-torus): '
        + 'use a tensor-parallel degree of 4, 16, 32, 64 or at most 4');
  });

  test('GIVEN a price file THEN a Capacity Block price and a Trn3 instance (NeuronCore-v4) are accepted', () => {
    const file = parsePriceFile({
      instances: [{ name: 'trn3.48xlarge', chips: 16, coresPerChip: 4, logicalNeuronCoreConfig: 2, coreVersion: 'v4', deviceMemoryPerChipGiB: 144, vcpus: 192, memoryGiB: 2048 }],
      prices: [{ instanceType: 'trn2.48xlarge', region: 'us-east-2', hosting: 'ec2', usdPerHour: 40, kind: 'capacity-block', source: 'my Capacity Block offering' }],
    }, 'prices.json');
    expect(file.prices[0].kind).toBe('capacity-block');
    expect(file.instances[0]).toMatchObject({ family: 'trn3', coreVersion: 'v4' });
  });
});

describe('planning Llama 3.3 70B where Trn2 is sold', () => {
  const profile = GENERATIVE_PROFILES.find((p) => p.id.includes('llama-3.3-70b'))!;
  const targets = { requestsPerSecond: 1, inputTokens: { mean: 128 }, outputTokens: { mean: 512 }, ttftP99Ms: 3000, tpotP99Ms: 60 };

  test('GIVEN built-in prices in us-east-2 THEN trn2.48xlarge is priced and evaluated as a candidate', () => {
    expect(profile).toBeDefined();
    let report;
    try {
      report = planGenerativeReport(profile, targets, { region: 'us-east-2', hosting: 'ec2' });
    } catch (e) {
      report = (e as { details?: unknown; message?: string }).details ?? (e as Error).message;
    }
    const text = JSON.stringify(report ?? {});
    expect(text).toContain('trn2.48xlarge');
    expect(text).not.toContain('no on-demand ec2 price for trn2.48xlarge in us-east-2');
  });

  test('GIVEN only a Capacity Block price THEN the plan pays it and says the capacity is reserved ahead', () => {
    const catalog = Catalog.builtIn().withPriceFile(parsePriceFile({
      prices: [{ instanceType: 'trn2.48xlarge', region: 'eu-north-1', hosting: 'ec2', usdPerHour: 40, kind: 'capacity-block', source: 'test offering' }],
    }, 'prices.json'));
    const report = planGenerativeReport(profile, targets, { region: 'eu-north-1', hosting: 'ec2', instanceTypes: ['trn2.48xlarge'] }, catalog);
    expect(report.chosen.price.kind).toBe('capacity-block');
    expect(report.chosen.warnings.join('\n')).toContain('reserved ahead');
  });

  test('GIVEN Trn2 cheaper per 1M output tokens (a 1 USD/h price file in us-west-2) THEN the plan picks trn2.48xlarge with the plugin engine', () => {
    const catalog = Catalog.builtIn().withPriceFile(parsePriceFile({
      prices: [{ instanceType: 'trn2.48xlarge', region: 'us-west-2', hosting: 'ec2', usdPerHour: 1, source: 'test price' }],
    }, 'prices.json'));
    const lowRate = { requestsPerSecond: 0.1, inputTokens: { mean: 1024 }, outputTokens: { mean: 256 }, ttftP99Ms: 10_000, tpotP99Ms: 100 };
    const report = planGenerativeReport(profile, lowRate, { region: 'us-west-2', hosting: 'ec2' }, catalog);
    expect(report.chosen.instanceType).toBe('trn2.48xlarge');
    expect(report.alternatives.some((a) => a.instanceType === 'inf2.48xlarge')).toBe(true);
    expect(engineSummary(report.chosen)).toMatch(/^vLLM Neuron plugin 1\.2\.0 \(pytorch-inference-vllm-neuronx:0\.29\.0\.1\.2\.0-/);
  });
});
