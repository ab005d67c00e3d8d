import {
  paginateListAWSDefaultServiceQuotas,
  paginateListServiceQuotas,
  type ServiceQuota,
  type ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import { ec2Name, sageMakerName } from '../../../lib/catalog/catalog';
import { awsFailure } from './aws-failure';
import type { Check, PreflightTarget } from '../types';

/**
 * The EC2 On-Demand vCPU quotas of the Neuron families: Inf1 and Inf2 share the Inf quota, every Trainium family
 * the Trn quota. Matched by code, and by name should AWS renumber.
 *
 * @see https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-quotas.html
 * @see https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ListServiceQuotas.html
 */
export const EC2_VCPU_QUOTAS = {
  inf: { code: 'L-1945791B', name: 'Running On-Demand Inf instances' },
  trn: { code: 'L-2C3B7624', name: 'Running On-Demand Trn instances' },
} as const;

/**
 * The quota for the planned instances, read with Service Quotas in the target's region.
 *
 * - SageMaker: `<ml type> for endpoint usage` (service code `sagemaker`), an instance count per account and region.
 *   A blue/green update runs a new fleet beside the old one, so an endpoint at its ceiling needs twice the maximum
 *   instance count.
 * - EC2: the `Running On-Demand Inf instances` or `Trn instances` quota (service code `ec2`), in vCPUs: the maximum
 *   instance count times the vCPUs of one instance.
 *
 * `ListServiceQuotas` gives the applied value; a quota never changed may be missing there, so the AWS default
 * (`ListAWSDefaultServiceQuotas`) is read next. New accounts often have 0 for Neuron instances.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/regions-quotas.html
 * @see https://docs.aws.amazon.com/sagemaker/latest/dg/deployment-guardrails-blue-green.html
 */
export const instanceQuota: Check = async (target, clients) => {
  const wanted = quotaWanted(target);
  if (wanted === undefined) {
    return {
      id: 'instance-quota',
      status: 'skip',
      detail: `no quota known for ${target.instanceType} on ${target.hosting}, or its vCPUs are unknown`,
      fix: 'check the quota in the Service Quotas console',
    };
  }
  let quota: ServiceQuota | undefined;
  try {
    quota = await findQuota(clients.serviceQuotas, wanted.serviceCode, wanted.matches);
  } catch (e) {
    return awsFailure('instance-quota', `Service Quotas for ${wanted.serviceCode} in ${target.region}`, e, 'servicequotas:ListServiceQuotas and servicequotas:ListAWSDefaultServiceQuotas');
  }
  if (quota?.Value === undefined) {
    return {
      id: 'instance-quota',
      status: 'fail',
      detail: `Service Quotas lists no "${wanted.name}" quota for ${wanted.serviceCode} in ${target.region}: ${target.instanceType} is likely not available there`,
      fix: 'plan for a region where the instance type is offered for this hosting',
    };
  }
  const limit = quota.Value;
  const named = `"${quota.QuotaName ?? wanted.name}" (${quota.QuotaCode ?? wanted.serviceCode}) is ${limit}${wanted.unit}`;
  if (limit < wanted.needed) {
    return {
      id: 'instance-quota',
      status: 'fail',
      detail: `${named} in ${target.region}; ${wanted.why} needs ${wanted.needed}${wanted.unit}`,
      fix:
        `request an increase to at least ${wanted.needed}: \`aws service-quotas request-service-quota-increase --service-code ${wanted.serviceCode} ` +
        `--quota-code ${quota.QuotaCode ?? '<code>'} --desired-value ${wanted.needed} --region ${target.region}\` (other endpoints or instances in the account count too)`,
    };
  }
  return {
    id: 'instance-quota',
    status: 'pass',
    detail: `${named} in ${target.region}; ${wanted.why} needs ${wanted.needed}${wanted.unit} (other usage in the account counts too)`,
  };
};

interface QuotaWanted {
  readonly serviceCode: 'sagemaker' | 'ec2';
  readonly name: string;
  readonly matches: (quota: ServiceQuota) => boolean;
  readonly needed: number;
  readonly unit: string;
  readonly why: string;
}

function quotaWanted(target: PreflightTarget): QuotaWanted | undefined {
  if (target.hosting === 'sagemaker') {
    const name = `${sageMakerName(target.instanceType)} for endpoint usage`;
    const needed = 2 * target.maxInstanceCount;
    return {
      serviceCode: 'sagemaker',
      name,
      matches: (q) => q.QuotaName === name,
      needed,
      unit: '',
      why: `a blue/green update at the ceiling of ${target.maxInstanceCount} instance${target.maxInstanceCount === 1 ? '' : 's'} (2 x ${target.maxInstanceCount})`,
    };
  }
  const family = ec2Name(target.instanceType).split('.')[0];
  const quota = family.startsWith('inf') ? EC2_VCPU_QUOTAS.inf : family.startsWith('trn') ? EC2_VCPU_QUOTAS.trn : undefined;
  if (quota === undefined || target.vcpus === undefined) {
    return undefined;
  }
  return {
    serviceCode: 'ec2',
    name: quota.name,
    matches: (q) => q.QuotaCode === quota.code || q.QuotaName === quota.name,
    needed: target.maxInstanceCount * target.vcpus,
    unit: ' vCPUs',
    why: `${target.maxInstanceCount} x ${ec2Name(target.instanceType)} (${target.vcpus} vCPUs each)`,
  };
}

/** The applied quota, else the AWS default. */
async function findQuota(
  client: ServiceQuotasClient,
  serviceCode: string,
  matches: (quota: ServiceQuota) => boolean,
): Promise<ServiceQuota | undefined> {
  for await (const page of paginateListServiceQuotas({ client, pageSize: 100 }, { ServiceCode: serviceCode })) {
    const found = page.Quotas?.find(matches);
    if (found !== undefined) {
      return found;
    }
  }
  for await (const page of paginateListAWSDefaultServiceQuotas({ client, pageSize: 100 }, { ServiceCode: serviceCode })) {
    const found = page.Quotas?.find(matches);
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}
