/**
 * What a {@link NeuronGenerativeEndpoint} refuses before anything is created, and its rolling update policy.
 *
 * `InferenceComponentDeploymentConfig` / `InferenceComponentRollingUpdatePolicy` (SageMaker API Reference,
 * https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_InferenceComponentRollingUpdatePolicy.html):
 * `MaximumBatchSize` is 5-50 % of the copy count, `WaitIntervalInSeconds` 0-3600, `MaximumExecutionTimeoutInSeconds`
 * 600-28800; `AutoRollbackConfiguration` names CloudWatch alarms.
 */
import { Token } from 'aws-cdk-lib';
import type * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import type { GenerativeDeploymentOptions, NeuronGenerativeEndpointProps } from '../generative-endpoint-props';
import type { ComponentSizing } from './generative-sizing';

const WAIT_MAX_SECONDS = 3600;
const EXECUTION_MIN_SECONDS = 600;
const EXECUTION_MAX_SECONDS = 28800;
/** Launching an instance for a batch and pulling the image, on top of the container timeouts. */
const INSTANCE_AND_IMAGE_SECONDS = 1800;

/** The problems of the props that need no sizing, each naming the field, the value and the fix; `props.plan` is read already. */
export function generativeProblems(props: NeuronGenerativeEndpointProps): string[] {
  const problems: string[] = [];
  // The plan's shape, kind and version were checked before (readGenerativePlan).
  const plan = props.plan;
  if (plan.hosting !== 'sagemaker') {
    problems.push(`plan.hosting=${JSON.stringify(plan.hosting)}: this plan was sized and priced for ECS on EC2; plan again `
      + 'with hosting \'sagemaker\' (--hosting sagemaker), or deploy it with NeuronEcsService');
  }
  if (props.image?.vllmEngine !== true) {
    problems.push('image does not run vLLM; pass ModelImage.fromNeuronVllm({ tag, digest }) with the pinned tag of the plan\'s '
      + 'chip (VLLM_DLC_PINS)');
  }
  if (plan.generative.architecture !== 'decoder-only') {
    problems.push(`plan for ${plan.profileId} is ${plan.generative.architecture}: vLLM on Neuron serves decoder-only models; `
      + 'host an encoder-decoder model with NeuronSageMakerEndpoint and a handler that runs its generation loop');
  }
  if (!/^[A-Za-z0-9][\w.:/-]{0,127}$/.test(props.servedModelName ?? '')) {
    problems.push(`servedModelName=${JSON.stringify(props.servedModelName)} must be 1-128 letters, digits and '_.:/-', starting `
      + 'with a letter or digit: the name clients send in the request\'s model field');
  }
  for (const [field, path] of [['compiledArtifactsPath', props.compiledArtifactsPath], ['weightsPath', props.weightsPath]] as const) {
    if (path !== undefined && (Token.isUnresolved(path) || !/^[\w.-]+(\/[\w.-]+)*\/?$/.test(path) || path.split('/').includes('..'))) {
      problems.push(`${field}=${JSON.stringify(path)} must be a relative directory inside the weights prefix, e.g. `
        + `'${field === 'weightsPath' ? 'model/' : 'compiled/'}'`);
    }
  }
  const idle = props.scaleToZero?.idleMinutes;
  if (props.scaleToZero !== undefined && !(Number.isInteger(idle) && (idle as number) >= 1 && (idle as number) <= 1440)) {
    problems.push(`scaleToZero.idleMinutes=${idle} must be a whole number of minutes from 1 to 1440`);
  }
  return problems;
}

/** The rolling update policy of the component, or undefined with the reasons in `problems`. */
export function renderRollingUpdate(options: GenerativeDeploymentOptions | undefined, sizing: ComponentSizing,
  problems: string[]): sagemaker.CfnInferenceComponent.InferenceComponentRollingUpdatePolicyProperty | undefined {
  const o = options ?? {};
  const before = problems.length;
  const percent = o.batchPercent ?? 20;
  if (!Number.isInteger(percent) || percent < 5 || percent > 50) {
    problems.push(`deployment.batchPercent=${percent} must be a whole percentage from 5 to 50 of the copies`);
  }
  const wait = o.waitInterval?.toSeconds() ?? 300;
  if (!Number.isInteger(wait) || wait < 0 || wait > WAIT_MAX_SECONDS) {
    problems.push(`deployment.waitInterval=${wait} s must be a whole number of seconds from 0 to ${WAIT_MAX_SECONDS}`);
  }
  const steps = Math.ceil(100 / Math.max(1, percent));
  const perStep = sizing.downloadTimeoutSeconds + sizing.startupTimeoutSeconds + INSTANCE_AND_IMAGE_SECONDS + wait;
  const execution = o.maximumExecutionTimeout?.toSeconds()
    ?? Math.min(EXECUTION_MAX_SECONDS, Math.max(EXECUTION_MIN_SECONDS, Math.min(steps, sizing.initialCopies) * perStep));
  if (!Number.isInteger(execution) || execution < EXECUTION_MIN_SECONDS || execution > EXECUTION_MAX_SECONDS) {
    problems.push(`deployment.maximumExecutionTimeout=${execution} s must be a whole number of seconds from `
      + `${EXECUTION_MIN_SECONDS} to ${EXECUTION_MAX_SECONDS}`);
  }
  if (problems.length > before) {
    return undefined;
  }
  return {
    maximumBatchSize: { type: 'CAPACITY_PERCENT', value: percent },
    waitIntervalInSeconds: wait,
    maximumExecutionTimeoutInSeconds: execution,
  };
}
