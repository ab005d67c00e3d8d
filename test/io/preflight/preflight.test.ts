import 'aws-sdk-client-mock-jest';
import { DescribeAvailabilityZonesCommand, DescribeCapacityReservationsCommand, DescribeInstanceTypeOfferingsCommand, DescribeSubnetsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { BatchGetImageCommand, DescribeImagesCommand, ECRClient } from '@aws-sdk/client-ecr';
import { HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { DescribeEndpointCommand, SageMakerClient } from '@aws-sdk/client-sagemaker';
import { ListAWSDefaultServiceQuotasCommand, ListServiceQuotasCommand, ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { mockClient } from 'aws-sdk-client-mock';
import { parseEcrImage, runPreflight, type CheckResult, type PreflightClients, type PreflightTarget } from '../../../io/preflight/index';

const DLC = '763104351884.dkr.ecr.us-east-1.amazonaws.com/pytorch-inference-neuronx@sha256:' + 'a'.repeat(64);
const OWN = '123456789012.dkr.ecr.us-east-1.amazonaws.com/my-model@sha256:' + 'b'.repeat(64);

const ec2 = mockClient(EC2Client);
const quotas = mockClient(ServiceQuotasClient);
const sageMaker = mockClient(SageMakerClient);
const s3 = mockClient(S3Client);
const ecr = mockClient(ECRClient);

const ecrRegions: string[] = [];
const clients: PreflightClients = {
  ec2: new EC2Client({ region: 'us-east-1' }),
  serviceQuotas: new ServiceQuotasClient({ region: 'us-east-1' }),
  sageMaker: new SageMakerClient({ region: 'us-east-1' }),
  s3: new S3Client({ region: 'us-east-1' }),
  ecr: (region) => {
    ecrRegions.push(region);
    return new ECRClient({ region });
  },
};

const sageMakerTarget: PreflightTarget = {
  source: 'plan.json',
  region: 'us-east-1',
  hosting: 'sagemaker',
  instanceType: 'ml.inf2.xlarge',
  vcpus: 4,
  instanceCount: 2,
  maxInstanceCount: 3,
  image: DLC,
  modelDataUri: 's3://models/bert/',
  endpointName: 'bert-prod',
};

function awsError(name: string, message: string, status = 400): Error {
  return Object.assign(new Error(message), { name, $metadata: { httpStatusCode: status } });
}

/** An account where everything the deploy needs is in place. */
function healthyAccount(): void {
  ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
    InstanceTypeOfferings: ['us-east-1a', 'us-east-1b', 'us-east-1c'].map((Location) => ({
      InstanceType: 'inf2.xlarge',
      LocationType: 'availability-zone',
      Location,
    })),
  });
  quotas.on(ListServiceQuotasCommand, { ServiceCode: 'sagemaker' }).resolves({
    Quotas: [
      { QuotaName: 'ml.inf2.8xlarge for endpoint usage', QuotaCode: 'L-OTHER', Value: 0 },
      { QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-INF2XL', Value: 6 },
    ],
  });
  quotas.on(ListServiceQuotasCommand, { ServiceCode: 'ec2' }).resolves({
    Quotas: [{ QuotaName: 'Running On-Demand Inf instances', QuotaCode: 'L-1945791B', Value: 64 }],
  });
  ecr.on(DescribeImagesCommand).resolves({ imageDetails: [{ imagePushedAt: new Date('2026-10-01T00:00:00Z') }] });
  s3.on(ListObjectsV2Command).resolves({ KeyCount: 2, Contents: [{ Key: 'bert/model.pt' }, { Key: 'bert/code/inference.py' }] });
  s3.on(HeadObjectCommand).resolves({ ContentLength: 1234 });
  sageMaker.on(DescribeEndpointCommand).rejects(awsError('ValidationException', 'Could not find endpoint "bert-prod".'));
}

function check(checks: readonly CheckResult[], id: CheckResult['id']): CheckResult {
  return checks.find((c) => c.id === id)!;
}

beforeEach(() => {
  for (const mock of [ec2, quotas, sageMaker, s3, ecr]) {
    mock.reset();
  }
  ecrRegions.length = 0;
  healthyAccount();
});

describe('preflight passes an account where the first deploy can start', () => {
  test('GIVEN offerings in three zones, quota 6 >= 2 x 3, the DLC digest, model files and a free name THEN every check passes', async () => {
    const report = await runPreflight(sageMakerTarget, clients);

    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['instance-offering', 'pass'],
      ['instance-quota', 'pass'],
      ['instance-pools', 'skip'],
      ['capacity-block', 'skip'],
      ['image', 'pass'],
      ['model-data', 'pass'],
      ['endpoint-name', 'pass'],
    ]);
    expect(report.passed).toBe(true);
    // The image is looked up in the account and region that hold it.
    expect(ecr).toHaveReceivedCommandWith(DescribeImagesCommand, {
      registryId: '763104351884',
      repositoryName: 'pytorch-inference-neuronx',
      imageIds: [{ imageDigest: `sha256:${'a'.repeat(64)}` }],
    });
    expect(ecrRegions).toEqual(['us-east-1']);
    expect(ec2).toHaveReceivedCommandWith(DescribeInstanceTypeOfferingsCommand, {
      LocationType: 'availability-zone',
      Filters: [{ Name: 'instance-type', Values: ['inf2.xlarge'] }],
    });
    expect(s3).toHaveReceivedCommandWith(ListObjectsV2Command, { Bucket: 'models', Prefix: 'bert/' });
    expect(check(report.checks, 'instance-quota').detail).toBe(
      '"ml.inf2.xlarge for endpoint usage" (L-INF2XL) is 6 in us-east-1; a blue/green update at the ceiling of 3 instances (2 x 3) needs 6 (other usage in the account counts too)',
    );
  });

  test('GIVEN EC2 hosting THEN the Inf vCPU quota covers max x vCPUs, and no endpoint name is checked', async () => {
    const report = await runPreflight({ ...sageMakerTarget, hosting: 'ec2', instanceType: 'inf2.xlarge', endpointName: undefined }, clients);

    expect(check(report.checks, 'instance-quota')).toMatchObject({
      status: 'pass',
      detail: expect.stringMatching(/^"Running On-Demand Inf instances" \(L-1945791B\) is 64 vCPUs in us-east-1; 3 x inf2.xlarge \(4 vCPUs each\) needs 12 vCPUs/),
    });
    expect(check(report.checks, 'endpoint-name').status).toBe('skip');
  });

  test('GIVEN a DLC image whose account grants pulls but not DescribeImages THEN BatchGetImage proves it readable', async () => {
    ecr.on(DescribeImagesCommand).rejects(awsError('AccessDeniedException', 'not authorized to perform: ecr:DescribeImages', 400));
    ecr.on(BatchGetImageCommand).resolves({ images: [{ imageId: { imageDigest: `sha256:${'a'.repeat(64)}` } }] });

    const report = await runPreflight(sageMakerTarget, clients);

    expect(check(report.checks, 'image')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/readable in account 763104351884 \(BatchGetImage/) });
  });

  test('GIVEN a model.tar.gz object THEN HeadObject finds it', async () => {
    const report = await runPreflight({ ...sageMakerTarget, modelDataUri: 's3://models/bert/model.tar.gz' }, clients);

    expect(check(report.checks, 'model-data')).toMatchObject({ status: 'pass', detail: 's3://models/bert/model.tar.gz exists (1234 bytes)' });
    expect(s3).toHaveReceivedCommandWith(HeadObjectCommand, { Bucket: 'models', Key: 'bert/model.tar.gz' });
  });
});

describe('preflight fails each check that would break the deploy, with the fix', () => {
  test('GIVEN a new account with quota 0 THEN instance-quota fails with the increase command', async () => {
    quotas.on(ListServiceQuotasCommand, { ServiceCode: 'sagemaker' }).resolves({ Quotas: [] });
    quotas.on(ListAWSDefaultServiceQuotasCommand, { ServiceCode: 'sagemaker' }).resolves({
      Quotas: [{ QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-INF2XL', Value: 0 }],
    });

    const report = await runPreflight(sageMakerTarget, clients);

    expect(report.passed).toBe(false);
    expect(check(report.checks, 'instance-quota')).toEqual({
      id: 'instance-quota',
      status: 'fail',
      detail: '"ml.inf2.xlarge for endpoint usage" (L-INF2XL) is 0 in us-east-1; a blue/green update at the ceiling of 3 instances (2 x 3) needs 6',
      fix:
        'request an increase to at least 6: `aws service-quotas request-service-quota-increase --service-code sagemaker --quota-code L-INF2XL ' +
        '--desired-value 6 --region us-east-1` (other endpoints or instances in the account count too)',
    });
  });

  test('GIVEN EC2 hosting and a Trn quota of 0 vCPUs THEN it fails naming the Trn quota', async () => {
    quotas.on(ListServiceQuotasCommand, { ServiceCode: 'ec2' }).resolves({
      Quotas: [{ QuotaName: 'Running On-Demand Trn instances', QuotaCode: 'L-2C3B7624', Value: 0 }],
    });

    const report = await runPreflight({ ...sageMakerTarget, hosting: 'ec2', instanceType: 'trn1.2xlarge', vcpus: 8, maxInstanceCount: 2 }, clients);

    expect(check(report.checks, 'instance-quota')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^"Running On-Demand Trn instances" \(L-2C3B7624\) is 0 vCPUs in us-east-1; 2 x trn1.2xlarge \(8 vCPUs each\) needs 16 vCPUs$/),
    });
  });

  test('GIVEN no quota of that name anywhere THEN it fails: the type is likely not available for endpoints there', async () => {
    quotas.on(ListServiceQuotasCommand).resolves({ Quotas: [] });
    quotas.on(ListAWSDefaultServiceQuotasCommand).resolves({ Quotas: [] });

    const report = await runPreflight(sageMakerTarget, clients);

    expect(check(report.checks, 'instance-quota').detail).toMatch(/lists no "ml.inf2.xlarge for endpoint usage" quota/);
  });

  test.each([
    [[], /^inf2.xlarge is not offered in us-east-1$/],
    [['us-east-1c'], /^inf2.xlarge is offered in only one Availability Zone of us-east-1 \(us-east-1c\)/],
  ])('GIVEN offerings in zones %j THEN instance-offering fails', async (zones, detail) => {
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
      InstanceTypeOfferings: zones.map((Location) => ({ InstanceType: 'inf2.xlarge', LocationType: 'availability-zone', Location })),
    });

    const report = await runPreflight(sageMakerTarget, clients);

    expect(check(report.checks, 'instance-offering')).toMatchObject({ status: 'fail', detail: expect.stringMatching(detail) });
  });

  test('GIVEN a digest that does not exist in another account THEN image fails pointing at the DLC list', async () => {
    ecr.on(DescribeImagesCommand).rejects(awsError('ImageNotFoundException', 'The image with imageId ... does not exist'));

    const report = await runPreflight(sageMakerTarget, clients);

    expect(check(report.checks, 'image')).toMatchObject({
      status: 'fail',
      detail: `pytorch-inference-neuronx@sha256:${'a'.repeat(64)} does not exist in account 763104351884 (us-east-1)`,
      fix: expect.stringMatching(/available_images\.md/),
    });
  });

  test('GIVEN a cross-account image the credentials can neither describe nor pull THEN image fails naming both actions', async () => {
    ecr.on(DescribeImagesCommand).rejects(awsError('AccessDeniedException', 'denied'));
    ecr.on(BatchGetImageCommand).rejects(awsError('AccessDeniedException', 'denied'));

    const report = await runPreflight({ ...sageMakerTarget, image: OWN.replace('123456789012', '210987654321') }, clients);

    expect(check(report.checks, 'image')).toMatchObject({
      status: 'fail',
      detail: expect.stringMatching(/^ECR DescribeImages and BatchGetImage 210987654321\/my-model in us-east-1 failed: access denied/),
      fix: 'allow ecr:DescribeImages or ecr:BatchGetImage on the repository for the credentials preflight runs with',
    });
  });

  test('GIVEN an image pinned by tag THEN image fails: not a digest', async () => {
    const report = await runPreflight({ ...sageMakerTarget, image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/my-model:latest' }, clients);

    expect(check(report.checks, 'image')).toMatchObject({ status: 'fail', detail: expect.stringMatching(/pinned by tag, not by digest/) });
    expect(ecr).not.toHaveReceivedAnyCommand();
  });

  test('GIVEN an empty model prefix, or a missing object THEN model-data fails', async () => {
    s3.on(ListObjectsV2Command).resolves({ KeyCount: 0 });
    s3.on(HeadObjectCommand).rejects(awsError('NotFound', 'UnknownError', 404));

    const prefix = await runPreflight(sageMakerTarget, clients);
    const object = await runPreflight({ ...sageMakerTarget, modelDataUri: 's3://models/missing.tar.gz' }, clients);

    expect(check(prefix.checks, 'model-data')).toMatchObject({ status: 'fail', detail: 's3://models/bert/ holds no object: the endpoint would start with no model' });
    expect(check(object.checks, 'model-data')).toMatchObject({ status: 'fail', detail: 's3://models/missing.tar.gz does not exist' });
  });

  test('GIVEN an endpoint of that name THEN endpoint-name fails with delete and skip as the fixes', async () => {
    sageMaker.on(DescribeEndpointCommand).resolves({ EndpointName: 'bert-prod', EndpointStatus: 'InService' });

    const report = await runPreflight(sageMakerTarget, clients);

    expect(check(report.checks, 'endpoint-name')).toMatchObject({
      status: 'fail',
      detail: 'an endpoint named bert-prod already exists in us-east-1 (InService)',
      fix: expect.stringMatching(/delete-endpoint --endpoint-name bert-prod .*--skip endpoint-name/),
    });
  });

  test('GIVEN no credentials THEN every check fails naming the credentials and the fix, none throws', async () => {
    const none = Object.assign(new Error('Could not load credentials from any providers'), { name: 'CredentialsProviderError' });
    // One by one: the mocks' types do not unify into an array element with a callable onAnyCommand.
    ec2.reset().onAnyCommand().rejects(none);
    quotas.reset().onAnyCommand().rejects(none);
    sageMaker.reset().onAnyCommand().rejects(none);
    s3.reset().onAnyCommand().rejects(none);
    ecr.reset().onAnyCommand().rejects(none);

    const report = await runPreflight(sageMakerTarget, clients);

    // (capacity-block applies only to plans priced at a Capacity Block rate, instance-pools only to a variant with
    // fallback pools: both skipped here, with no AWS call)
    for (const c of report.checks.filter((r) => r.id !== 'capacity-block' && r.id !== 'instance-pools')) {
      expect(c).toMatchObject({ status: 'fail', detail: expect.stringMatching(/failed: no AWS credentials found \(CredentialsProviderError/), fix: expect.stringMatching(/^give the AWS SDK credentials/) });
    }
  });

  test('GIVEN no network path to AWS THEN the failed check says so instead of blaming permissions', async () => {
    ec2.on(DescribeInstanceTypeOfferingsCommand).rejects(Object.assign(new Error('getaddrinfo ENOTFOUND ec2.us-east-1.amazonaws.com'), { code: 'ENOTFOUND' }));

    const report = await runPreflight(sageMakerTarget, clients);

    expect(check(report.checks, 'instance-offering')).toMatchObject({
      status: 'fail',
      detail: 'EC2 DescribeInstanceTypeOfferings in us-east-1 failed: Error: getaddrinfo ENOTFOUND ec2.us-east-1.amazonaws.com',
      fix: expect.stringMatching(/^no network path to the AWS endpoint/),
    });
  });

  test('GIVEN --skip THEN the skipped checks make no call', async () => {
    const report = await runPreflight(sageMakerTarget, clients, { skip: ['endpoint-name', 'image'] });

    expect(check(report.checks, 'endpoint-name')).toEqual({ id: 'endpoint-name', status: 'skip', detail: 'skipped with --skip' });
    expect(sageMaker).not.toHaveReceivedAnyCommand();
    expect(ecr).not.toHaveReceivedAnyCommand();
  });
});

describe('preflight of an ECS service checks the zones its subnets launch in', () => {
  const ecsTarget: PreflightTarget = { ...sageMakerTarget, hosting: 'ec2', instanceType: 'inf2.xlarge', endpointName: undefined, modelDataUri: undefined };

  test('GIVEN a CDK VPC whose first Fn::GetAZs zone does not offer the type THEN instance-offering fails naming that zone', async () => {
    // GIVEN inf2.xlarge in us-east-1a, b and c (healthyAccount), and a region whose zones sort as a, b, c, d, e
    ec2.on(DescribeAvailabilityZonesCommand).resolves({ AvailabilityZones: ['us-east-1e', 'us-east-1d', 'us-east-1c', 'us-east-1b', 'us-east-1a']
      .map((ZoneName) => ({ ZoneName })) });
    // WHEN the subnets are the 3rd and 5th zones
    const report = await runPreflight({ ...ecsTarget, subnets: [{ getAzsIndex: 2 }, { getAzsIndex: 4 }] }, clients);
    // THEN
    expect(check(report.checks, 'instance-offering')).toEqual({
      id: 'instance-offering',
      status: 'fail',
      detail: 'inf2.xlarge is offered in 3 Availability Zones of us-east-1 (us-east-1a, us-east-1b, us-east-1c), but not in us-east-1e, '
        + 'where the Auto Scaling group has a subnet: no instance launches there',
      fix: 'put the service\'s subnets in zones that offer inf2.xlarge (for a CDK VPC, its availabilityZones prop: us-east-1a, us-east-1b, us-east-1c)',
    });
  });

  test('GIVEN existing subnets and written zones in offered zones THEN it passes, reading each subnet\'s zone', async () => {
    ec2.on(DescribeSubnetsCommand).resolves({ Subnets: [{ SubnetId: 'subnet-0a', AvailabilityZone: 'us-east-1b' }] });
    const report = await runPreflight({ ...ecsTarget, subnets: [{ subnetId: 'subnet-0a' }, { zone: 'us-east-1c' }] }, clients);
    expect(check(report.checks, 'instance-offering')).toMatchObject({ status: 'pass', detail: expect.stringMatching(/every zone of the service's subnets among them$/) });
    expect(ec2).toHaveReceivedCommandWith(DescribeSubnetsCommand, { SubnetIds: ['subnet-0a'] });
    expect(ec2).not.toHaveReceivedCommand(DescribeAvailabilityZonesCommand);
  });

  test('GIVEN no permission to read subnets THEN the check fails naming the actions', async () => {
    ec2.on(DescribeSubnetsCommand).rejects(awsError('UnauthorizedOperation', 'You are not authorized to perform this operation.', 403));
    const result = check((await runPreflight({ ...ecsTarget, subnets: [{ subnetId: 'subnet-0a' }] }, clients)).checks, 'instance-offering');
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('DescribeSubnets');
  });
});

describe('parseEcrImage reads ECR image URIs', () => {
  test.each([
    [DLC, { registryId: '763104351884', region: 'us-east-1', repositoryName: 'pytorch-inference-neuronx', digest: `sha256:${'a'.repeat(64)}` }],
    ['123456789012.dkr.ecr.cn-north-1.amazonaws.com.cn/a/b:1.0', { registryId: '123456789012', region: 'cn-north-1', repositoryName: 'a/b', tag: '1.0' }],
    ['public.ecr.aws/neuron/pytorch@sha256:' + 'c'.repeat(64), undefined],
  ])('GIVEN %s THEN %j', (uri, ref) => {
    expect(parseEcrImage(uri)).toEqual(ref === undefined ? undefined : expect.objectContaining(ref));
  });
});

describe('a plan priced at a Capacity Block rate needs Capacity Blocks bought ahead', () => {
  const trn2: PreflightTarget = {
    source: 'plan.json', region: 'us-east-2', hosting: 'ec2', instanceType: 'trn2.48xlarge', vcpus: 192,
    pricing: 'capacity-block', instanceCount: 2, maxInstanceCount: 2,
  };

  test('GIVEN one active trn2.48xlarge Capacity Block of 1 instance for a plan of 2 THEN the check fails with the commands that buy one', async () => {
    ec2.on(DescribeCapacityReservationsCommand).resolves({
      CapacityReservations: [
        { CapacityReservationId: 'cr-0a1', InstanceType: 'trn2.48xlarge', ReservationType: 'capacity-block', TotalInstanceCount: 1, AvailabilityZone: 'us-east-2a' },
        { CapacityReservationId: 'cr-odcr', InstanceType: 'trn2.48xlarge', ReservationType: 'default', TotalInstanceCount: 4, AvailabilityZone: 'us-east-2a' },
      ],
    });
    const report = await runPreflight(trn2, clients, { skip: ['instance-offering', 'instance-quota', 'image', 'model-data', 'endpoint-name'] });
    expect(check(report.checks, 'capacity-block')).toMatchObject({
      status: 'fail',
      detail: 'the plan runs 2 trn2.48xlarge at a Capacity Block rate, and the account holds 1 in active or scheduled Capacity Blocks in us-east-2 (cr-0a1)',
      fix: expect.stringContaining('aws ec2 describe-capacity-block-offerings --instance-type trn2.48xlarge --instance-count 2'),
    });
    expect(ec2).toHaveReceivedCommandWith(DescribeCapacityReservationsCommand, {
      Filters: [{ Name: 'instance-type', Values: ['trn2.48xlarge'] }, { Name: 'state', Values: ['active', 'scheduled'] }],
    });
  });

  test('GIVEN trn2.48xlarge offered in one zone THEN a Capacity Block plan passes the offering check (a block is one zone), saying so', async () => {
    ec2.on(DescribeInstanceTypeOfferingsCommand).resolves({
      InstanceTypeOfferings: [{ InstanceType: 'trn2.48xlarge', LocationType: 'availability-zone', Location: 'us-east-2a' }],
    });
    const report = await runPreflight(trn2, clients, { skip: ['instance-quota', 'capacity-block', 'image', 'model-data', 'endpoint-name'] });
    expect(check(report.checks, 'instance-offering')).toMatchObject({ status: 'pass', detail: expect.stringContaining('where a Capacity Block delivers it') });
    const onDemand = await runPreflight({ ...trn2, pricing: 'on-demand' }, clients, { skip: ['instance-quota', 'capacity-block', 'image', 'model-data', 'endpoint-name'] });
    expect(check(onDemand.checks, 'instance-offering')).toMatchObject({ status: 'fail', detail: expect.stringContaining('only one Availability Zone') });
  });

  test('GIVEN Capacity Blocks holding the plan THEN the check passes naming them', async () => {
    ec2.on(DescribeCapacityReservationsCommand).resolves({
      CapacityReservations: [{ CapacityReservationId: 'cr-0b2', InstanceType: 'trn2.48xlarge', ReservationType: 'capacity-block', TotalInstanceCount: 2, AvailabilityZone: 'us-east-2b' }],
    });
    const report = await runPreflight(trn2, clients, { skip: ['instance-offering', 'instance-quota', 'image', 'model-data', 'endpoint-name'] });
    expect(check(report.checks, 'capacity-block')).toEqual({
      id: 'capacity-block', status: 'pass', detail: "2 trn2.48xlarge in Capacity Blocks cr-0b2 (us-east-2b) hold the plan's 2",
    });
  });
});

describe('preflight of a variant with fallback instance pools', () => {
  const pooled: PreflightTarget = {
    ...sageMakerTarget,
    pools: [
      { priority: 2, instanceType: 'ml.trn1.2xlarge', vcpus: 8, instanceCount: 2, maxInstanceCount: 3 },
      { priority: 3, instanceType: 'ml.inf2.8xlarge', vcpus: 32, instanceCount: 2, maxInstanceCount: 3 },
    ],
  };

  test('GIVEN pool 2 offered with quota and pool 3 offered with quota 0 THEN instance-pools fails naming pool 3, what it lacks and the fix', async () => {
    // GIVEN trn1.2xlarge offered in two zones with a quota of 6, and inf2.8xlarge with the quota 0 of a new account
    ec2.on(DescribeInstanceTypeOfferingsCommand).callsFake((input: { Filters: { Values: string[] }[] }) => ({
      InstanceTypeOfferings: ['us-east-1a', 'us-east-1b'].map((Location) => ({ InstanceType: input.Filters[0].Values[0], LocationType: 'availability-zone', Location })),
    }));
    quotas.on(ListServiceQuotasCommand, { ServiceCode: 'sagemaker' }).resolves({
      Quotas: [
        { QuotaName: 'ml.inf2.xlarge for endpoint usage', QuotaCode: 'L-INF2XL', Value: 6 },
        { QuotaName: 'ml.trn1.2xlarge for endpoint usage', QuotaCode: 'L-TRN1', Value: 6 },
        { QuotaName: 'ml.inf2.8xlarge for endpoint usage', QuotaCode: 'L-INF28XL', Value: 0 },
      ],
    });
    // WHEN preflight runs
    const result = check((await runPreflight(pooled, clients)).checks, 'instance-pools');
    // THEN pool 2 can be provisioned now and pool 3 cannot, each with its offering and quota
    expect(result.status).toBe('fail');
    expect(result.detail).toMatch(/^pool 2 \(ml\.trn1\.2xlarge\): can be provisioned now: trn1\.2xlarge is offered in 2 Availability Zones/);
    expect(result.detail).toContain('pool 3 (ml.inf2.8xlarge): cannot be provisioned: inf2.8xlarge is offered in 2 Availability Zones');
    expect(result.detail).toContain('FAIL "ml.inf2.8xlarge for endpoint usage" (L-INF28XL) is 0 in us-east-1; a blue/green update at the ceiling of 3 instances (2 x 3) needs 6');
    expect(result.fix).toMatch(/^pool 3: request an increase to at least 6: `aws service-quotas request-service-quota-increase --service-code sagemaker --quota-code L-INF28XL/);
    expect(quotas).toHaveReceivedCommandWith(ListServiceQuotasCommand, { ServiceCode: 'sagemaker' });
  });
});
