/**
 * Every CDK context key the example app's stacks read, in one registry, so a key the app does not read
 * (`-c throughtput=5`, `-c llama70bTrn2Digest=...`) is refused, naming the closest key it does read, instead of being
 * ignored while synth runs for a minute and exits 0.
 *
 * Keys of CDK (`@aws-cdk/...` feature flags, `aws:cdk:...`, `key:qualifier` lookups, `acknowledged-issue-numbers`,
 * `cli-telemetry`) and JSON comments (`//...`) pass.
 */
import type { App } from 'aws-cdk-lib';
import { environmentsInputSchema } from '../lib/environments/schema';
import { closestName, editDistance } from '../lib/profiles';

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

/**
 * Context keys of the CDK CLI itself that carry no `:` or `@`: what `cdk acknowledge` and `cdk cli-telemetry` store in
 * cdk.context.json, which the CLI hands to the app with the rest.
 */
export const CDK_CLI_CONTEXT_KEYS: readonly string[] = ['acknowledged-issue-numbers', 'cli-telemetry'];

/** Keys that belong to CDK, not to the app: qualified lookups and `aws:cdk:` settings, feature flags, CLI state, JSON comments. */
function foreign(key: string): boolean {
  return key.includes(':') || key.startsWith('@') || key.startsWith('//') || CDK_CLI_CONTEXT_KEYS.includes(key);
}

/** `llama70bTrn2Digest` -> `llama70b`, `trn2`, `digest`. */
function words(key: string): string[] {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 0);
}

/**
 * The known key nearest to `key`: a near miss when there is one (`closestName`: case, separators, a prefix, two
 * edits), else the one sharing the most words (`llama70bTrn2Digest` -> `llama70bTrn2ImageDigest`), then the fewest
 * edits.
 */
export function nearestKey(key: string, known: readonly string[]): string {
  const close = closestName(key, known);
  if (close !== undefined) return close;
  const mine = new Set(words(key));
  const score = (k: string) => words(k).filter((w) => mine.has(w)).length;
  return [...known].sort((a, b) => score(b) - score(a) || editDistance(key, a) - editDistance(key, b))[0];
}

/**
 * One problem per context key the app does not read and CDK does not own, each naming the nearest key the app reads:
 * `context llama70bTrn2Digest="sha256:..." is read by no example stack; did you mean -c llama70bTrn2ImageDigest=...?`.
 * A field of the environments config given as a context key (`-c generativeImageDigest=...`) is sent to the file.
 */
export function unknownContextKeyProblems(context: Readonly<Record<string, unknown>>): string[] {
  const configFields = Object.keys(environmentsInputSchema().shape).filter((f) => !f.startsWith('$') && !CONTEXT_KEYS.includes(f));
  const problems: string[] = [];
  for (const [key, value] of Object.entries(context)) {
    if (CONTEXT_KEYS.includes(key) || foreign(key)) continue;
    const shown = typeof value === 'string' ? value : JSON.stringify(value);
    if (configFields.includes(key)) {
      problems.push(`context ${key}=${JSON.stringify(value)} is read by no example stack: ${key} is a field of the environments config `
        + `(the file of -c environments, examples/environments.json in cdk.json); set "${key}": ${JSON.stringify(value)} there`);
      continue;
    }
    const meant = nearestKey(key, CONTEXT_KEYS);
    problems.push(`context ${key}=${JSON.stringify(value)} is read by no example stack; ` + (closestName(key, CONTEXT_KEYS) !== undefined
      ? `did you mean -c ${meant}=${shown}?`
      : `the nearest key it reads is ${meant} (-c ${meant}=${shown}); the keys it reads: ${CONTEXT_KEYS.join(', ')}`));
  }
  return problems;
}

/** {@link unknownContextKeyProblems} of the app's context: checked before any stack is built. */
export function unknownAppContextKeyProblems(app: App): string[] {
  return unknownContextKeyProblems(app.node.getAllContext());
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
