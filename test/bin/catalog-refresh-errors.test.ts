import { DescribeInstanceTypeOfferingsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { PricingClient } from '@aws-sdk/client-pricing';
import { mockClient } from 'aws-sdk-client-mock';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { runCli } from '../../bin/cli';

async function run(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s) });
  return { code, stdout, stderr };
}

describe('catalog refresh without usable credentials stops with one line naming them and the fix', () => {
  const ec2Mock = mockClient(EC2Client);
  const pricingMock = mockClient(PricingClient);
  let dir: string;
  beforeEach(() => {
    ec2Mock.reset();
    pricingMock.reset();
    dir = mkdtempSync(join(tmpdir(), 'refresh-errors-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('GIVEN the credential chain finds nothing WHEN refreshing THEN exit 1, one line, no stack trace', async () => {
    // GIVEN the error the SDK's default chain throws when no provider has credentials
    const noCredentials = Object.assign(new Error('Could not load credentials from any providers'), {
      name: 'CredentialsProviderError',
      tryNextLink: false,
    });
    ec2Mock.on(DescribeInstanceTypeOfferingsCommand).rejects(noCredentials);

    // WHEN refreshing
    const { code, stdout, stderr } = await run('catalog', 'refresh', '--regions', 'us-east-1', '--out', join(dir, 'p.json'));

    // THEN
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(stderr).toMatch(
      /^error: EC2 DescribeInstanceTypeOfferings in us-east-1 failed: no AWS credentials found \(CredentialsProviderError: Could not load credentials from any providers\); give the AWS SDK credentials: set AWS_PROFILE/,
    );
    expect(stderr).not.toMatch(/internal error|\n\s+at /);
  });

  test('GIVEN a denied call WHEN refreshing THEN exit 1 naming the call and the denial', async () => {
    const denied = Object.assign(new Error('You are not authorized to perform this operation.'), {
      name: 'UnauthorizedOperation',
      $metadata: { httpStatusCode: 403 },
    });
    ec2Mock.on(DescribeInstanceTypeOfferingsCommand).rejects(denied);

    const { code, stderr } = await run('catalog', 'refresh', '--regions', 'eu-west-1', '--out', join(dir, 'p.json'));

    expect(code).toBe(1);
    expect(stderr).toMatch(/^error: EC2 DescribeInstanceTypeOfferings in eu-west-1 failed: access denied \(UnauthorizedOperation: /);
  });
});

describe('catalog refresh checks its flags before any AWS call', () => {
  test('GIVEN a region that is not one and an --out in a missing directory THEN exit 2 naming both, no AWS call', async () => {
    const { code, stdout, stderr } = await run('catalog', 'refresh', '--regions', 'mars-1,us-east-1', '--out', '/nonexistent-dir/p.json');
    expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
    expect(stderr).toContain('--regions: "mars-1" is not an AWS region code');
    expect(stderr).toContain('--out /nonexistent-dir/p.json: the directory /nonexistent-dir does not exist');
  });
});

describe('catalog refuses a flag given twice instead of keeping the last value', () => {
  test.each([
    [['catalog', 'refresh', '--regions', 'us-east-1', '--regions', 'eu-west-1', '--out', 'p.json'], '--regions is given twice (us-east-1, then eu-west-1)'],
    [['catalog', 'refresh', '--regions', 'us-east-1', '--hostings', 'ec2', '--hostings', 'sagemaker', '--out', 'p.json'], '--hostings is given twice (ec2, then sagemaker)'],
    [['catalog', '--region', 'us-east-1', '--region', 'eu-west-1'], '--region is given twice (us-east-1, then eu-west-1)'],
  ])('GIVEN %j THEN exit 2 naming the flag and both values', async (argv, message) => {
    const { code, stdout, stderr } = await run(...argv);

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain(message);
  });

  test('GIVEN --hostings once WHEN refreshing THEN only that hosting is priced (the default no longer comes from commander)', async () => {
    const ec2 = mockClient(EC2Client);
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({ InstanceTypeOfferings: [] });
    const dir = mkdtempSync(join(tmpdir(), 'refresh-hostings-'));
    try {
      const { code, stderr } = await run('catalog', 'refresh', '--regions', 'us-east-1', '--hostings', 'ec2', '--instance-types', 'inf2.xlarge', '--out', join(dir, 'p.json'));

      expect(code).toBe(0);
      expect(stderr).toBe('warning: AWS lists no ec2 price for the Neuron instance types in us-east-1\n');
    } finally {
      ec2.restore();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
