/**
 * The compile host's boot script (EC2 user data), rendered per launch.
 *
 * It downloads the source model and the compile script (checking the script's SHA-256), runs the compile in the
 * DLAMI's PyTorch Neuron virtual environment under a timeout, and uploads the result: every artifact first and
 * `manifest.json` last, so a manifest in S3 always means a complete artifact (the job's cache and completion
 * signal). On failure it uploads `attempts/<attempt>/failure.json` saying why (out of memory on exit 137, the
 * timeout, or the compile script's own record), and the log. Whatever happens it powers off; the instance is
 * launched with shutdown behaviour `terminate`, so nothing is left running.
 */
import { canonicalJson } from './hash';
import type { CompileSpec, NeuronChip } from './spec';

/** What the boot script needs; the job fills it in for each launch. */
export interface BootScriptConfig {
  readonly region: string;
  readonly bucket: string;
  /** Key prefix of this artifact, `<prefix><hash>/`. */
  readonly artifactPrefix: string;
  /** Identifies this launch: failure records and logs go under `attempts/<attemptId>/`. */
  readonly attemptId: string;
  /** The instance type launched, for the out-of-memory message. */
  readonly instanceType: string;
  /** `s3://` URI of `compile.py`. */
  readonly scriptS3Uri: string;
  /** SHA-256 (hex) the downloaded script must have. */
  readonly scriptSha256: string;
  readonly spec: CompileSpec;
  /** Content hash of spec and script, written into the manifest. */
  readonly hash: string;
  /** Longest the compile may run before it is stopped and recorded as a timeout. */
  readonly timeoutSeconds: number;
}

/**
 * Where the DLAMI keeps its PyTorch Neuron virtual environments, per chip (the newest match is used).
 * UNVERIFIED: the names follow the Neuron DLAMI guide's `aws_neuronx_venv_pytorch_<version>` (Inf2/Trn1) and
 * `aws_neuron_venv_pytorch` (Inf1) pattern; the script fails with a record naming the pattern if none matches.
 */
export const VENV_GLOBS: Readonly<Record<NeuronChip, string>> = {
  inf1: '/opt/aws_neuron_venv_pytorch*',
  inf2: '/opt/aws_neuronx_venv_pytorch_[0-9]*',
  trn1: '/opt/aws_neuronx_venv_pytorch_[0-9]*',
};

/** A value as one single-quoted shell word. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

const SAFE = /^[A-Za-z0-9._\-/:+=@]*$/;

function problems(config: BootScriptConfig): string[] {
  const out: string[] = [];
  for (const [field, value] of [['instanceType', config.instanceType], ['attemptId', config.attemptId], ['bucket', config.bucket],
    ['artifactPrefix', config.artifactPrefix], ['region', config.region]] as const) {
    // These go into JSON written by the shell as well as into shell words: keep them to characters neither quotes.
    if (!SAFE.test(value)) {
      out.push(`boot script: ${field}=${JSON.stringify(value)} has characters outside [A-Za-z0-9._-/:+=@]`);
    }
  }
  if (!/^[0-9a-f]{64}$/.test(config.scriptSha256)) {
    out.push(`boot script: scriptSha256=${JSON.stringify(config.scriptSha256)} is not a SHA-256 hex digest`);
  }
  if (!Number.isInteger(config.timeoutSeconds) || config.timeoutSeconds <= 0) {
    out.push(`boot script: timeoutSeconds=${config.timeoutSeconds} must be a positive integer`);
  }
  return out;
}

/** The source download step for the spec's source kind. */
function sourceStep(spec: CompileSpec): string {
  if ('hubModelId' in spec.source) {
    return '# The compile script downloads the Hub model itself (the host needs internet access).\nmkdir -p "$WORK/source"';
  }
  if (spec.source.format === 'torchscript') {
    return `mkdir -p "$WORK/source"\naws s3 cp --only-show-errors ${shellQuote(spec.source.s3Uri)} "$WORK/source/model.pt"`;
  }
  return `aws s3 cp --only-show-errors --recursive ${shellQuote(spec.source.s3Uri)} "$WORK/source/"`;
}

/**
 * Renders the boot script for one launch.
 *
 * @throws Error when a value would not be safe in the script (the job builds every value; this guards its code)
 */
export function renderBootScript(config: BootScriptConfig): string {
  const found = problems(config);
  if (found.length > 0) {
    throw new Error(found.join('; '));
  }
  const specJson = canonicalJson(config.spec);
  if (specJson.includes('CDK_INFERENTIA_SPEC')) {
    throw new Error('boot script: the spec contains the heredoc delimiter CDK_INFERENTIA_SPEC');
  }
  // The instance powers itself off this long after boot even if the script hangs: the timeout plus download time.
  const powerOffMinutes = Math.ceil(config.timeoutSeconds / 60) + 20;
  return `#!/bin/bash
# cdk-inferentia compile host (rendered by lib/compile/boot-script.ts). Runs once at first boot as root.
set -uo pipefail

readonly REGION=${shellQuote(config.region)}
readonly BUCKET=${shellQuote(config.bucket)}
readonly ARTIFACTS=${shellQuote(config.artifactPrefix)}
readonly ATTEMPT=${shellQuote(config.attemptId)}
readonly INSTANCE_TYPE=${shellQuote(config.instanceType)}
readonly SCRIPT_URI=${shellQuote(config.scriptS3Uri)}
readonly SCRIPT_SHA256=${shellQuote(config.scriptSha256)}
readonly HASH=${shellQuote(config.hash)}
readonly TIMEOUT_SECONDS=${config.timeoutSeconds}
readonly VENV_GLOB=${shellQuote(VENV_GLOBS[config.spec.chip])}
readonly WORK="\${CDK_INFERENTIA_WORK:-/var/lib/cdk-inferentia-compile}"
readonly DEST="s3://$BUCKET/$ARTIFACTS"
readonly ATTEMPT_DEST="\${DEST}attempts/$ATTEMPT/"
export AWS_DEFAULT_REGION="$REGION"

# Launched with shutdown behaviour terminate: powering off ends the instance and its billing. A scheduled power-off
# bounds a hung script; the trap ends the instance as soon as the script is done, whatever the outcome.
shutdown -h "+${powerOffMinutes}" || true
trap 'shutdown -h now' EXIT

mkdir -p "$WORK/out"
readonly LOG="$WORK/compile.log"
touch "$LOG"

# Uploads the log and a failure record the job turns into the CloudFormation event's reason.
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

cat >"$WORK/spec.json" <<'CDK_INFERENTIA_SPEC'
${specJson}
CDK_INFERENTIA_SPEC

if ! aws s3 cp --only-show-errors "$SCRIPT_URI" "$WORK/compile.py" >>"$LOG" 2>&1; then
  fail error "could not download the compile script from $SCRIPT_URI" 1
fi
if ! echo "$SCRIPT_SHA256  $WORK/compile.py" | sha256sum -c --status; then
  fail error "the compile script at $SCRIPT_URI is not the one this job was made with (SHA-256 differs)" 1
fi
if ! { ${sourceStep(config.spec).split('\n').join('\n  ')}; } >>"$LOG" 2>&1; then
  fail error "could not download the source model; check the source s3Uri and the compile role's read access" 1
fi

PYTHON=python3
venv=""
for candidate in $VENV_GLOB; do
  [ -x "$candidate/bin/python3" ] && venv="$candidate"
done
if [ -n "$venv" ]; then
  PYTHON="$venv/bin/python3"
else
  # The compile script then reports, in its failure record, which Neuron package it could not import.
  echo "no virtual environment matches $VENV_GLOB; using python3 from PATH" >>"$LOG"
fi

started=$(date +%s)
timeout --kill-after=60 "$TIMEOUT_SECONDS" "$PYTHON" "$WORK/compile.py" --spec "$WORK/spec.json" --hash "$HASH" \\
  --source "$WORK/source" --out "$WORK/out" --instance-type "$INSTANCE_TYPE" >>"$LOG" 2>&1
code=$?
elapsed=$(( $(date +%s) - started ))

if [ "$code" -eq 0 ] && [ -s "$WORK/out/manifest.json" ]; then
  # Artifacts first, manifest last: a manifest in S3 means every file it names is already there.
  aws s3 cp --only-show-errors --recursive --exclude manifest.json --exclude failure.json "$WORK/out/" "$DEST" >>"$LOG" 2>&1 \\
    || fail error "could not upload the artifacts to $DEST" 1
  aws s3 cp --only-show-errors "$WORK/out/manifest.json" "\${DEST}manifest.json" >>"$LOG" 2>&1 \\
    || fail error "could not upload the manifest to $DEST" 1
  aws s3 cp --only-show-errors "$LOG" "\${ATTEMPT_DEST}compile.log" || true
  exit 0
fi
if [ "$code" -eq 124 ] || [ "$elapsed" -ge "$TIMEOUT_SECONDS" ]; then
  fail timeout "the compile ran longer than its timeout of $TIMEOUT_SECONDS s; raise the timeout or compile with the CLI (cdk-inferentia compile)" "$code"
fi
if [ "$code" -eq 137 ]; then
  fail out-of-memory "the compiler was killed for memory (exit 137, SIGKILL): the model needs more RAM than $INSTANCE_TYPE has; set a larger compile instance type" "$code"
fi
if [ "$code" -eq 0 ]; then
  fail error "the compile script exited 0 without writing manifest.json" 1
fi
fail error "the compile script exited $code; see \${ATTEMPT_DEST}compile.log" "$code"
`;
}
