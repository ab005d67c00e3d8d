/**
 * Every CDK context key the example app's stacks read, in one registry, so a slip (`-c throughtput=5`) is refused
 * with "did you mean" instead of being ignored while synth exits 0.
 *
 * A key that is close to none of these (the user's own, CDK's `@aws-cdk/...` flags, `key:qualifier` lookups,
 * `//` comments) passes: only near misses are slips.
 */
import type { App } from 'aws-cdk-lib';
import { closestName } from '../lib/profiles';

/** The keys, and which part of the app reads each (for the message's list). */
export const CONTEXT_KEY_READERS = {
  /** The BERT example (bin/app.ts). */
  bert: ['account', 'region', 'imageDigest', 'prices', 'throughput', 'p99', 'peak', 'minInstances', 'modelSource', 'fallbacks'],
  /** Its ECS twin (bin/ecs-example.ts). */
  ecs: ['ecsImageRepository', 'ecsImageDigest'],
  /** The Llama example (bin/llama-example.ts): image, token secret and the targets its plans meet. */
  llama: [
    'llamaImageDigest', 'llamaTokenSecret', 'llamaThroughput', 'llamaPeak', 'llamaInputTokens', 'llamaInputTokensP99',
    'llamaOutputTokens', 'llamaOutputTokensP99', 'llamaTtftP99', 'llamaTpotP99', 'llamaE2eP99',
    // Retired: read only to refuse them with the reason.
    'llamaModelBucket', 'llamaWeightsPrefix',
  ],
  /** The Llama 3.3 70B example on Trainium2 (bin/llama70b-trn2-example.ts). */
  llama70bTrn2: ['llama70bTrn2ImageDigest'],
  /** The environments and their promotion pipeline (bin/environment-stages.ts). */
  environments: ['environments'],
} as const;

/** Every key any example stack reads. */
export const CONTEXT_KEYS: readonly string[] = Object.values(CONTEXT_KEY_READERS).flat();

/** Keys that belong to CDK or to nobody: qualified lookups, feature flags, CDK's own, JSON comments. */
function foreign(key: string): boolean {
  return key.includes(':') || key.startsWith('@') || key.startsWith('//');
}

/**
 * One problem per context key that is not ours but nearly is: `context throughtput="5" is read by no example
 * stack; did you mean -c throughput=5? ...`.
 */
export function misspelledContextKeyProblems(app: App): string[] {
  const problems: string[] = [];
  for (const [key, value] of Object.entries(app.node.getAllContext())) {
    if (CONTEXT_KEYS.includes(key) || foreign(key)) continue;
    const meant = closestName(key, CONTEXT_KEYS);
    if (meant !== undefined) {
      const shown = typeof value === 'string' ? value : JSON.stringify(value);
      problems.push(`context ${key}=${JSON.stringify(value)} is read by no example stack; did you mean -c ${meant}=${shown}? `
        + `(keys read: ${CONTEXT_KEYS.join(', ')})`);
    }
  }
  return problems;
}

/** A plain decimal: no hex (`0x10`), no exponent (`1e300`), no sign. */
const DECIMAL = /^\d+(\.\d+)?$/;

/**
 * A positive number from context: a number in cdk.json, or a plain decimal string from `-c key=value`.
 * Returns `dflt` when the key is absent, undefined (and a problem) when the value is bad.
 */
export function readContextNumber(value: unknown, key: string, dflt: number, unit: string, problems: string[], integer = false): number | undefined {
  if (value === undefined) {
    return dflt;
  }
  const n = typeof value === 'number' ? value : typeof value === 'string' && DECIMAL.test(value.trim()) ? Number(value) : NaN;
  const kind = integer ? 'a whole number of at least 1' : 'a positive number';
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    problems.push(`context ${key}=${JSON.stringify(value)} is not ${kind} (${unit}); pass e.g. -c ${key}=${dflt}`);
    return undefined;
  }
  return n;
}
