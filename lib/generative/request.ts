/**
 * Validation of a generative planning request: every bad target or option at once, each naming the field, the value
 * and the fix; defaults applied.
 */
import type { Catalog } from '../catalog/catalog';
import { ec2Name } from '../catalog/catalog';
import { isAwsRegion } from '../catalog/regions';
import { HOSTINGS, PRICING_KINDS } from '../catalog/types';
import { InputError } from '../errors';
import { DEFAULT_HEADROOM } from '../planner/planner';
import type { GenerativePlanOptions, GenerativePlanReport, GenerativeProfile, GenerativeTargets, TokenLength } from './types';

export type ResolvedGenerativeRequest = GenerativePlanReport['request'] & {
  /** Prompt plus output tokens the engine must accept (vLLM's `max_model_len`): p99 input + p99 output. */
  readonly maxModelLength: number;
};

/** The longest sequence the targets imply: p99 input + p99 output tokens, rounded up to whole tokens. */
export function maxModelLengthFor(targets: Pick<GenerativeTargets, 'inputTokens' | 'outputTokens'>): number {
  return Math.ceil((targets.inputTokens.p99 ?? targets.inputTokens.mean) + (targets.outputTokens.p99 ?? targets.outputTokens.mean));
}

export function resolveGenerativeRequest(
  profile: GenerativeProfile,
  targets: GenerativeTargets,
  options: GenerativePlanOptions,
  catalog: Catalog,
): ResolvedGenerativeRequest {
  const problems: string[] = [];
  const positive = (name: string, value: number | undefined, fix: string) => {
    if (value !== undefined && !(Number.isFinite(value) && value > 0)) {
      problems.push(`${name}=${value} must be a positive number; ${fix}`);
    }
  };
  const tokens = (name: string, length: TokenLength | undefined) => {
    if (length === undefined || !(Number.isFinite(length.mean) && length.mean >= 1)) {
      problems.push(`${name}=${length?.mean} must be at least 1 token; give the mean ${name.replace('Tokens', '')} length in tokens, e.g. 512`);
      return;
    }
    if (length.p99 !== undefined && !(Number.isFinite(length.p99) && length.p99 >= length.mean)) {
      problems.push(`${name}P99=${length.p99} must be at least the mean (${length.mean}); give the 99th percentile length, or leave it out for fixed lengths`);
    }
  };
  positive('throughput', targets.requestsPerSecond, 'give the steady requests per second to serve, e.g. 2');
  positive('ttftP99', targets.ttftP99Ms, 'give the highest acceptable p99 time to first token in milliseconds, e.g. 2000');
  positive('tpotP99', targets.tpotP99Ms, 'give the highest acceptable p99 time per output token in milliseconds, e.g. 60');
  positive('e2eP99', targets.e2eP99Ms, 'give the highest acceptable p99 end-to-end latency in milliseconds, or leave it out');
  positive('peakThroughput', targets.peakRequestsPerSecond, 'give the peak requests per second, or leave it out');
  tokens('inputTokens', targets.inputTokens);
  tokens('outputTokens', targets.outputTokens);
  if (targets.peakRequestsPerSecond !== undefined && targets.peakRequestsPerSecond < targets.requestsPerSecond) {
    problems.push(`peakThroughput=${targets.peakRequestsPerSecond} is below throughput=${targets.requestsPerSecond}; the peak must be at least the steady target`);
  }
  const maxModelLength = problems.length === 0 ? maxModelLengthFor(targets) : 0;
  if (maxModelLength > profile.model.maxContextTokens) {
    problems.push(
      `input plus output tokens at p99 (${maxModelLength}) exceed ${profile.id}'s context of ` +
        `${profile.model.maxContextTokens} tokens; shorten the prompts or the outputs`,
    );
  }

  const { region, hosting } = options;
  if (!isAwsRegion(region)) {
    problems.push(`region='${region}' is not an AWS region code; use one such as us-east-1 or eu-west-1`);
  }
  if (!HOSTINGS.includes(hosting)) {
    problems.push(`hosting='${hosting}' is not supported; use one of: ${HOSTINGS.join(', ')}`);
  }
  const pricing = options.pricing ?? 'on-demand';
  if (!PRICING_KINDS.includes(pricing)) {
    problems.push(`pricing='${pricing}' is not supported; use one of: ${PRICING_KINDS.join(', ')}`);
  }
  const minInstances = options.minInstances ?? 1;
  for (const [name, value] of [['minInstances', minInstances], ['maxInstances', options.maxInstances]] as const) {
    if (value !== undefined && !(Number.isInteger(value) && value >= 1)) {
      problems.push(`${name}=${value} must be a whole number, at least 1`);
    }
  }
  if (options.maxInstances !== undefined && options.maxInstances < minInstances) {
    problems.push(`maxInstances=${options.maxInstances} is below minInstances=${minInstances}; raise it or lower minInstances`);
  }
  const headroom = options.headroom ?? DEFAULT_HEADROOM;
  if (!(Number.isFinite(headroom) && headroom >= 0 && headroom <= 1)) {
    problems.push(`headroom=${headroom} must be a fraction from 0 to 1 (0.2 keeps 20 % spare capacity)`);
  }
  if (options.instanceTypes !== undefined && options.instanceTypes.length === 0) {
    problems.push('instanceTypes is empty; name at least one instance type, or leave it out to consider every one');
  }
  for (const name of options.instanceTypes ?? []) {
    if (!catalog.instance(name)) {
      problems.push(`instance type '${name}' is not in the catalog; known: ${catalog.instances.map((i) => i.name).join(', ')}`);
    }
  }
  if (problems.length === 0 && !catalog.regionsWithPrices(hosting, pricing).includes(region)) {
    problems.push(
      `the catalog has no ${pricing} ${hosting} prices for region ${region} (it has: ` +
        `${catalog.regionsWithPrices(hosting, pricing).join(', ') || 'none'}); pass a catalog with prices for it ` +
        `(CLI: cdk-inferentia catalog refresh --regions ${region} --out prices.json, then --prices prices.json)`,
    );
  }
  InputError.throwIfAny(problems);
  return {
    profileId: profile.id,
    targets,
    maxModelLength,
    options: {
      region,
      hosting,
      minInstances,
      headroom,
      pricing,
      ...(options.maxInstances !== undefined ? { maxInstances: options.maxInstances } : {}),
      ...(options.instanceTypes !== undefined ? { instanceTypes: options.instanceTypes.map(ec2Name) } : {}),
    },
  };
}
