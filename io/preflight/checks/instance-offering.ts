import {
  DescribeAvailabilityZonesCommand,
  DescribeSubnetsCommand,
  paginateDescribeInstanceTypeOfferings,
  type _InstanceType,
  type EC2Client,
} from '@aws-sdk/client-ec2';
import { ec2Name } from '../../../lib/catalog/catalog';
import { awsFailure } from './aws-failure';
import type { Check, SubnetPlacement } from '../types';

/** Fewer Availability Zones than this leave no redundancy: one AZ outage takes every instance down. */
const MIN_ZONES = 2;

/**
 * The instance type is offered in the region, in at least two Availability Zones, and, for an ECS service whose
 * template says where its Auto Scaling group launches, in every zone of its subnets: a subnet in a zone without the
 * type never gets an instance, and the group's launches there fail.
 *
 * EC2 `DescribeInstanceTypeOfferings` with `LocationType: availability-zone`, filtered on the instance type (its EC2
 * name, also for SageMaker hosting, whose ml. instances run on the same hardware).
 *
 * @see https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeInstanceTypeOfferings.html
 * @see https://docs.aws.amazon.com/AWSCloudFormation/latest/TemplateReference/intrinsic-function-reference-getavailabilityzones.html
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
  if (list.length < MIN_ZONES && target.pricing === 'capacity-block') {
    // A Capacity Block is delivered in one zone anyway (EC2 User Guide, "Work with Capacity Blocks"): one zone is the plan.
    return {
      id: 'instance-offering',
      status: 'pass',
      detail: `${type} is offered in one Availability Zone of ${target.region} (${list[0]}), where a Capacity Block delivers it; `
        + 'one zone outage stops every instance',
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
  const offered = `${type} is offered in ${list.length} Availability Zones of ${target.region} (${list.join(', ')})`;
  if (target.subnets === undefined || target.subnets.length === 0) {
    return { id: 'instance-offering', status: 'pass', detail: offered };
  }
  let subnetZones: string[];
  try {
    subnetZones = await zonesOf(target.subnets, clients.ec2);
  } catch (e) {
    return awsFailure('instance-offering', `EC2 DescribeAvailabilityZones and DescribeSubnets in ${target.region}`, e,
      'ec2:DescribeAvailabilityZones and ec2:DescribeSubnets');
  }
  const without = [...new Set(subnetZones.filter((z) => !zones.has(z)))].sort();
  if (without.length > 0) {
    return {
      id: 'instance-offering',
      status: 'fail',
      detail: `${offered}, but not in ${without.join(', ')}, where the Auto Scaling group has a subnet: no instance launches there`,
      fix: `put the service's subnets in zones that offer ${type} (for a CDK VPC, its availabilityZones prop: ${list.join(', ')})`,
    };
  }
  return { id: 'instance-offering', status: 'pass', detail: `${offered}, every zone of the service's subnets among them` };
};

/**
 * The zone of each placement. `Fn::GetAZs` lists the region's zones in alphabetical order (CloudFormation template
 * reference, "Fn::GetAZs"); in an account whose default VPC lacks a default subnet in some zone it lists only the
 * zones that have one, which this reading of every available zone does not model.
 */
async function zonesOf(placements: readonly SubnetPlacement[], ec2: EC2Client): Promise<string[]> {
  const zones: string[] = [];
  let all: string[] | undefined;
  const ids = placements.flatMap((p) => ('subnetId' in p ? [p.subnetId] : []));
  const subnetZones = new Map<string, string>();
  if (ids.length > 0) {
    const found = await ec2.send(new DescribeSubnetsCommand({ SubnetIds: ids }));
    for (const subnet of found.Subnets ?? []) {
      if (subnet.SubnetId !== undefined && subnet.AvailabilityZone !== undefined) {
        subnetZones.set(subnet.SubnetId, subnet.AvailabilityZone);
      }
    }
  }
  for (const p of placements) {
    if ('zone' in p) {
      zones.push(p.zone);
    } else if ('subnetId' in p) {
      const zone = subnetZones.get(p.subnetId);
      if (zone !== undefined) zones.push(zone);
    } else {
      all ??= ((await ec2.send(new DescribeAvailabilityZonesCommand({
        Filters: [{ Name: 'zone-type', Values: ['availability-zone'] }, { Name: 'state', Values: ['available'] }],
      }))).AvailabilityZones ?? []).flatMap((z) => (z.ZoneName !== undefined ? [z.ZoneName] : [])).sort();
      if (all[p.getAzsIndex] !== undefined) zones.push(all[p.getAzsIndex]);
    }
  }
  return zones;
}
