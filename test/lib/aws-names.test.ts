import {
  bucketNameProblem, endpointNameProblem, imageUriProblem, instanceProfileArnProblem, s3UriProblem, securityGroupIdProblem, subnetIdProblem,
} from '../../lib/aws-names';

describe('AWS names are checked offline against the services\' documented syntax', () => {
  test.each(['a', 'my-model-prod', 'A1-b--2', 'x'.repeat(63)])('endpoint name %s is accepted', (name) => {
    expect(endpointNameProblem(name)).toBeUndefined();
  });
  test.each(['', 'bad name!', '-leading', 'trailing-', 'under_score', 'x'.repeat(64)])('endpoint name "%s" is refused', (name) => {
    expect(endpointNameProblem(name)).toMatch(/not a SageMaker endpoint name/);
  });
  test.each(['my-models', 'a.b.c', 'abc'])('bucket %s is accepted', (name) => expect(bucketNameProblem(name)).toBeUndefined());
  test.each(['Not A Bucket!', 'ab', 'a..b', '192.168.1.1', 'xn--abc', 'abc-s3alias', '-abc'])('bucket %s is refused', (name) => {
    expect(bucketNameProblem(name)).toBeDefined();
  });
  test('an s3 URI needs the scheme and a valid bucket', () => {
    expect(s3UriProblem('s3://my-models/bert/', 'x')).toBeUndefined();
    expect(s3UriProblem('http://example.com/m.tar.gz', 'x')).toMatch(/not an s3:\/\/bucket\/key URI/);
    expect(s3UriProblem('s3://Bad_Bucket/m', 'x')).toMatch(/bucket 'Bad_Bucket'/);
  });
  test('subnet and security group IDs have 8 or 17 hex digits', () => {
    expect(subnetIdProblem('subnet-0a1b2c3d')).toBeUndefined();
    expect(subnetIdProblem('subnet-0123456789abcdef0')).toBeUndefined();
    expect(subnetIdProblem('subnet-a')).toBeDefined();
    expect(securityGroupIdProblem('sg-0123456789abcdef0')).toBeUndefined();
    expect(securityGroupIdProblem('subnet-0a1b2c3d')).toBeDefined();
  });
  test('an instance profile ARN names the instance-profile resource', () => {
    expect(instanceProfileArnProblem('arn:aws:iam::123456789012:instance-profile/path/c')).toBeUndefined();
    expect(instanceProfileArnProblem('arn:aws:iam::123456789012:role/c')).toBeDefined();
    expect(instanceProfileArnProblem('not-an-arn')).toBeDefined();
  });
  test('an image is an ECR URI for SageMaker, any image reference for EC2 hosting', () => {
    const ecr = `123456789012.dkr.ecr.us-east-1.amazonaws.com/my-model@sha256:${'a'.repeat(64)}`;
    expect(imageUriProblem(ecr, true)).toBeUndefined();
    expect(imageUriProblem('nginx:latest', true)).toMatch(/SageMaker pulls images only from ECR/);
    expect(imageUriProblem('nginx:latest', false)).toBeUndefined();
    expect(imageUriProblem('Not An Image!', false)).toMatch(/not an image reference/);
  });
});
