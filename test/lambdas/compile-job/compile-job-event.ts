/** What the compile job's handler tests share: the provider's event and the mocked control-plane clients. */
import { EC2Client } from '@aws-sdk/client-ec2';
import { S3Client } from '@aws-sdk/client-s3';
import { SSMClient } from '@aws-sdk/client-ssm';
import { mockClient } from 'aws-sdk-client-mock';

/**
 * The event the custom-resource provider hands `onEvent` and `isComplete` for the job `config`, with the `Data` an
 * earlier step returned (typed `never` so that it fits either handler's event type).
 */
export function compileJobEvent(type: 'Create' | 'Update' | 'Delete', config: { readonly hash: string }, data?: Record<string, string>): never {
  return {
    RequestType: type, ServiceToken: 'token', ResponseURL: 'https://example.invalid', StackId: 'stack', RequestId: 'req',
    LogicalResourceId: 'Compile', ResourceType: 'Custom::NeuronCompileJob', PhysicalResourceId: `compile-${config.hash}`,
    ResourceProperties: { ServiceToken: 'token', Config: JSON.stringify(config) }, OldResourceProperties: {},
    ...(data ? { Data: data } : {}),
  } as never;
}

/** The EC2, S3 and SSM clients of the compile job, mocked for the whole test file. */
export function mockCompileJobClients() {
  return { ec2: mockClient(EC2Client), s3: mockClient(S3Client), ssm: mockClient(SSMClient) };
}
