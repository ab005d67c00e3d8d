import { parsePriceFile } from '../../../lib/catalog';
import { inputError } from '../../support/input-error';

/** The problems an invalid file produces, or a failure when it parses. */
/** The problems the price file `json` is refused with. */
const problemsOf = (json: unknown): readonly string[] => inputError(() => parsePriceFile(json, 'prices.json')).problems;

describe('a minimal price file gets its defaults', () => {
  test('one price with the four required fields becomes an on-demand, verified, user price', () => {
    // GIVEN the smallest useful file WHEN parsed THEN kind, source, asOf and unverified are filled in
    const file = parsePriceFile(
      { prices: [{ instanceType: 'inf2.xlarge', region: 'eu-west-1', hosting: 'ec2', usdPerHour: 0.8 }] },
      'prices.json',
    );
    expect(file).toEqual({
      instances: [],
      prices: [{
        instanceType: 'inf2.xlarge', region: 'eu-west-1', hosting: 'ec2', usdPerHour: 0.8,
        kind: 'on-demand', source: 'user price file', asOf: 'undated', unverified: false,
      }],
    });
  });

  test('a price takes the file\'s source and date unless it has its own', () => {
    const file = parsePriceFile({
      source: 'finance sheet', asOf: '2026-10-01',
      prices: [
        { instanceType: 'inf2.xlarge', region: 'us-west-2', hosting: 'sagemaker', usdPerHour: 1 },
        {
          instanceType: 'inf1.xlarge', region: 'us-west-2', hosting: 'ec2', usdPerHour: 0.1, kind: 'ri-effective',
          source: 'quote 42', asOf: '2026-09-30', unverified: true,
        },
      ],
    }, 'prices.json');
    expect(file.source).toBe('finance sheet');
    expect(file.asOf).toBe('2026-10-01');
    expect(file.prices[0]).toMatchObject({ source: 'finance sheet', asOf: '2026-10-01', kind: 'on-demand', unverified: false });
    expect(file.prices[1]).toMatchObject({ source: 'quote 42', asOf: '2026-09-30', kind: 'ri-effective', unverified: true });
  });

  test('an instance defined in the file can be priced, and its family is read from its name', () => {
    const file = parsePriceFile({
      instances: [{ name: 'inf2.96xlarge', chips: 24, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 384, memoryGiB: 1536 }],
      prices: [{ instanceType: 'inf2.96xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 30 }],
    }, 'prices.json');
    expect(file.instances[0]).toMatchObject({ name: 'inf2.96xlarge', family: 'inf2', source: 'user price file', unverified: false });
  });
});

describe('an invalid price file fails once, with one line per problem naming its JSON path', () => {
  test('a negative price names its path and the value received', () => {
    // GIVEN the third price is negative WHEN parsed THEN the message names prices[2].usdPerHour and -1
    const ok = { instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 1 };
    const problems = problemsOf({
      prices: [ok, { ...ok, region: 'us-west-2' }, { ...ok, region: 'eu-west-1', usdPerHour: -1 }],
    });
    expect(problems).toEqual(['prices.json: prices[2].usdPerHour: expected a positive number, got -1']);
  });

  test('every problem of the file is reported at once', () => {
    // GIVEN a file with a bad date, a bad hosting, a typo'd field, a missing field, a string price, a SageMaker
    // name, an unknown type, a region name instead of a code, and an incomplete instance
    const problems = problemsOf({
      asOf: 'yesterday',
      instances: [{ name: 'inf2.96xlarge', chips: 0.5 }],
      prices: [
        { instanceType: 'ml.inf2.xlarge', region: 'us-east-1', hosting: 'ec3', usdPerHour: 1, usdPerHr: 2 },
        { instanceType: 'inf9.xlarge', region: 'US East (N. Virginia)', hosting: 'ec2' },
        { instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'sagemaker', usdPerHour: '1.2' },
      ],
    });
    // THEN each is one line naming the path
    expect(problems).toEqual(expect.arrayContaining([
      'prices.json: asOf: expected an ISO date such as 2026-11-22, got "yesterday"',
      'prices.json: instances[0].chips: expected a positive whole number, got 0.5',
      'prices.json: instances[0].coreVersion: missing; expected "v1" (Inf1), "v2" (Inf2, Trn1), "v3" (Trn2) or "v4" (Trn3)',
      'prices.json: prices[0].hosting: expected "ec2" or "sagemaker", got "ec3"',
      'prices.json: prices[0]: unknown field "usdPerHr"',
      'prices.json: prices[0].instanceType: "ml.inf2.xlarge" is a SageMaker name; write the EC2 name "inf2.xlarge" '
        + '(the hosting field says whether the price is for SageMaker)',
      'prices.json: prices[1].usdPerHour: missing; expected a positive number',
      'prices.json: prices[1].region: expected an AWS region code such as us-east-1, got "US East (N. Virginia)"',
      'prices.json: prices[2].usdPerHour: expected a positive number, got "1.2"',
    ]));
    expect(problems.find((p) => p.startsWith('prices.json: prices[1].instanceType'))).toMatch(
      /unknown instance type "inf9.xlarge"; use one of inf1.xlarge, .*trn2.48xlarge, or define it under "instances"/,
    );
    expect(problems).toHaveLength(14);
  });

  test('the same price twice is a problem naming both entries', () => {
    const p = { instanceType: 'inf2.xlarge', region: 'us-east-1', hosting: 'ec2', usdPerHour: 1 };
    expect(problemsOf({ prices: [p, { ...p, kind: 'on-demand', usdPerHour: 2 }] })).toEqual([
      'prices.json: prices[1]: same instance type, region, hosting and kind as prices[0] (inf2.xlarge, us-east-1, ec2, '
        + 'on-demand); keep one',
    ]);
  });

  test('instance names must be EC2 names, once each, with a matching family', () => {
    const spec = { chips: 1, coresPerChip: 2, coreVersion: 'v2', deviceMemoryPerChipGiB: 32, vcpus: 4, memoryGiB: 16 };
    expect(problemsOf({
      instances: [
        { ...spec, name: 'ml.inf2.xlarge' },
        { ...spec, name: 'inf2.96xlarge' },
        { ...spec, name: 'inf2.96xlarge' },
        { ...spec, name: 'inf2.12xlarge', family: 'trn1' },
        { ...spec, name: 'Inf2 XL' },
      ],
      prices: [],
    })).toEqual([
      'prices.json: instances[0].name: "ml.inf2.xlarge" is a SageMaker name; write the EC2 name "inf2.xlarge" (the hosting '
        + 'field says whether the price is for SageMaker)',
      'prices.json: instances[2].name: "inf2.96xlarge" is defined twice in this file; keep one',
      'prices.json: instances[3].family: expected "inf2" (the part of "inf2.12xlarge" before the dot), got "trn1"',
      'prices.json: instances[4].name: expected an EC2 instance type name such as inf2.xlarge, got "Inf2 XL"',
    ]);
  });

  test.each([
    [[], 'prices.json: (top level): expected a JSON object with a "prices" list, got []'],
    [null, 'prices.json: (top level): expected a JSON object with a "prices" list, got null'],
    [{}, 'prices.json: prices: missing; expected a list of prices'],
    [{ prices: {} }, 'prices.json: prices: expected a list of prices, got {}'],
  ])('a file that is not a price list (%j) says what is expected', (json, message) => {
    expect(problemsOf(json)).toEqual([message]);
  });

  test('the error message lists every problem for the terminal', () => {
    // GIVEN two problems WHEN thrown THEN the message counts them and lists each on its own line
    expect(() => parsePriceFile({ prices: [{ instanceType: 'inf2.xlarge', region: 'mars-1', hosting: 'ec2', usdPerHour: 0 }] }, 'p.json'))
      .toThrow('2 problems:\n- p.json: prices[0].usdPerHour: expected a positive number, got 0\n'
        + '- p.json: prices[0].region: expected an AWS region code such as us-east-1, got "mars-1"');
  });
});
