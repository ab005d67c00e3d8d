import { editDistance } from '../edit-distance';
import { InputError } from '../errors';
import { Catalog, ec2Name, neuronCores, sageMakerName } from './catalog';
import { NEURON_CHIPS } from './hardware-rules';
import { InstanceSpec } from './types';

/**
 * Instance families with Neuron devices. A name of one of these families that the catalog lacks is accepted when
 * the caller supplies its hardware facts (`NeuronInstanceType.of(name, spec)`).
 */
export const NEURON_FAMILIES: readonly string[] = Object.freeze(Object.keys(NEURON_CHIPS));

/**
 * A Neuron instance type (Inf1, Inf2, Trn1, Trn1n, Trn2) with its hardware facts.
 *
 * Use the constants for the types in the catalog (`NeuronInstanceType.INF2_XLARGE`) and `of` for the others.
 *
 * @example
 * NeuronInstanceType.INF2_XLARGE.neuronCores; // 2
 * NeuronInstanceType.of('ml.inf2.8xlarge').name; // 'inf2.8xlarge'
 * NeuronInstanceType.of('trn2u.48xlarge', { ...myTrn2uSpec }); // escape hatch for types the catalog lacks
 */
export class NeuronInstanceType {
  private static readonly known = new Map<string, NeuronInstanceType>();

  /** inf1.xlarge: 1 Inferentia chip, 4 NeuronCore-v1. */
  static readonly INF1_XLARGE = NeuronInstanceType.of('inf1.xlarge');
  /** inf1.2xlarge: 1 Inferentia chip, 4 NeuronCore-v1. */
  static readonly INF1_2XLARGE = NeuronInstanceType.of('inf1.2xlarge');
  /** inf1.6xlarge: 4 Inferentia chips, 16 NeuronCore-v1. */
  static readonly INF1_6XLARGE = NeuronInstanceType.of('inf1.6xlarge');
  /** inf1.24xlarge: 16 Inferentia chips, 64 NeuronCore-v1. */
  static readonly INF1_24XLARGE = NeuronInstanceType.of('inf1.24xlarge');
  /** inf2.xlarge: 1 Inferentia2 chip, 2 NeuronCore-v2. */
  static readonly INF2_XLARGE = NeuronInstanceType.of('inf2.xlarge');
  /** inf2.8xlarge: 1 Inferentia2 chip, 2 NeuronCore-v2. */
  static readonly INF2_8XLARGE = NeuronInstanceType.of('inf2.8xlarge');
  /** inf2.24xlarge: 6 Inferentia2 chips, 12 NeuronCore-v2. */
  static readonly INF2_24XLARGE = NeuronInstanceType.of('inf2.24xlarge');
  /** inf2.48xlarge: 12 Inferentia2 chips, 24 NeuronCore-v2. */
  static readonly INF2_48XLARGE = NeuronInstanceType.of('inf2.48xlarge');
  /** trn1.2xlarge: 1 Trainium chip, 2 NeuronCore-v2. */
  static readonly TRN1_2XLARGE = NeuronInstanceType.of('trn1.2xlarge');
  /** trn1.32xlarge: 16 Trainium chips, 32 NeuronCore-v2. */
  static readonly TRN1_32XLARGE = NeuronInstanceType.of('trn1.32xlarge');
  /** trn1n.32xlarge: 16 Trainium chips, 32 NeuronCore-v2, twice the EFA bandwidth of trn1.32xlarge. */
  static readonly TRN1N_32XLARGE = NeuronInstanceType.of('trn1n.32xlarge');
  /** trn2.48xlarge: 16 Trainium2 chips, 128 NeuronCore-v3, 64 logical cores at the default LNC=2. */
  static readonly TRN2_48XLARGE = NeuronInstanceType.of('trn2.48xlarge');

  /**
   * The instance type named `name`, as EC2 (`inf2.xlarge`) or SageMaker (`ml.inf2.xlarge`) writes it.
   *
   * Types in the built-in catalog take their facts from it, unless `spec` is given (e.g. from a catalog a price
   * file changed). Other types of a Neuron family (inf1, inf2, trn1, trn1n, trn2, trn2u, trn3) need `spec`.
   *
   * @param spec hardware facts, required for a Neuron type the catalog lacks @default - the built-in catalog's
   * @throws InputError when the name is not a Neuron instance type, or `spec` is missing or names another type
   */
  static of(name: string, spec?: InstanceSpec): NeuronInstanceType {
    const ec2 = ec2Name(name.trim());
    if (spec !== undefined) {
      if (spec.name !== ec2) {
        throw new InputError(`instance type "${name}": the spec given describes "${spec.name}"; pass the spec of "${ec2}"`);
      }
      return new NeuronInstanceType(spec);
    }
    const cached = NeuronInstanceType.known.get(ec2);
    if (cached) {
      return cached;
    }
    const builtIn = Catalog.builtIn().instance(ec2);
    if (builtIn) {
      const type = new NeuronInstanceType(builtIn);
      NeuronInstanceType.known.set(ec2, type);
      return type;
    }
    const knownNames = Catalog.builtIn().instances.map((s) => s.name).join(', ');
    if (NEURON_FAMILIES.includes(ec2.split('.')[0]) && /^[a-z0-9]+\.[a-z0-9-]+$/.test(ec2)) {
      throw new InputError(`instance type "${name}" is not in the catalog, so its NeuronCores and memory are unknown; `
        + `pass its spec (NeuronInstanceType.of("${ec2}", spec)) or add it under "instances" in a price file. `
        + `Catalog types: ${knownNames}`);
    }
    throw new InputError(`instance type "${name}" is not a Neuron instance type (families ${NEURON_FAMILIES.join(', ')}); `
      + `use one of ${knownNames}`);
  }

  /** EC2 name, e.g. `inf2.xlarge`. */
  readonly name: string;
  /** SageMaker name, e.g. `ml.inf2.xlarge`. */
  readonly sageMakerName: string;
  /** Hardware facts. */
  readonly spec: InstanceSpec;
  /** NeuronCores of the instance: chips x cores per chip. */
  readonly neuronCores: number;

  private constructor(spec: InstanceSpec) {
    this.spec = spec;
    this.name = spec.name;
    this.sageMakerName = sageMakerName(spec.name);
    this.neuronCores = neuronCores(spec);
  }

  /** The EC2 name. */
  toString(): string {
    return this.name;
  }
}

/*
 * The instance type a measurement names: profiles are read without a catalog (a price file may define the type),
 * so the name is checked for its form here and against the plan's catalog by {@link unknownInstanceProblems}.
 */

/** Neuron instance sizes as EC2 writes them: `xlarge`, `2xlarge` ... `48xlarge`. */
const NEURON_SIZE = /^\d*xlarge$/;

/**
 * Why `name` cannot be the instance type a row was measured on, or undefined when it can: a SageMaker name (`ml.`,
 * write the EC2 one), not a Neuron family, or not an EC2 size (`inf2.48xlarg`, with the closest built-in type).
 * A well-formed name the built-in catalog lacks (`trn3.48xlarge`) passes: a price file may define it.
 */
export function measuredInstanceProblem(name: string): string | undefined {
  const builtIn = Catalog.builtIn().instances.map((s) => s.name);
  if (builtIn.includes(name)) return undefined;
  if (name.startsWith('ml.')) {
    return `"${name}" is a SageMaker name; write the EC2 name "${ec2Name(name)}" (a row measures the chip, whatever the hosting)`;
  }
  if (name !== name.toLowerCase()) {
    return `"${name}" is not an EC2 instance type name; EC2 writes them in lower case: "${name.toLowerCase()}"`;
  }
  const [family, size, ...rest] = name.split('.');
  if (!NEURON_FAMILIES.includes(family)) {
    return `"${name}" is not a Neuron instance; measure on inf2, trn1, trn2 ... (families: ${NEURON_FAMILIES.join(', ')})`;
  }
  if (size === undefined || rest.length > 0 || !NEURON_SIZE.test(size)) {
    const near = nearestInstance(name, builtIn);
    return `"${name}" is not an EC2 instance type name; ${near !== undefined ? `did you mean "${near}"?` : `built-in: ${builtIn.join(', ')}`}`;
  }
  return undefined;
}

/** The built-in type of the same family whose name is fewest edits away. */
function nearestInstance(name: string, builtIn: readonly string[]): string | undefined {
  const family = name.split('.')[0];
  return builtIn.filter((n) => n.startsWith(`${family}.`)).sort((a, b) => editDistance(name, a) - editDistance(name, b))[0];
}

/**
 * One problem per measurement whose chip no instance of `catalog` carries: a row applies to every instance of its chip
 * (a trn2.3xlarge row times trn2.48xlarge), so a row on a chip the catalog lacks (trn3 without a price file defining
 * one) would be dropped without a word. The fix: the type's right name, or its facts under `instances` in a price file.
 *
 * @param profileId named in every problem
 */
export function unknownInstanceProblems(profileId: string, measurements: readonly { readonly instanceType?: string }[], catalog: Catalog): string[] {
  const chips = new Set(catalog.instances.map((s) => NEURON_CHIPS[s.family]));
  return measurements.flatMap((m, i) => {
    if (m.instanceType === undefined || catalog.instance(m.instanceType) !== undefined) return [];
    const chip = NEURON_CHIPS[ec2Name(m.instanceType).split('.')[0]];
    if (chip === undefined || chips.has(chip)) return [];
    return [`${profileId}: measurements[${i}].instanceType "${m.instanceType}": no instance of the catalog has its chip (${chip.name}), so no candidate `
      + 'would use the row; define the type under "instances" in a price file (--prices), or correct the name'];
  });
}
