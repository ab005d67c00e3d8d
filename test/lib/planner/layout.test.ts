import { Catalog } from '../../../lib/catalog/catalog';
import type { InstanceSpec } from '../../../lib/catalog/types';
import { coreLayout, devicesForCores, supportedGroupSizes, validateLayout, visibleCoresValue } from '../../../lib/planner';
import { deviceCountProblem } from '../../../lib/planner/layout';

function instance(name: string): InstanceSpec {
  const spec = Catalog.builtIn().instance(name);
  if (!spec) throw new Error(`test setup: ${name} missing from the catalog`);
  return spec;
}

describe('the NeuronCore layout of processes on one instance', () => {
  test('the group sizes Neuron supports: any on Inf1, 1/2/4/8/24 on Inf2, 1/2/8/16/32 on Trn1', () => {
    expect(supportedGroupSizes(instance('inf1.6xlarge'))).toBeUndefined();
    expect(supportedGroupSizes(instance('inf2.48xlarge'))).toEqual([1, 2, 4, 8, 24]);
    expect(supportedGroupSizes(instance('trn1.32xlarge'))).toEqual([1, 2, 8, 16, 32]);
    expect(supportedGroupSizes(instance('trn1n.32xlarge'))).toEqual([1, 2, 8, 16, 32]);
  });

  test('NEURON_RT_VISIBLE_CORES is one index for one core and an inclusive range for more', () => {
    expect(visibleCoresValue(0, 1)).toBe('0');
    expect(visibleCoresValue(2, 2)).toBe('2-3');
    // The FastAPI sample broke on indexes >= 10; we produce plain decimal ranges.
    expect(visibleCoresValue(10, 2)).toBe('10-11');
  });

  test('GIVEN Inf1 with 4 cores per chip THEN core 5 is on /dev/neuron1 and cores 3-4 span two chips', () => {
    expect(devicesForCores([5], 4)).toEqual(['/dev/neuron1']);
    expect(devicesForCores([3, 4], 4)).toEqual(['/dev/neuron0', '/dev/neuron1']);
  });

  test('GIVEN Inf2 with 2 cores per chip THEN core 5 is on /dev/neuron2, not /dev/neuron1 as core/4 would say', () => {
    expect(devicesForCores([5], 2)).toEqual(['/dev/neuron2']);
    expect(devicesForCores([22, 23], 2)).toEqual(['/dev/neuron11']);
  });

  test('WHEN the processes need not divide the NeuronCores THEN fewer processes than cores are valid', () => {
    expect(validateLayout(instance('inf1.6xlarge'), 3, 5)).toEqual([]);
    expect(validateLayout(instance('inf1.xlarge'), 1, 3)).toEqual([]);
  });

  test('WHEN a group size is not one Neuron supports on the chip THEN the message lists the sizes', () => {
    expect(validateLayout(instance('inf2.24xlarge'), 3, 1)).toEqual([
      'coresPerProcess=3 is not a NeuronCore group size the Neuron SDK supports on inf2.24xlarge; compile the model for one of: 1, 2, 4, 8',
    ]);
  });

  test('WHEN processes x cores exceed the instance THEN the message names both and the fitting values', () => {
    expect(validateLayout(instance('inf2.24xlarge'), 4, 6)).toEqual([
      'processesPerInstance=6 x coresPerProcess=4 needs 24 NeuronCores but inf2.24xlarge has 12; ' +
        'valid values for 4-core processes: 1 to 3',
    ]);
    expect(validateLayout(instance('inf2.xlarge'), 1, 3)).toEqual([
      'processesPerInstance=3 x coresPerProcess=1 needs 3 NeuronCores but inf2.xlarge has 2; valid values for 1-core processes: 1 to 2',
    ]);
    expect(validateLayout(instance('inf2.xlarge'), 4, 1)[0]).toMatch(/^coresPerProcess=4 exceeds the 2 NeuronCores of inf2.xlarge/);
    expect(validateLayout(instance('inf2.xlarge'), 0, 1.5)).toHaveLength(2);
  });

  test('GIVEN inf2.48xlarge with 12 two-core processes THEN process 5 owns cores 10-11 on /dev/neuron5', () => {
    const layout = coreLayout(instance('inf2.48xlarge'), 2, 12);
    expect(layout).toHaveLength(12);
    expect(layout[5]).toEqual({ index: 5, cores: [10, 11], visibleCores: '10-11', devices: ['/dev/neuron5'] });
    expect(layout[11].visibleCores).toBe('22-23');
  });

  test('GIVEN inf1.6xlarge with 16 one-core processes THEN process 5 owns core 5 on /dev/neuron1', () => {
    const layout = coreLayout(instance('inf1.6xlarge'), 1, 16);
    expect(layout[5]).toEqual({ index: 5, cores: [5], visibleCores: '5', devices: ['/dev/neuron1'] });
  });

  test('GIVEN one 1-core process pinned on a 2-core instance THEN it gets core 0 and core 1 stays unreserved', () => {
    expect(coreLayout(instance('inf2.xlarge'), 1, 1)).toEqual([
      { index: 0, cores: [0], visibleCores: '0', devices: ['/dev/neuron0'] },
    ]);
  });

  test('GIVEN 4 processes of 3 cores on 16 cores THEN each starts at its aligned 4-core group', () => {
    const layout = coreLayout(instance('inf1.6xlarge'), 3, 4);
    expect(layout.map((p) => p.visibleCores)).toEqual(['0-2', '4-6', '8-10', '12-14']);
    expect(layout[1].devices).toEqual(['/dev/neuron1']);
  });

  test('GIVEN 5 processes of 3 cores on 16 cores THEN they pack from core 0 and core 15 idles', () => {
    expect(coreLayout(instance('inf1.6xlarge'), 3, 5).map((p) => p.visibleCores)).toEqual(['0-2', '3-5', '6-8', '9-11', '12-14']);
  });

  test('GIVEN 4 two-core processes on 12 Inferentia2 cores THEN no group straddles two chips', () => {
    const layout = coreLayout(instance('inf2.24xlarge'), 2, 4);
    expect(layout.map((p) => p.visibleCores)).toEqual(['0-1', '2-3', '4-5', '6-7']);
    expect(layout.every((p) => p.devices.length === 1)).toBe(true);
  });

  test('GIVEN 3 one-core processes on inf1.xlarge THEN cores 0-2 are used and core 3 idles', () => {
    expect(coreLayout(instance('inf1.xlarge'), 1, 3).map((p) => p.visibleCores)).toEqual(['0', '1', '2']);
  });

  test('an invalid layout throws rather than producing overlapping cores', () => {
    expect(() => coreLayout(instance('inf2.xlarge'), 1, 3)).toThrow(/needs 3 NeuronCores but inf2.xlarge has 2/);
  });
});

describe('the topology rule of Trainium instances', () => {
  test('GIVEN trn2.48xlarge at LNC=2 (4 cores a chip) WHEN a copy spans 2 chips THEN it is refused, naming the rule, its source and the next size', () => {
    const trn2 = instance('trn2.48xlarge');
    for (const cores of [1, 2, 4, 16, 32, 64]) {
      expect(deviceCountProblem(trn2, cores)).toBeUndefined();
    }
    const problem = deviceCountProblem(trn2, 8);
    expect(problem).toMatch(/8 NeuronCores span 2 Neuron devices of trn2\.48xlarge/);
    expect(problem).toMatch(/1, 4, 8 or 16 Neuron devices/);
    expect(problem).toMatch(/Neuron scheduler extension/);
    expect(problem).toMatch(/use 16 NeuronCores \(4 devices\)/);
    expect(validateLayout(trn2, 8, 1)).toEqual([`coresPerProcess=8: ${problem}`]);
  });

  test('GIVEN Trn1 (2 cores a chip) THEN every supported group is 1, 4, 8 or 16 chips, and 12 chips round up to 16', () => {
    const trn1 = instance('trn1.32xlarge');
    for (const cores of supportedGroupSizes(trn1) ?? []) {
      expect(deviceCountProblem(trn1, cores)).toBeUndefined();
    }
    expect(deviceCountProblem(trn1, 24)).toMatch(/span 12 Neuron devices .* use 32 NeuronCores \(16 devices\)/);
  });

  test('GIVEN a ring (Inf2) or a one-chip Trainium THEN no chip count is refused', () => {
    expect(deviceCountProblem(instance('inf2.48xlarge'), 6)).toBeUndefined();
    expect(deviceCountProblem(instance('trn1.2xlarge'), 2)).toBeUndefined();
  });

  test.each([
    // A price file's Trn3 of 3 or 6 chips once planned one copy over all of them: the rule holds at any chip count.
    [3, 24, /24 NeuronCores span 3 Neuron devices of trn3\.48xlarge, but on a Trainium instance .*; use at most 8 NeuronCores \(1 device\)/],
    [6, 48, /48 NeuronCores span 6 Neuron devices .*; use at most 8 NeuronCores/],
    [6, 16, /16 NeuronCores span 2 Neuron devices .*; use 32 NeuronCores \(4 devices\)/],
    [6, 32, undefined],
    [3, 8, undefined],
  ])('GIVEN a trn3 of %i chips (8 cores a chip) WHEN a copy takes %i cores THEN %s', (chips, cores, problem) => {
    const trn3: InstanceSpec = { ...instance('trn2.48xlarge'), name: 'trn3.48xlarge', family: 'trn3', chips, coresPerChip: 8, logicalNeuronCoreConfig: 1, coreVersion: 'v4' };
    const found = deviceCountProblem(trn3, cores);
    if (problem === undefined) {
      expect(found).toBeUndefined();
    } else {
      expect(found).toMatch(problem);
    }
  });
});
