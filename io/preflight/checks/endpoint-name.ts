import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { awsFailure } from './aws-failure';
import type { Check } from '../types';

/**
 * No SageMaker endpoint has the name yet: CloudFormation cannot create an endpoint whose name is taken.
 *
 * `DescribeEndpoint` answers `ValidationException` "Could not find endpoint" for a free name.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_DescribeEndpoint.html
 */
export const endpointName: Check = async (target, clients) => {
  if (target.hosting !== 'sagemaker') {
    return { id: 'endpoint-name', status: 'skip', detail: 'EC2 hosting has no SageMaker endpoint' };
  }
  const name = target.endpointName;
  if (name === undefined) {
    const why = target.unknown?.endpointName ?? 'no endpoint name given';
    return { id: 'endpoint-name', status: 'skip', detail: why, fix: why.includes('--endpoint-name') ? 'add --endpoint-name <name>' : undefined };
  }
  try {
    const found = await clients.sageMaker.send(new DescribeEndpointCommand({ EndpointName: name }));
    return {
      id: 'endpoint-name',
      status: 'fail',
      detail: `an endpoint named ${name} already exists in ${target.region} (${found.EndpointStatus ?? 'status unknown'})`,
      fix: `choose another name, or delete it (\`aws sagemaker delete-endpoint --endpoint-name ${name} --region ${target.region}\`); if this stack already deployed it, this update is expected: --skip endpoint-name`,
    };
  } catch (e) {
    const error = e as { name?: string; message?: string };
    if (error.name === 'ValidationException' && /could not find endpoint/i.test(error.message ?? '')) {
      return { id: 'endpoint-name', status: 'pass', detail: `no endpoint named ${name} in ${target.region}` };
    }
    return awsFailure('endpoint-name', `SageMaker DescribeEndpoint ${name} in ${target.region}`, e, 'sagemaker:DescribeEndpoint');
  }
};
