import { paginateDescribeCapacityReservations, type EC2Client } from '@aws-sdk/client-ec2';
import { ec2Name } from '../../../lib/catalog/catalog';
import { awsFailure } from './aws-failure';
import type { Check } from '../types';

/**
 * A plan priced at an EC2 Capacity Block rate (how AWS sells some Trainium types: `trn2.48xlarge` in US East (Ohio),
 * Trn2 UltraServers) deploys only into capacity bought ahead: the account's active or scheduled Capacity Blocks of the
 * instance type in the region must hold the planned instances. Capacity Blocks are targeted Capacity Reservations of
 * `ReservationType` `capacity-block`, in one Availability Zone; instances launched outside one are On-Demand (where
 * the type is offered that way at all).
 *
 * @see https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/capacity-blocks-using.html
 * @see https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_DescribeCapacityReservations.html
 */
export const capacityBlock: Check = async (target, clients) => {
  if (target.pricing !== 'capacity-block') {
    return { id: 'capacity-block', status: 'skip', detail: `the plan is priced ${target.pricing ?? 'on-demand'}, not at a Capacity Block rate` };
  }
  const type = ec2Name(target.instanceType);
  let held: { count: number; zones: Set<string>; ids: string[] };
  try {
    held = await capacityBlocks(clients.ec2, type);
  } catch (e) {
    return awsFailure('capacity-block', `EC2 DescribeCapacityReservations in ${target.region}`, e, 'ec2:DescribeCapacityReservations');
  }
  const needed = target.instanceCount;
  const offerings = `\`aws ec2 describe-capacity-block-offerings --instance-type ${type} --instance-count ${needed} `
    + `--capacity-duration-hours 24 --region ${target.region}\`, then \`aws ec2 purchase-capacity-block --capacity-block-offering-id <id> `
    + '--instance-platform Linux/UNIX`';
  if (held.count < needed) {
    return {
      id: 'capacity-block',
      status: 'fail',
      detail: `the plan runs ${needed} ${type} at a Capacity Block rate, and the account holds ${held.count} in active or scheduled `
        + `Capacity Blocks in ${target.region}${held.ids.length > 0 ? ` (${held.ids.join(', ')})` : ''}`,
      fix: `buy a Capacity Block for ${needed - held.count} more before deploying: ${offerings}; the deploy must target its reservation`,
    };
  }
  return {
    id: 'capacity-block',
    status: 'pass',
    detail: `${held.count} ${type} in Capacity Blocks ${held.ids.join(', ')} (${[...held.zones].sort().join(', ')}) hold the plan's ${needed}`,
  };
};

async function capacityBlocks(ec2: EC2Client, type: string): Promise<{ count: number; zones: Set<string>; ids: string[] }> {
  const held = { count: 0, zones: new Set<string>(), ids: [] as string[] };
  const pages = paginateDescribeCapacityReservations({ client: ec2 }, {
    Filters: [{ Name: 'instance-type', Values: [type] }, { Name: 'state', Values: ['active', 'scheduled'] }],
  });
  for await (const page of pages) {
    for (const reservation of page.CapacityReservations ?? []) {
      if (reservation.ReservationType !== 'capacity-block' || reservation.InstanceType !== type) continue;
      held.count += reservation.TotalInstanceCount ?? 0;
      if (reservation.AvailabilityZone) held.zones.add(reservation.AvailabilityZone);
      held.ids.push(reservation.CapacityReservationId ?? '(unnamed)');
    }
  }
  return held;
}
