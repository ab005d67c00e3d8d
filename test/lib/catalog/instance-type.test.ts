import { Catalog, NeuronInstanceType } from '../../../lib/catalog';
import { InputError } from '../../../lib/errors';

describe('NeuronInstanceType names every catalog instance', () => {
  // Each constant, by family, with its NeuronCores; its name is the EC2 name upper-cased, '.' as '_'.
  test.each(([
    ['INF1_XLARGE', 4], ['INF1_2XLARGE', 4], ['INF1_6XLARGE', 16], ['INF1_24XLARGE', 64],
    ['INF2_XLARGE', 2], ['INF2_8XLARGE', 2], ['INF2_24XLARGE', 12], ['INF2_48XLARGE', 24],
    ['TRN1_2XLARGE', 2], ['TRN1_32XLARGE', 32], ['TRN1N_32XLARGE', 32],
  ] as const).map(([constant, cores]) => [constant, constant.toLowerCase().replace('_', '.'), cores] as const))('%s is %s with %i NeuronCores', (constant, name, cores) => {
    // GIVEN the constant WHEN reading it THEN names and cores match the catalog
    const type = NeuronInstanceType[constant];
    expect(type.name).toBe(name);
    expect(type.sageMakerName).toBe(`ml.${name}`);
    expect(type.neuronCores).toBe(cores);
    expect(type.spec).toBe(Catalog.builtIn().instance(name));
    expect(`${type}`).toBe(name);
  });
});

describe('NeuronInstanceType.of resolves names', () => {
  test('an EC2 or ml. name of a catalog type returns the constant', () => {
    expect(NeuronInstanceType.of('inf2.8xlarge')).toBe(NeuronInstanceType.INF2_8XLARGE);
    expect(NeuronInstanceType.of('ml.inf2.8xlarge')).toBe(NeuronInstanceType.INF2_8XLARGE);
  });

  test('an unknown size of a Neuron family needs its spec, and the error says how to give it', () => {
    // GIVEN trn2u.48xlarge, a Neuron type the catalog lacks WHEN resolved without a spec THEN the error says so
    expect(() => NeuronInstanceType.of('ml.trn2u.48xlarge')).toThrow(InputError);
    expect(() => NeuronInstanceType.of('ml.trn2u.48xlarge')).toThrow(
      'instance type "ml.trn2u.48xlarge" is not in the catalog, so its NeuronCores and memory are unknown; pass its spec '
        + '(NeuronInstanceType.of("trn2u.48xlarge", spec)) or add it under "instances" in a price file. Catalog types: '
        + 'inf1.xlarge, inf1.2xlarge, inf1.6xlarge, inf1.24xlarge, inf2.xlarge, inf2.8xlarge, inf2.24xlarge, '
        + 'inf2.48xlarge, trn1.2xlarge, trn1.32xlarge, trn1n.32xlarge, trn2.48xlarge',
    );
  });

  test('the escape hatch takes the caller\'s spec', () => {
    // GIVEN a spec for a size the catalog lacks WHEN resolved THEN its cores come from the spec: 24 chips x 2
    const spec = {
      name: 'inf2.96xlarge', family: 'inf2', chips: 24, coresPerChip: 2, coreVersion: 'v2' as const,
      deviceMemoryPerChipGiB: 32, vcpus: 384, memoryGiB: 1536, source: 'test', unverified: true,
    };
    const type = NeuronInstanceType.of('ml.inf2.96xlarge', spec);
    expect(type.name).toBe('inf2.96xlarge');
    expect(type.sageMakerName).toBe('ml.inf2.96xlarge');
    expect(type.neuronCores).toBe(48);
    expect(type.spec).toBe(spec);
  });

  test('a spec that describes another type is refused', () => {
    const spec = Catalog.builtIn().instance('inf2.xlarge')!;
    expect(() => NeuronInstanceType.of('inf2.8xlarge', spec)).toThrow(
      'instance type "inf2.8xlarge": the spec given describes "inf2.xlarge"; pass the spec of "inf2.8xlarge"',
    );
  });

  test.each(['m5.xlarge', 'ml.g5.2xlarge', 'inf2', ''])('"%s" is not a Neuron type and the error lists the known names', (name) => {
    expect(() => NeuronInstanceType.of(name)).toThrow(
      new RegExp(`^instance type "${name.replace(/\./g, '\\.')}" is not a Neuron instance type \\(families inf1, inf2, trn1, trn1n, trn2, trn2u, trn3\\); use one of inf1.xlarge, .*, trn2.48xlarge$`),
    );
  });
});
