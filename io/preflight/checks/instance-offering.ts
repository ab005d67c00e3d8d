import { paginateDescribeInstanceTypeOfferings, type _InstanceType } from '@aws-sdk/client-ec2';
import { ec2Name } from '../../../lib/catalog/catalog';
import { awsFailure } from './aws-failure';
import type { Check } from '../types';

/** Fewer Availability Zones than this leave no redundancy: one AZ outage takes every instance down. */
const MIN_ZONES = 2;

/**
 * The instance type is offered in the region, in at least two Availability Zones.
 *
 * EC2 `DescribeInstanceTypeOfferings` with `LocationType: availability-zone`, filtered on the instance type (its EC2
 * name, also for SageMaker hosting, whose ml. instances run on the same hardware).
 *
 * @see https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html
 */
export const instanceOffering: Check = async (target, clients) => {
  const type = ec2Name(target.instanceType);
  const zones = new Set<string>();
  try {
    const pages = paginateDescribeInstanceTypeOfferings(
      { client: clients.ec2 },
      { LocationType: 'availability-zone', Filters: [{ Name: 'instance-type', Values: [type as _InstanceType] }] },
    );
    for await (const page of pages) {
      for (const offering of page.InstanceTypeOfferings ?? []) {
        if (offering.InstanceType === type && offering.Location !== undefined) {
          zones.add(offering.Location);
        }
      }
    }
  } catch (e) {
    return awsFailure('instance-offering', `EC2 DescribeInstanceTypeOfferings in ${target.region}`, e, 'ec2:DescribeInstanceTypeOfferings');
  }
  const list = [...zones].sort();
  if (list.length === 0) {
    return {
      id: 'instance-offering',
      status: 'fail',
      detail: `${type} is not offered in ${target.region}`,
      fix: `plan for a region that offers it (\`aws ec2 describe-instance-type-offerings --filters Name=instance-type,Values=${type} --region <r>\`) or another instance type`,
    };
  }
  if (list.length < MIN_ZONES) {
    return {
      id: 'instance-offering',
      status: 'fail',
      detail: `${type} is offered in only one Availability Zone of ${target.region} (${list[0]}): one zone outage stops every instance`,
      fix: 'choose a region or instance type offered in at least two zones',
    };
  }
  return {
    id: 'instance-offering',
    status: 'pass',
    detail: `${type} is offered in ${list.length} Availability Zones of ${target.region} (${list.join(', ')})`,
  };
};
