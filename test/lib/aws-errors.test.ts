import { AwsCallError, awsProblemOf, CREDENTIALS_FIX, describeAwsError, isCredentialsError } from '../../lib/aws-errors';

/** An error shaped like the SDK's: a name, and `$metadata` when a service answered. */
function sdkError(name: string, message: string, status?: number): Error {
  const e = new Error(message);
  e.name = name;
  if (status !== undefined) {
    Object.assign(e, { $metadata: { httpStatusCode: status } });
  }
  return e;
}

describe('AWS errors are explained in the user’s terms', () => {
  test('GIVEN the credential chain found nothing WHEN wrapped by a call THEN it is a credentials problem with the fix', () => {
    // GIVEN the error the SDK throws with no credentials anywhere, wrapped with the call that failed
    const wrapped = new AwsCallError(
      'EC2 DescribeInstanceTypeOfferings in us-east-1',
      sdkError('CredentialsProviderError', 'Could not load credentials from any providers'),
    );

    // THEN the cause is still recognised through the wrapper
    expect(awsProblemOf(wrapped)).toMatchObject({ kind: 'credentials', name: 'CredentialsProviderError', fix: CREDENTIALS_FIX });
    expect(isCredentialsError(wrapped)).toBe(true);
    expect(describeAwsError(wrapped)).toBe(
      'EC2 DescribeInstanceTypeOfferings in us-east-1 failed: no AWS credentials found ' +
        `(CredentialsProviderError: Could not load credentials from any providers); ${CREDENTIALS_FIX}`,
    );
  });

  test.each([
    ['ExpiredTokenException', 'The security token included in the request is expired', 400],
    ['UnrecognizedClientException', 'The security token included in the request is invalid.', 400],
    ['AuthFailure', 'AWS was not able to validate the provided access credentials', 401],
  ])('GIVEN a service rejecting the credentials (%s) THEN it is a credentials problem', (name, message, status) => {
    expect(awsProblemOf(sdkError(name, message, status))).toMatchObject({ kind: 'credentials', name });
    expect(describeAwsError(sdkError(name, message, status))).toMatch(/^AWS rejected the credentials \(.+\); the AWS credentials are expired or not valid/);
  });

  test('GIVEN a denied action THEN it is access-denied, naming the message', () => {
    const denied = sdkError('AccessDeniedException', 'User: arn:aws:iam::1:user/u is not authorized to perform: sagemaker:DescribeEndpoint', 400);
    expect(describeAwsError(denied)).toMatch(/^access denied \(AccessDeniedException: .*sagemaker:DescribeEndpoint\); the credentials work but lack/);
  });

  test('GIVEN no region anywhere THEN it says to set one', () => {
    expect(awsProblemOf(new Error('Region is missing'))).toMatchObject({ kind: 'region' });
  });

  test('GIVEN a call that failed for a reason not from AWS THEN the call and the cause are named once', () => {
    const offline = new AwsCallError('S3 HeadObject s3://b/k', Object.assign(new Error('getaddrinfo ENOTFOUND b.s3.amazonaws.com'), { code: 'ENOTFOUND' }));
    expect(describeAwsError(offline)).toBe('S3 HeadObject s3://b/k failed: Error: getaddrinfo ENOTFOUND b.s3.amazonaws.com');
  });

  test('GIVEN an error not from AWS THEN it is not explained as one', () => {
    expect(awsProblemOf(new TypeError('x is undefined'))).toBeUndefined();
    expect(isCredentialsError(new Error('boom'))).toBe(false);
  });
});
