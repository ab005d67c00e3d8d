/**
 * The generative compile host's boot script (EC2 user data) and the program it runs inside the serving image.
 *
 * The compile is the serving engine's own: vLLM's offline `LLM(...)` constructor with the settings `vllm serve`
 * gets from the plan (lib/generative/engine-config.ts) and `NEURON_COMPILED_ARTIFACTS` set to an empty directory.
 * The vLLM Neuron plugin then compiles with NxD Inference and saves the artifacts there, then loads them ("If
 * loading from the NEURON_COMPILED_ARTIFACTS path fails, then we will recompile the model with the provided
 * configurations and store the results in the provided location": AWS Neuron docs, vLLM User Guide for NxD Inference,
 * "Loading pre-compiled models / Serialization Support",
 * https://awsdocs-neuron.readthedocs-hosted.com/en/latest/libraries/nxd-inference/developer_guides/vllm-user-guide-v1.html;
 * the plugin's loader, vllm_neuron/worker/neuronx_distributed_model_loader.py, `_get_compiled_model_path` and
 * `_compile_and_load_model`, https://github.com/vllm-project/vllm-neuron). NxD Inference's `inference_demo` compiles
 * too, but its flags would have to repeat every NeuronConfig field the plugin sets (continuous batching, bucketing,
 * on-device sampling, padding side); the plugin's own path gives, by construction, the artifacts `vllm serve` loads.
 *
 * Running it in the serving image (pulled by digest) compiles with exactly the image's neuronx-cc, NxD Inference
 * and plugin. The host is the plan's instance type: the constructor loads the compiled model on the plan's
 * tensor-parallel group and the program runs one greedy completion, so an artifact that does not load never lands.
 *
 * The program is `serving/compile/compile_generative.py`, downloaded from its S3 asset and checked by SHA-256 as the
 * single-call boot script does. The host boots the ECS-optimized Amazon Linux 2023 Neuron AMI (Neuron driver and
 * Docker installed, what the ECS hosting runs). Upload order: compiled artifacts, staged weights, then `manifest.json` last; failures leave
 * `attempts/<id>/failure.json` and the log. The Hub token is read from Secrets Manager at run time into a file on
 * tmpfs, mounted read-only into the container and removed after; it is never in the environment, the user data or
 * the log.
 */
import { canonicalJson } from './hash';
import { renderCompileHostScript, shellQuote, type CompileHostConfig } from './host';
import { COMPILED_ARTIFACTS_DIR, STAGED_MODEL_DIR, type GenerativeCompileSpec } from './generative-spec';

/** Prompt of the greedy check after the load; its completion goes into the manifest. */
export const COMPILE_CHECK_PROMPT = 'The capital of France is';


/** What the generative boot script needs; the job fills it in per launch. */
export interface GenerativeBootScriptConfig extends CompileHostConfig {
  readonly spec: GenerativeCompileSpec;
  readonly hash: string;
  /** The serving image by digest (`repo@sha256:...`). */
  readonly image: string;
  /** ARN of the Secrets Manager secret holding the Hub token (the secret string is the token). */
  readonly tokenSecretArn?: string;
  /** {@link weightsDigest} of the S3 weights as the job listed them. */
  readonly weightsDigest?: string;
}

/**
 * Renders the boot script for one launch.
 *
 * @throws Error when a value would not be safe in the script (the job builds every value; this guards its code)
 */
export function renderGenerativeBootScript(config: GenerativeBootScriptConfig): string {
  const label = 'generative boot script';
  const s3 = config.spec.weights.source === 's3' ? config.spec.weights.s3Uri : undefined;
  const meta = canonicalJson({
    hash: config.hash, instanceType: config.instanceType, image: config.image, checkPrompt: COMPILE_CHECK_PROMPT,
    ...(config.weightsDigest ? { weightsDigest: config.weightsDigest } : {}),
  });
  const weightsStep = s3 !== undefined
    ? `aws s3 cp --only-show-errors --recursive ${shellQuote(s3)} "$WORK/model/" >>"$LOG" 2>&1 \\
  || fail error "could not download the weights from ${s3}; check the prefix and the compile role's read access" 1`
    : config.tokenSecretArn !== undefined
      ? `# The token goes to a file on tmpfs, mounted read-only into the container: never in an environment or the log.
install -d -m 700 "$SECRETS"
if ! aws secretsmanager get-secret-value --secret-id ${shellQuote(config.tokenSecretArn)} --query SecretString --output text \\
  >"$SECRETS/hf_token" 2>>"$LOG"; then
  rm -f "$SECRETS/hf_token"
  fail error "could not read the Hugging Face token from Secrets Manager (${config.tokenSecretArn}); check the secret and the compile role's read on it" 1
fi
chmod 400 "$SECRETS/hf_token"
SECRET_MOUNT=(-v "$SECRETS/hf_token:/run/secrets/hf_token:ro")`
      : '# A public Hub repository: downloaded in the container without a token.';
  return renderCompileHostScript(config, {
    label,
    title: 'generative compile host (rendered by lib/compile/generative-script.ts)',
    safeFields: [['image', config.image], ['tokenSecretArn', config.tokenSecretArn], ['weightsDigest', config.weightsDigest],
      ['hash', config.hash], ['scriptS3Uri', config.scriptS3Uri]],
    problems: /@sha256:[0-9a-f]{64}$/.test(config.image)
      ? []
      : [`${label}: image=${JSON.stringify(config.image)} is not pinned by digest (repository@sha256:<64 hex>); `
        + 'the compile must run the exact image that serves'],
    variables: [['IMAGE', shellQuote(config.image)], ['SECRETS', '"${CDK_INFERENTIA_SECRETS:-/run/cdk-inferentia}"'],
      ['DEV', '"${CDK_INFERENTIA_DEV:-/dev}"'], ['CONTAINER', 'cdk-inferentia-compile']],
    declarations: 'SECRET_MOUNT=()',
    powerOffMarginMinutes: 30,
    // The trap also removes the token file.
    onExit: 'rm -rf "$SECRETS"; ',
    setup: '# The AMI\'s ECS agent has no cluster to join here.\nsystemctl stop ecs 2>/dev/null || true',
    directories: [`out/${COMPILED_ARTIFACTS_DIR}`, 'model', 'work'],
    files: [['$WORK/work/spec.json', 'CDK_INFERENTIA_SPEC', canonicalJson(config.spec)], ['$WORK/work/meta.json', 'CDK_INFERENTIA_META', meta]],
    program: { path: '$WORK/work/compile_generative.py', noun: 'compile program' },
    inputs: `${weightsStep}

# A private ECR image needs a login (the role may pull it); a public one does not.
registry="\${IMAGE%%/*}"
if [[ "$registry" == *.dkr.ecr.*.amazonaws.com ]]; then
  ecr_region=$(echo "$registry" | cut -d. -f4)
  aws ecr get-login-password --region "$ecr_region" | docker login --username AWS --password-stdin "$registry" >>"$LOG" 2>&1 \\
    || fail error "could not log in to $registry; check the compile role's pull permission on the image" 1
fi
docker pull "$IMAGE" >>"$LOG" 2>&1 || fail error "could not pull $IMAGE; check the image digest and the subnet's route to the registry" 1

${config.spec.plugin?.cpuCompile ? `# A CPU compile (the vLLM Neuron plugin's, for ${config.spec.plugin.target}): no Neuron device on this host.
devices=()` : `devices=()
for device in "$DEV"/neuron[0-9]*; do
  [ -e "$device" ] && devices+=(--device="$device")
done
[ \${#devices[@]} -gt 0 ] || fail error "no /dev/neuron devices on $INSTANCE_TYPE: the AMI's Neuron driver is not loaded" 1`}`,
    // --cap-add SYS_ADMIN and IPC_LOCK as the Neuron DLC quickstart runs the vLLM container; no EFA on a compile host.
    run: `docker run --rm --name "$CONTAINER" "\${devices[@]}" --cap-add SYS_ADMIN --cap-add IPC_LOCK \\
  --env NEURON_SKIP_EFA_AFFINITY=1 -v "$WORK/model:/model" -v "$WORK/out:/out" -v "$WORK/work:/work:ro" "\${SECRET_MOUNT[@]}" \\
  --entrypoint python3 "$IMAGE" /work/compile_generative.py`,
    afterRun: 'docker rm -f "$CONTAINER" >/dev/null 2>&1 || true\nrm -rf "$SECRETS"',
    // Weights from either source are staged beside the artifacts: SageMaker mounts one S3 prefix as /opt/ml/model, and
    // one prefix holding both is what a stage copies when it promotes.
    uploads: `  aws s3 cp --only-show-errors --recursive "$WORK/out/${COMPILED_ARTIFACTS_DIR}" "\${DEST}${COMPILED_ARTIFACTS_DIR}" >>"$LOG" 2>&1 \\
    || fail error "could not upload the compiled artifacts to \${DEST}${COMPILED_ARTIFACTS_DIR}" 1
  aws s3 cp --only-show-errors --recursive "$WORK/model/" "\${DEST}${STAGED_MODEL_DIR}" >>"$LOG" 2>&1 \\
    || fail error "could not upload the staged weights to \${DEST}${STAGED_MODEL_DIR}" 1`,
    outOfMemory: 'the compile was killed for memory (exit 137): the model needs more host RAM than $INSTANCE_TYPE has; set a larger compile instance type of the plan\'s family',
    ran: 'compile',
  });
}
