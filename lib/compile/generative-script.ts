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
import { shellQuote } from './boot-script';
import { COMPILED_ARTIFACTS_DIR, STAGED_MODEL_DIR, type GenerativeCompileSpec } from './generative-spec';

/** Prompt of the greedy check after the load; its completion goes into the manifest. */
export const COMPILE_CHECK_PROMPT = 'The capital of France is';


/** What the generative boot script needs; the job fills it in per launch. */
export interface GenerativeBootScriptConfig {
  readonly region: string;
  readonly bucket: string;
  /** `<prefix><hash>/`. */
  readonly artifactPrefix: string;
  readonly attemptId: string;
  readonly instanceType: string;
  readonly spec: GenerativeCompileSpec;
  readonly hash: string;
  /** `s3://` URI of `compile_generative.py` and the SHA-256 (hex) it must have. */
  readonly scriptS3Uri: string;
  readonly scriptSha256: string;
  /** The serving image by digest (`repo@sha256:...`). */
  readonly image: string;
  /** ARN of the Secrets Manager secret holding the Hub token (the secret string is the token). */
  readonly tokenSecretArn?: string;
  /** {@link weightsDigest} of the S3 weights as the job listed them. */
  readonly weightsDigest?: string;
  readonly timeoutSeconds: number;
}

const SAFE = /^[A-Za-z0-9._\-/:+=@]*$/;

/** Why a config cannot be rendered safely. */
function problems(config: GenerativeBootScriptConfig): string[] {
  const out: string[] = [];
  const fields: Array<[string, string | undefined]> = [['instanceType', config.instanceType], ['attemptId', config.attemptId],
    ['bucket', config.bucket], ['artifactPrefix', config.artifactPrefix], ['region', config.region], ['image', config.image],
    ['tokenSecretArn', config.tokenSecretArn], ['weightsDigest', config.weightsDigest], ['hash', config.hash],
    ['scriptS3Uri', config.scriptS3Uri]];
  for (const [field, value] of fields) {
    if (value !== undefined && !SAFE.test(value)) {
      out.push(`generative boot script: ${field}=${JSON.stringify(value)} has characters outside [A-Za-z0-9._-/:+=@]`);
    }
  }
  if (!/@sha256:[0-9a-f]{64}$/.test(config.image)) {
    out.push(`generative boot script: image=${JSON.stringify(config.image)} is not pinned by digest (repository@sha256:<64 hex>); `
      + 'the compile must run the exact image that serves');
  }
  if (!/^[0-9a-f]{64}$/.test(config.scriptSha256)) {
    out.push(`generative boot script: scriptSha256=${JSON.stringify(config.scriptSha256)} is not a SHA-256 hex digest`);
  }
  if (!Number.isInteger(config.timeoutSeconds) || config.timeoutSeconds <= 0) {
    out.push(`generative boot script: timeoutSeconds=${config.timeoutSeconds} must be a positive integer`);
  }
  return out;
}

function heredoc(path: string, delimiter: string, body: string): string {
  if (body.includes(delimiter)) {
    throw new Error(`generative boot script: the content of ${path} contains its heredoc delimiter ${delimiter}`);
  }
  return `cat >"${path}" <<'${delimiter}'\n${body}\n${delimiter}`;
}

/**
 * Renders the boot script for one launch.
 *
 * @throws Error when a value would not be safe in the script (the job builds every value; this guards its code)
 */
export function renderGenerativeBootScript(config: GenerativeBootScriptConfig): string {
  const found = problems(config);
  if (found.length > 0) {
    throw new Error(found.join('; '));
  }
  const s3 = config.spec.weights.source === 's3' ? config.spec.weights.s3Uri : undefined;
  const meta = canonicalJson({
    hash: config.hash, instanceType: config.instanceType, image: config.image, checkPrompt: COMPILE_CHECK_PROMPT,
    ...(config.weightsDigest ? { weightsDigest: config.weightsDigest } : {}),
  });
  const powerOffMinutes = Math.ceil(config.timeoutSeconds / 60) + 30;
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
  // Weights from either source are staged beside the artifacts: SageMaker mounts one S3 prefix as /opt/ml/model, and
  // one prefix holding both is what a stage copies when it promotes.
  const stageStep = `  aws s3 cp --only-show-errors --recursive "$WORK/model/" "\${DEST}${STAGED_MODEL_DIR}" >>"$LOG" 2>&1 \\
    || fail error "could not upload the staged weights to \${DEST}${STAGED_MODEL_DIR}" 1\n`;
  return `#!/bin/bash
# cdk-inferentia generative compile host (rendered by lib/compile/generative-script.ts). Runs once at first boot as root.
set -uo pipefail

readonly REGION=${shellQuote(config.region)}
readonly BUCKET=${shellQuote(config.bucket)}
readonly ARTIFACTS=${shellQuote(config.artifactPrefix)}
readonly ATTEMPT=${shellQuote(config.attemptId)}
readonly INSTANCE_TYPE=${shellQuote(config.instanceType)}
readonly IMAGE=${shellQuote(config.image)}
readonly SCRIPT_URI=${shellQuote(config.scriptS3Uri)}
readonly SCRIPT_SHA256=${shellQuote(config.scriptSha256)}
readonly TIMEOUT_SECONDS=${config.timeoutSeconds}
readonly WORK="\${CDK_INFERENTIA_WORK:-/var/lib/cdk-inferentia-compile}"
readonly SECRETS="\${CDK_INFERENTIA_SECRETS:-/run/cdk-inferentia}"
readonly DEV="\${CDK_INFERENTIA_DEV:-/dev}"
readonly DEST="s3://$BUCKET/$ARTIFACTS"
readonly ATTEMPT_DEST="\${DEST}attempts/$ATTEMPT/"
readonly CONTAINER=cdk-inferentia-compile
export AWS_DEFAULT_REGION="$REGION"
SECRET_MOUNT=()

# Launched with shutdown behaviour terminate: powering off ends the instance. The scheduled power-off bounds a hung
# script; the trap removes the token file and ends the instance as soon as the script is done.
shutdown -h "+${powerOffMinutes}" || true
trap 'rm -rf "$SECRETS"; shutdown -h now' EXIT
# The AMI's ECS agent has no cluster to join here.
systemctl stop ecs 2>/dev/null || true

mkdir -p "$WORK/out/${COMPILED_ARTIFACTS_DIR}" "$WORK/model" "$WORK/work"
readonly LOG="$WORK/compile.log"
touch "$LOG"

fail() {
  local kind="$1" reason="$2" code="$3"
  if [ -s "$WORK/out/failure.json" ] && [ "$kind" != timeout ]; then
    aws s3 cp --only-show-errors "$WORK/out/failure.json" "\${ATTEMPT_DEST}failure.json"
  else
    printf '{"kind":"%s","reason":"%s","exitCode":%d,"instanceType":"%s"}\\n' \\
      "$kind" "$reason" "$code" "$INSTANCE_TYPE" >"$WORK/failure.json"
    aws s3 cp --only-show-errors "$WORK/failure.json" "\${ATTEMPT_DEST}failure.json"
  fi
  aws s3 cp --only-show-errors "$LOG" "\${ATTEMPT_DEST}compile.log" || true
  exit 1
}

${heredoc('$WORK/work/spec.json', 'CDK_INFERENTIA_SPEC', canonicalJson(config.spec))}
${heredoc('$WORK/work/meta.json', 'CDK_INFERENTIA_META', meta)}

if ! aws s3 cp --only-show-errors "$SCRIPT_URI" "$WORK/work/compile_generative.py" >>"$LOG" 2>&1; then
  fail error "could not download the compile program from $SCRIPT_URI" 1
fi
if ! echo "$SCRIPT_SHA256  $WORK/work/compile_generative.py" | sha256sum -c --status; then
  fail error "the compile program at $SCRIPT_URI is not the one this job was made with (SHA-256 differs)" 1
fi
${weightsStep}

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
[ \${#devices[@]} -gt 0 ] || fail error "no /dev/neuron devices on $INSTANCE_TYPE: the AMI's Neuron driver is not loaded" 1`}

started=$(date +%s)
# --cap-add SYS_ADMIN and IPC_LOCK as the Neuron DLC quickstart runs the vLLM container; no EFA on a compile host.
timeout --kill-after=60 "$TIMEOUT_SECONDS" docker run --rm --name "$CONTAINER" "\${devices[@]}" --cap-add SYS_ADMIN --cap-add IPC_LOCK \\
  --env NEURON_SKIP_EFA_AFFINITY=1 -v "$WORK/model:/model" -v "$WORK/out:/out" -v "$WORK/work:/work:ro" "\${SECRET_MOUNT[@]}" \\
  --entrypoint python3 "$IMAGE" /work/compile_generative.py >>"$LOG" 2>&1
code=$?
elapsed=$(( $(date +%s) - started ))
docker rm -f "$CONTAINER" >/dev/null 2>&1 || true
rm -rf "$SECRETS"

if [ "$code" -eq 0 ] && [ -s "$WORK/out/manifest.json" ]; then
  # Artifacts first, manifest last: a manifest in S3 means every file it names is already there.
  aws s3 cp --only-show-errors --recursive "$WORK/out/${COMPILED_ARTIFACTS_DIR}" "\${DEST}${COMPILED_ARTIFACTS_DIR}" >>"$LOG" 2>&1 \\
    || fail error "could not upload the compiled artifacts to \${DEST}${COMPILED_ARTIFACTS_DIR}" 1
${stageStep}  aws s3 cp --only-show-errors "$WORK/out/manifest.json" "\${DEST}manifest.json" >>"$LOG" 2>&1 \\
    || fail error "could not upload the manifest to $DEST" 1
  aws s3 cp --only-show-errors "$LOG" "\${ATTEMPT_DEST}compile.log" || true
  exit 0
fi
if [ "$code" -eq 124 ] || [ "$elapsed" -ge "$TIMEOUT_SECONDS" ]; then
  fail timeout "the compile ran longer than its timeout of $TIMEOUT_SECONDS s; raise the timeout or compile with the CLI" "$code"
fi
if [ "$code" -eq 137 ]; then
  fail out-of-memory "the compile was killed for memory (exit 137): the model needs more host RAM than $INSTANCE_TYPE has; set a larger compile instance type of the plan's family" "$code"
fi
fail error "the compile exited $code; see \${ATTEMPT_DEST}compile.log" "$code"
`;
}
