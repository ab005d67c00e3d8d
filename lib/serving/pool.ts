/**
 * Which instance pool answered: the contract between the hostings, the servers and the proofs.
 *
 * Priorities run from 1 to 5, as SageMaker's do. A SageMaker endpoint with instance pools gives each pool its own model (`ModelNameOverride`, or one
 * `Specifications` entry per instance type on an inference component), so each pool's containers get their own
 * environment: the hosting writes the pool's priority in {@link POOL_ENV}. The model server (`serving/frontend.py`)
 * and the vLLM image (`serving/vllm/pool_header.py`) add it to the `X-Amzn-SageMaker-Custom-Attributes` response header
 * as `pool=<priority>`, which `InvokeEndpoint` and `InvokeEndpointWithResponseStream` return to the caller as
 * `CustomAttributes` (SageMaker API Reference: "the model must set the custom attribute to be included on the way
 * back"). Nothing else tells a caller which instance answered: SageMaker's metrics and `InvokedProductionVariant`
 * name the variant, which every pool shares.
 *
 * @see https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html
 */

/** The variable each pool's containers read their priority from (1 for the chosen instance type). */
export const POOL_ENV = 'CDK_INFERENTIA_POOL';

/** The key of the pool's priority in the custom-attributes header: `pool=2`. */
export const POOL_ATTRIBUTE = 'pool';

/** The response header SageMaker returns to the caller as `CustomAttributes`. */
export const CUSTOM_ATTRIBUTES_HEADER = 'x-amzn-sagemaker-custom-attributes';

/** The environment that tells a pool's containers their priority. */
export function poolEnvironment(priority: number): Record<string, string> {
  return { [POOL_ENV]: `${priority}` };
}

/**
 * The pool priority in a custom-attributes value (`server-ms=1.2,pool=2` or `pool=2`), or undefined when it names
 * none (a server without pools, another server, a user's own attributes).
 */
export function parsePool(customAttributes: string | undefined): number | undefined {
  for (const part of (customAttributes ?? '').split(',')) {
    const [key, value] = part.split('=', 2).map((s) => s.trim());
    if (key === POOL_ATTRIBUTE && /^[1-5]$/.test(value ?? '')) {
      return Number(value);
    }
  }
  return undefined;
}
