import * as fs from 'fs';
import * as path from 'path';
import { environmentNamed, nextEnvironment, parseEnvironments } from '../../../lib/environments';
import { inputError } from '../../support/input-error';

const EXAMPLE = path.join(__dirname, '..', '..', '..', 'examples', 'environments.json');

function example(): { application: string; environments: Record<string, unknown>[] } {
  return JSON.parse(fs.readFileSync(EXAMPLE, 'utf8'));
}

/** The problems the environments config `json` is refused with. */
function problemsOf(json: unknown, hostings?: ('sagemaker' | 'ec2')[]): readonly string[] {
  return inputError(() => parseEnvironments(json, { source: 'environments.json', hostings })).problems;
}

describe('the environments config resolves the shipped example', () => {
  test('GIVEN examples/environments.json WHEN parsed THEN dev, staging and prod come back in order with plans and defaults', () => {
    const config = parseEnvironments(example(), { source: 'environments.json' });
    expect(config.environments.map((e) => e.name)).toEqual(['dev', 'staging', 'prod']);
    const [dev, staging, prod] = config.environments;
    expect(dev.production).toBe(false);
    expect(dev.approval).toBe('none');
    expect(prod.production).toBe(true);
    expect(prod.approval).toBe('manual');
    expect(prod.plan.instanceCount).toBeGreaterThanOrEqual(2);
    expect(staging.gate).toEqual({ maxErrorRate: 0.01, maxReportAgeHours: 168, capacityProofRequired: true });
    expect(dev.gate.maxReportAgeHours).toBe(72);
    expect(dev.repositoryName).toBe('bert-base-uncased/dev');
    expect(nextEnvironment(config, dev)?.name).toBe('staging');
    expect(nextEnvironment(config, prod)).toBeUndefined();
    expect(environmentNamed(config, 'staging')).toBe(staging);
    expect(() => environmentNamed(config, 'qa')).toThrow('environment "qa" is not in the environments config; environments: dev, staging, prod');
  });
});

describe('every problem in the environments config is reported at once, naming the environment, the field and the fix', () => {
  test('GIVEN a bad account id and an unknown region WHEN parsed THEN both are named with their environment', () => {
    const json = example();
    json.environments[1].account = '12345';
    json.environments[2].region = 'us-north-9';
    const problems = problemsOf(json);
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringContaining('environments[1] (environment "staging").account: must be a 12-digit AWS account id'),
    ]));
    // Structure problems stop before the semantic checks, so the region is reported once the account is fixed.
    json.environments[1].account = '123456789012';
    expect(problemsOf(json)).toEqual([
      expect.stringContaining('environment "prod" region: "us-north-9" is not an AWS region code'),
    ]);
  });

  test('GIVEN a region without prices WHEN parsed THEN the message says how to fetch them', () => {
    const json = example();
    json.environments[0].region = 'il-central-1';
    expect(problemsOf(json)).toEqual([
      expect.stringMatching(/environment "dev" region: no sagemaker prices for il-central-1 .*catalog refresh --regions il-central-1/),
    ]);
  });

  test('GIVEN smoke thresholds looser than the targets WHEN parsed THEN refused with the target to use', () => {
    const json = example();
    json.environments[1].smoke = { p99MaxMs: 31 };
    expect(problemsOf(json)).toEqual([
      expect.stringContaining('environment "staging" smoke.p99MaxMs: 31 ms is looser than targets.p99Ms=10 ms plus the 20 ms SageMaker Runtime round trip'),
    ]);
  });

  test('GIVEN production on one instance WHEN parsed without a waiver THEN refused; WITH a waiver THEN accepted', () => {
    const json = example();
    json.environments[2].availability = { minInstances: 1 };
    expect(problemsOf(json)).toEqual([
      expect.stringContaining('environment "prod" availability.minInstances: 1 in a production environment'),
    ]);
    json.environments[2].availability = { minInstances: 1, waiver: 'internal batch tool, a restart is acceptable' };
    json.environments[2].targets = { throughputRps: 100, p99Ms: 10 };
    const prod = parseEnvironments(json, { source: 'environments.json' }).environments[2];
    expect(prod.availabilityWaiver).toBe('internal batch tool, a restart is acceptable');
    expect(prod.minInstances).toBe(1);
  });

  test('GIVEN targets no instance meets, a peak below throughput and a duplicate name WHEN parsed THEN all three are reported', () => {
    const json = example();
    json.environments[0].targets = { throughputRps: 200, p99Ms: 0.01 };
    json.environments[1].targets = { throughputRps: 2000, p99Ms: 10, peakThroughputRps: 1000 };
    json.environments[2].name = 'staging';
    const problems = problemsOf(json);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/environment "dev" targets: no sagemaker deployment in us-east-1 meets 200 requests\/s at p99 0.01 ms/);
    expect(problems[1]).toContain('environment "staging" targets.peakThroughputRps: 1000 is below targets.throughputRps=2000');
    expect(problems[2]).toContain('environment "staging" name: appears twice (environments[2])');
  });

  test('GIVEN hosting ec2 WHEN only sagemaker is allowed THEN refused with the hosting to use; WHEN allowed THEN planned for EC2 prices', () => {
    const json = example();
    json.environments[0].hosting = 'ec2';
    expect(problemsOf(json, ['sagemaker'])).toEqual(expect.arrayContaining([
      expect.stringContaining('environment "dev" hosting: "ec2" is not allowed here; use "sagemaker"'),
    ]));
    const dev = parseEnvironments(json, { source: 'environments.json' }).environments[0];
    expect([dev.hosting, dev.plan.hosting]).toEqual(['ec2', 'ec2']);
  });

  test('GIVEN an unknown profile, a role in another account and a bad digest WHEN parsed THEN each names its fix', () => {
    const json = example() as { imageDigest?: string; environments: Record<string, unknown>[] };
    json.imageDigest = 'latest';
    json.environments[0].profile = 'bert-base-uncase';
    json.environments[1].promotionRoleArn = 'arn:aws:iam::999999999999:role/promote';
    const problems = problemsOf(json);
    expect(problems).toEqual([
      expect.stringContaining('imageDigest="latest" is not "sha256:" and 64 lowercase hex digits'),
      expect.stringContaining('environment "dev" profile: "bert-base-uncase" is not a built-in profile; did you mean "bert-base-uncased"'),
      expect.stringContaining('environment "staging" promotionRoleArn: arn:aws:iam::999999999999:role/promote is not in the environment\'s account 123456789012'),
    ]);
  });

  test('GIVEN an unknown field and a missing environments list WHEN parsed THEN the field and the fix are named', () => {
    expect(problemsOf({ application: 'bert', environment: [] })).toEqual([
      'environments.json: environments: missing; add it (see examples/environments.json)',
      "environments.json: unknown field 'environment'; remove or rename it",
    ]);
  });

  test('GIVEN two environments naming one repository in one account and region WHEN parsed THEN refused', () => {
    const json = example();
    json.environments[0].repositoryName = 'bert';
    json.environments[1].repositoryName = 'bert';
    expect(problemsOf(json)).toEqual([
      expect.stringContaining('environment "staging" repositoryName: "bert" is also environment "dev"\'s repository in 123456789012 us-east-1'),
    ]);
  });
});
