/**
 * The example CDK app: bert-base-uncased on a SageMaker Neuron endpoint, sized for 2,000 inferences/s at p99 10 ms.
 *
 * `npx cdk synth` runs it (cdk.json `app`). It reads its settings from cdk.json context, which placeholders fill so
 * a fresh clone synthesizes offline with no credentials and no Docker:
 * - `account` (placeholder 123456789012) and `region` (us-east-1): where the stack deploys and the plan prices;
 * - `imageDigest` (placeholder `sha256:` + 64 zeros): the digest of the Neuron DLC image the endpoint runs.
 * Override any of them in cdk.json or with `-c key=value`.
 */
import * as path from 'path';
import { Annotations, App } from 'aws-cdk-lib';
import { InferenceStack } from '../constructs/inference-stack';
import { ModelImage } from '../constructs/model-image';
import { applyPolicyChecks } from '../constructs/nag';
import type { SmokeBenchmarkOptions } from '../constructs/smoke-benchmark';
import { InputError } from '../lib/errors';
import { plan } from '../lib/planner';
import { requireProfile } from '../lib/profiles';

/** The digest cdk.json ships with: it names no image, so a deploy with it fails to pull. */
export const PLACEHOLDER_IMAGE_DIGEST = `sha256:${'0'.repeat(64)}`;

/**
 * The Neuron DLC the example serves with: the last `pytorch-inference-neuronx` release (Neuron SDK 2.31.1;
 * inferentia-facts.md §4a, NDLC README).
 */
export const EXAMPLE_DLC_TAG = '2.9.0-neuronx-py312-sdk2.31.1-ubuntu24.04';

/** Where the example's model data lives: the handler ships, the compiled model is added by the user. */
export const EXAMPLE_MODEL_DATA = path.join(__dirname, '..', 'examples', 'bert-base-uncased', 'model');

/**
 * The example's deploy gate: one sentence through the shipped handler (`code/inference.py` answers
 * `{"outputs": [[...floats...]]}`), thresholds from the plan. The regex proves the model ran and returned numbers,
 * not an error page; replace it with a golden output of your compiled model (`expect: { kind: 'json', value }`)
 * to catch a model that loads but answers wrong.
 */
export const EXAMPLE_SMOKE_BENCHMARK: SmokeBenchmarkOptions = {
  request: { body: JSON.stringify({ inputs: ['The quick brown fox jumps over the lazy dog.'] }), contentType: 'application/json' },
  expect: { kind: 'regex', pattern: '^\\{"outputs": \\[\\[-?[0-9]' },
};

/** Name of the example stack. */
export const EXAMPLE_STACK_NAME = 'BertBaseUncasedInference';

/**
 * Builds the example stack in `app` from its context and registers the policy checks.
 *
 * @throws InputError listing every missing or malformed context value
 */
export function buildApp(app: App = new App()): App {
  const problems: string[] = [];
  const read = (key: string, example: string): string => {
    const value: unknown = app.node.tryGetContext(key);
    if (typeof value !== 'string' || value.trim() === '') {
      problems.push(`context ${key}=${JSON.stringify(value)} is missing or not a string; set "${key}" in cdk.json `
        + `context or pass -c ${key}=${example}`);
      return '';
    }
    return value.trim();
  };
  const account = read('account', '123456789012');
  const region = read('region', 'us-east-1');
  const imageDigest = read('imageDigest', 'sha256:<64 hex digits>');
  if (account !== '' && !/^\d{12}$/.test(account)) {
    problems.push(`context account=${JSON.stringify(account)} is not a 12-digit AWS account id; set "account" in `
      + 'cdk.json context to the account you deploy to');
  }
  InputError.throwIfAny(problems);

  const stack = new InferenceStack(app, EXAMPLE_STACK_NAME, {
    env: { account, region },
    description: 'cdk-inferentia example: bert-base-uncased on a SageMaker Neuron endpoint, planned for 2,000 rps at p99 10 ms',
    plan: plan(requireProfile('bert-base-uncased'), { throughputRps: 2000, p99Ms: 10 }, { region, hosting: 'sagemaker' }),
    image: ModelImage.fromNeuronDlc({ tag: EXAMPLE_DLC_TAG, digest: imageDigest }),
    modelDataPath: EXAMPLE_MODEL_DATA,
    smokeBenchmark: EXAMPLE_SMOKE_BENCHMARK,
  });
  if (imageDigest === PLACEHOLDER_IMAGE_DIGEST) {
    Annotations.of(stack).addWarningV2('@cdk-inferentia/app:placeholderImageDigest',
      `imageDigest is the placeholder ${PLACEHOLDER_IMAGE_DIGEST}, which names no image: synth works, deploy would `
      + 'fail to pull. Set "imageDigest" in cdk.json to the digest of pytorch-inference-neuronx:'
      + `${EXAMPLE_DLC_TAG}: aws ecr describe-images --region ${region} --registry-id 763104351884 `
      + `--repository-name pytorch-inference-neuronx --image-ids imageTag=${EXAMPLE_DLC_TAG} `
      + "--query 'imageDetails[0].imageDigest' --output text");
  }
  applyPolicyChecks(app);
  return app;
}

if (require.main === module) {
  buildApp();
}
