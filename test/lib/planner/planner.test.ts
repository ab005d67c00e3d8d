import { Catalog } from '../../../lib/catalog/catalog';
import { parsePriceFile } from '../../../lib/catalog/price-file';
import { InfeasibleError, InputError } from '../../../lib/errors';
import { costPer1MInferences, plan, planReport } from '../../../lib/planner';
import type { ModelProfile } from '../../../lib/profiles/types';

// A region with no built-in prices, so these prices are the only ones and every expectation is computed by hand.
const REGION = 'eu-west-1';
function catalogWith(prices: Record<string, number>): Catalog {
  return Catalog.builtIn().withPriceFile(
    parsePriceFile(
      { prices: Object.entries(prices).map(([instanceType, usdPerHour]) => ({ instanceType, region: REGION, hosting: 'ec2', usdPerHour })) },
      'planner test',
    ),
  );
}
const catalog = catalogWith({ 'inf1.xlarge': 0.23, 'inf1.2xlarge': 0.36, 'inf2.xlarge': 0.76, 'inf2.8xlarge': 1.97 });

const toy: ModelProfile = {
  id: 'toy',
  deviceMemoryGiB: 2,
  hostMemoryGiB: 2,
  measurements: [
    { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 1000, p50Ms: 1, p99Ms: 2, source: 'test' },
    { coreVersion: 'v2', coresPerProcess: 1, batchSize: 8, throughputRps: 1600, p50Ms: 5, p99Ms: 6, source: 'test' },
    { coreVersion: 'v1', coresPerProcess: 1, batchSize: 4, throughputRps: 300, p50Ms: 10, p99Ms: 13, source: 'test' },
  ],
};
const ec2 = { region: REGION, hosting: 'ec2' } as const;

describe('the planner picks the cheapest deployment that meets the targets', () => {
  // 5000 rps x 1.2 headroom = 6000 rps to provision.
  const report = planReport(toy, { throughputRps: 5000, p99Ms: 10 }, ec2, catalog);
  const chosen = report.chosen;

  test('GIVEN 5000 rps at p99 10 ms THEN two inf2.xlarge with two batch-8 processes win at $1.52/h', () => {
    expect(chosen.instanceType).toBe('inf2.xlarge');
    expect(chosen.batchSize).toBe(8);
    expect(chosen.coresPerProcess).toBe(1);
    expect(chosen.processesPerInstance).toBe(2); // floor(2 cores / 1)
    expect(chosen.idleCoresPerInstance).toBe(0);
    expect(chosen.capacityPerInstanceRps).toBe(3200); // 2 x 1600
    expect(chosen.instanceCount).toBe(2); // ceil(6000 / 3200)
    expect(chosen.capacityRps).toBe(6400);
    expect(chosen.utilization).toBeCloseTo(5000 / 6400, 12);
    expect(chosen.hourlyCostUsd).toBeCloseTo(1.52, 12);
    expect(chosen.monthlyCostUsd).toBeCloseTo(1.52 * 730, 9);
    expect(chosen.costPer1MInferencesUsd).toBeCloseTo((1.52 / (5000 * 3600)) * 1e6, 12); // 0.08444
    expect(chosen.p50Ms).toBe(5);
    expect(chosen.p99Ms).toBe(6);
  });

  test('THEN each process owns one core and the chip it sits on', () => {
    expect(chosen.processes.map((p) => p.visibleCores)).toEqual(['0', '1']);
    expect(chosen.processes.map((p) => p.devices)).toEqual([['/dev/neuron0'], ['/dev/neuron0']]);
  });

  test('THEN the naive layout (one process per instance) needs 4 instances and packing saves 50 %', () => {
    expect(chosen.naive.instanceCount).toBe(4); // ceil(6000 / 1600)
    expect(chosen.naive.hourlyCostUsd).toBeCloseTo(3.04, 12);
    expect(chosen.naive.savingsPercent).toBeCloseTo(50, 9);
  });

  test('THEN the alternatives are the other feasible plans, best first', () => {
    const summary = report.alternatives.map((p) => `${p.instanceType} b=${p.batchSize} n=${p.instanceCount} $${p.hourlyCostUsd.toFixed(2)}`);
    expect(summary).toEqual([
      'inf2.xlarge b=1 n=3 $2.28', // ceil(6000 / 2000) = 3
      'inf2.8xlarge b=8 n=2 $3.94',
      'inf2.8xlarge b=1 n=3 $5.91',
    ]);
  });

  test('THEN every other candidate is rejected with its reason', () => {
    const byInstance = Object.fromEntries(report.rejected.map((r) => [`${r.instanceType} ${r.measurement ?? ''}`.trim(), `${r.code}: ${r.reason}`]));
    expect(byInstance['inf1.xlarge g=1 b=4']).toBe('latency: measured p99 13 ms exceeds the target 10 ms');
    expect(byInstance['inf2.24xlarge']).toBe('no-price: no on-demand ec2 price for inf2.24xlarge in eu-west-1');
    expect(byInstance['trn1.2xlarge']).toMatch(/^no-price/);
  });

  test('the JSON form carries the fields the CLI promises', () => {
    const json = JSON.parse(JSON.stringify(chosen));
    for (const field of [
      'instanceType', 'hosting', 'instanceCount', 'processesPerInstance', 'coresPerProcess', 'batchSize', 'processes',
      'p50Ms', 'p99Ms', 'capacityRps', 'utilization', 'hourlyCostUsd', 'costPer1MInferencesUsd',
    ]) {
      expect(json).toHaveProperty(field);
    }
    expect(json.processes[1].visibleCores).toBe('1');
  });
});

describe('the planner applies each limit', () => {
  test('GIVEN SageMaker hosting THEN the instance type carries the ml. prefix', () => {
    const sm = Catalog.builtIn().withPriceFile(
      parsePriceFile({ prices: [{ instanceType: 'inf2.xlarge', region: REGION, hosting: 'sagemaker', usdPerHour: 0.99 }] }, 't'),
    );
    const p = plan(toy, { throughputRps: 100, p99Ms: 10 }, { region: REGION, hosting: 'sagemaker' }, sm);
    expect(p.instanceType).toBe('ml.inf2.xlarge');
    expect(p.instance.name).toBe('inf2.xlarge');
  });

  test('minInstances raises the count even when one instance is enough', () => {
    const p = plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, minInstances: 3 }, catalog);
    expect(p.instanceCount).toBe(3);
    expect(p.naive.instanceCount).toBe(3);
  });

  test('headroom 0 provisions exactly the target: 6400 rps fits two instances of 3200', () => {
    expect(plan(toy, { throughputRps: 6400, p99Ms: 10 }, { ...ec2, headroom: 0 }, catalog).instanceCount).toBe(2);
    expect(plan(toy, { throughputRps: 6401, p99Ms: 10 }, { ...ec2, headroom: 0 }, catalog).instanceCount).toBe(3);
  });

  test('maxInstances rejects candidates that need more instances than allowed', () => {
    const report = planReport(toy, { throughputRps: 5000, p99Ms: 10 }, { ...ec2, maxInstances: 2 }, catalog);
    expect(report.rejected).toContainEqual(
      expect.objectContaining({ instanceType: 'inf2.xlarge', measurement: 'g=1 b=1', code: 'max-instances', instancesNeeded: 3 }),
    );
  });

  test('a peak target sets the autoscaling maximum, capped by maxInstances with a warning', () => {
    // One instance serves 1200 rps with either measurement at $0.76/h; the tie goes to batch 1 (p99 2 ms, 2000 rps).
    const p = plan(toy, { throughputRps: 1000, p99Ms: 10, peakThroughputRps: 9000 }, ec2, catalog);
    expect(p.batchSize).toBe(1);
    expect(p.instanceCount).toBe(1);
    expect(p.maxInstanceCount).toBe(6); // ceil(9000 x 1.2 / 2000)
    const capped = plan(toy, { throughputRps: 1000, p99Ms: 10, peakThroughputRps: 9000 }, { ...ec2, maxInstances: 3 }, catalog);
    expect(capped.maxInstanceCount).toBe(3);
    expect(capped.warnings.join('\n')).toMatch(/needs 6 instances; maxInstances limits it to 3/);
  });

  test('GIVEN too little host memory for 4 processes on inf1.xlarge THEN it steps down to 2 and says so', () => {
    // inf1.xlarge: 8 GiB x 0.9 = 7.2 GiB; 4 x 2 GiB = 8 does not fit, 2 x 2 GiB = 4 does.
    const p = plan(toy, { throughputRps: 100, p99Ms: 20 }, { ...ec2, instanceTypes: ['inf1.xlarge'] }, catalog);
    expect(p.processesPerInstance).toBe(2);
    expect(p.idleCoresPerInstance).toBe(2);
    expect(p.processes.map((x) => x.visibleCores)).toEqual(['0', '2']);
    expect(p.warnings.join('\n')).toMatch(/runs 2 instead of 4 processes/);
  });

  test('GIVEN more vCPUs per process than the instance has THEN the candidate is rejected for vCPUs', () => {
    const hungry: ModelProfile = { ...toy, vcpuPerProcess: 5 };
    const report = planReport(hungry, { throughputRps: 100, p99Ms: 10 }, ec2, catalog);
    expect(report.chosen.instanceType).toBe('inf2.8xlarge'); // 32 vCPUs; inf2.xlarge has 4
    expect(report.rejected).toContainEqual(expect.objectContaining({ instanceType: 'inf2.xlarge', code: 'vcpu' }));
  });

  test('GIVEN host memory above 90 % of every instance THEN the message names the process and the limit', () => {
    const big: ModelProfile = { ...toy, hostMemoryGiB: 120 };
    expect(() => plan(big, { throughputRps: 100, p99Ms: 10 }, ec2, catalog)).toThrow(
      'inf2: one process needs 120 GiB of host memory; the largest priced inf2 instance (inf2.8xlarge) allows 115.2 GiB',
    );
  });

  test('GIVEN a pinned process count that divides the cores THEN it is used, else the valid values are listed', () => {
    const one = plan(toy, { throughputRps: 100, p99Ms: 10 }, { ...ec2, processesPerInstance: 1, instanceTypes: ['inf2.xlarge'] }, catalog);
    expect(one.processesPerInstance).toBe(1);
    expect(one.idleCoresPerInstance).toBe(1);
    expect(() =>
      plan(toy, { throughputRps: 100, p99Ms: 10 }, { ...ec2, processesPerInstance: 3, instanceTypes: ['inf2.xlarge'] }, catalog),
    ).toThrow('processesPerInstance=3 does not divide the 2 NeuronCores of inf2.xlarge; valid values: 1, 2');
  });

  test('RI-effective pricing uses the Neuron RI rates', () => {
    const p = plan(toy, { throughputRps: 100, p99Ms: 10 }, { region: 'us-east-1', hosting: 'ec2', pricing: 'ri-effective', instanceTypes: ['inf2.xlarge'] });
    expect(p.price.kind).toBe('ri-effective');
    expect(p.price.usdPerHour).toBe(0.328);
  });

  test('an UNVERIFIED price is carried into the plan warnings', () => {
    const p = plan(toy, { throughputRps: 100, p99Ms: 10 }, { region: 'us-east-1', hosting: 'sagemaker', instanceTypes: ['inf2.xlarge'] });
    expect(p.price.unverified).toBe(true);
    expect(p.warnings.join('\n')).toMatch(/UNVERIFIED/);
  });
});

describe('ties are broken by p99, then fewer instances, then the instance name', () => {
  test('GIVEN equal cost THEN the lower p99 wins', () => {
    const twin: ModelProfile = {
      ...toy,
      measurements: [
        { coreVersion: 'v2', coresPerProcess: 1, batchSize: 8, throughputRps: 1600, p50Ms: 5, p99Ms: 6, source: 'test' },
        { coreVersion: 'v2', coresPerProcess: 1, batchSize: 2, throughputRps: 1600, p50Ms: 2, p99Ms: 3, source: 'test' },
      ],
    };
    expect(plan(twin, { throughputRps: 5000, p99Ms: 10 }, ec2, catalog).batchSize).toBe(2);
  });

  test('GIVEN equal cost and p99 THEN fewer instances win', () => {
    // inf2.xlarge: 2 x $1.00; inf2.24xlarge (12 processes, 19200 rps) 1 x $2.00.
    const c = catalogWith({ 'inf2.xlarge': 1, 'inf2.24xlarge': 2 });
    const p = plan(toy, { throughputRps: 5000, p99Ms: 10 }, ec2, c);
    expect(p.instanceType).toBe('inf2.24xlarge');
    expect(p.instanceCount).toBe(1);
  });

  test('GIVEN equal cost, p99 and count THEN the instance name decides', () => {
    const c = catalogWith({ 'trn1.2xlarge': 1, 'inf2.xlarge': 1 });
    expect(plan(toy, { throughputRps: 5000, p99Ms: 10 }, ec2, c).instanceType).toBe('inf2.xlarge');
  });
});

describe('infeasible targets fail with one reason per family', () => {
  test('GIVEN a p99 below every measurement THEN the message names the fastest measured p99', () => {
    expect(() => plan(toy, { throughputRps: 100, p99Ms: 0.2 }, ec2, catalog)).toThrow(
      'inf2: p99 target 0.2 ms is below the fastest measured p99 of toy (2 ms on NeuronCore-v2, batch 1)',
    );
  });

  test('GIVEN a model larger than any core group THEN the message gives the need and the largest group', () => {
    const huge: ModelProfile = { ...toy, deviceMemoryGiB: 41 };
    try {
      plan(huge, { throughputRps: 100, p99Ms: 50 }, ec2, catalog);
      throw new Error('expected InfeasibleError');
    } catch (e) {
      expect(e).toBeInstanceOf(InfeasibleError);
      const reasons = (e as InfeasibleError).reasons;
      expect(reasons).toContain(
        'inf2: needs 41 GiB of device memory; the largest core group measured holds 16 GiB; ' +
          'no on-demand ec2 price in eu-west-1 for inf2.24xlarge, inf2.48xlarge',
      );
      expect(reasons.find((r) => r.startsWith('inf1:'))).toMatch(/needs 41 GiB of device memory; the largest core group measured holds 2 GiB/);
      expect(reasons.find((r) => r.startsWith('trn1:'))).toMatch(/no on-demand ec2 price in eu-west-1/);
    }
  });

  test('GIVEN maxInstances too low for any candidate THEN the message gives the fewest instances needed', () => {
    expect(() => plan(toy, { throughputRps: 50000, p99Ms: 10 }, { ...ec2, maxInstances: 2 }, catalog)).toThrow(
      'inf2: needs at least 19 instances but maxInstances is 2', // ceil(60000 / 3200)
    );
  });
});

describe('bad input fails early with every problem named', () => {
  const cases: [string, () => unknown, string][] = [
    ['zero throughput', () => plan(toy, { throughputRps: 0, p99Ms: 10 }, ec2, catalog), 'throughput=0 must be a positive number'],
    ['negative p99', () => plan(toy, { throughputRps: 10, p99Ms: -1 }, ec2, catalog), 'p99=-1 must be a positive number'],
    ['unknown region', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { region: 'mars-1', hosting: 'ec2' }, catalog), "region='mars-1' is not an AWS region code"],
    ['unknown hosting', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { region: REGION, hosting: 'eks' as 'ec2' }, catalog), "hosting='eks' is not supported; use one of: ec2, sagemaker"],
    ['negative headroom', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, headroom: -0.1 }, catalog), 'headroom=-0.1 must be 0 or more'],
    ['max below min', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, minInstances: 3, maxInstances: 2 }, catalog), 'maxInstances=2 is below minInstances=3'],
    ['unknown instance', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { ...ec2, instanceTypes: ['p4d.24xlarge'] }, catalog), "instance type 'p4d.24xlarge' is not in the catalog"],
    ['region without prices', () => plan(toy, { throughputRps: 10, p99Ms: 10 }, { region: 'ap-south-2', hosting: 'ec2' }, catalog), "no on-demand ec2 prices for region ap-south-2"],
    ['peak below steady', () => plan(toy, { throughputRps: 10, p99Ms: 10, peakThroughputRps: 5 }, ec2, catalog), 'peakThroughput=5 is below throughput=10'],
  ];
  test.each(cases)('%s', (_name, run, message) => {
    expect(run).toThrow(InputError);
    expect(run).toThrow(message);
  });

  test('several problems are reported together', () => {
    try {
      plan(toy, { throughputRps: -5, p99Ms: 0 }, { region: 'nowhere', hosting: 'ec2', headroom: -1 }, catalog);
      throw new Error('expected InputError');
    } catch (e) {
      expect((e as InputError).problems).toHaveLength(4);
    }
  });
});

describe('cost per 1M inferences', () => {
  test('is hourly / (rps x 3600) x 1e6', () => {
    expect(costPer1MInferences(0.328, 2697.72)).toBeCloseTo(0.0337738, 6);
  });
});

describe('a measurement predicts only the chip it was measured on', () => {
  const measuredOn: ModelProfile = {
    ...toy,
    measurements: [
      { coreVersion: 'v2', coresPerProcess: 1, batchSize: 16, throughputRps: 5000, p50Ms: 3, p99Ms: 4, source: 'trn1 row', instanceType: 'trn1.2xlarge' },
      { coreVersion: 'v2', coresPerProcess: 1, batchSize: 1, throughputRps: 1000, p50Ms: 1, p99Ms: 2, source: 'inf2 row', instanceType: 'inf2.xlarge' },
    ],
  };
  const c = catalogWith({ 'inf2.xlarge': 1, 'trn1.2xlarge': 1.5, 'trn1n.32xlarge': 30 });

  test('GIVEN a Trn1 batch-16 row THEN Inf2 is sized from its own row, not the faster Trn1 one', () => {
    const report = planReport(measuredOn, { throughputRps: 5000, p99Ms: 10 }, ec2, c);
    const inf2 = [report.chosen, ...report.alternatives].filter((p) => p.instance.family === 'inf2');
    expect(inf2.map((p) => p.measurement.source)).toEqual(['inf2 row']);
    // trn1.2xlarge: 2 x 5000 = 10000 rps, 1 instance at $1.50 beats 3 x inf2.xlarge (2000 rps each) at $3.00.
    expect(report.chosen.instanceType).toBe('trn1.2xlarge');
  });

  test('GIVEN a Trn1 row THEN it applies to Trn1n, which has the same chip', () => {
    const report = planReport(measuredOn, { throughputRps: 5000, p99Ms: 10 }, ec2, c);
    expect(report.alternatives.find((p) => p.instanceType === 'trn1n.32xlarge')?.measurement.source).toBe('trn1 row');
  });

  test('GIVEN only an Inf2 row THEN Trn1 is rejected for want of a measurement on its chip', () => {
    const inf2Only: ModelProfile = { ...measuredOn, measurements: [measuredOn.measurements[1]] };
    const report = planReport(inf2Only, { throughputRps: 100, p99Ms: 10 }, ec2, c);
    expect(report.rejected).toContainEqual(
      expect.objectContaining({ instanceType: 'trn1.2xlarge', code: 'no-measurement', reason: 'toy has no measurement on Trainium (trn1, trn1n) (NeuronCore-v2)' }),
    );
  });
});
