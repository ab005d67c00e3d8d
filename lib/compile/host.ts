/**
 * The compile host: which instance types to launch for a spec, largest RAM need first, the job's time limits, and the
 * boot script (EC2 user data) it runs, one frame for every engine.
 *
 * What every compile host does is in {@link renderCompileHostScript}: power off whatever happens (the instance is
 * launched with shutdown behaviour `terminate`), write the job's files, download the compile program and check its
 * SHA-256, run it under a timeout, upload the artifacts with `manifest.json` last (so a manifest in S3 always means a
 * complete artifact: the job's cache and completion signal), and on failure upload `attempts/<attempt>/failure.json`
 * saying why (the timeout, out of memory on exit 137, or the program's own record) and the log. An engine gives only
 * what differs ({@link CompileHostEngine}): its variables, the steps that fetch its inputs, the command that runs the
 * compile, what it uploads before the manifest and how it names a failure. The single-call engine runs `compile.py`
 * in the DLAMI's virtual environment (./boot-script.ts); the generative engine runs the serving image's own compile
 * in Docker (./generative-script.ts).
 */
import { BUILT_IN_INSTANCES } from '../catalog/instances';
import type { InstanceSpec } from '../catalog/types';
import { InputError } from '../errors';
import { chipOfFamily, type CompileSpec } from './spec';

/**
 * Host RAM a compile needs for a model whose weights take `modelSizeGiB` on disk.
 *
 * UNVERIFIED rule of thumb: 4 GiB for the OS, Python and the compiler, plus 6 times the FP32 weights for the traced
 * graph, the compiler's intermediate copies and the CPU reference run. The compiler killed for memory (exit -9,
 * aws-neuron-sdk#431) is the failure it guards against; the host picked has 1.5 times this.
 */
export function compileRamGiB(modelSizeGiB: number): number {
  return 4 + 6 * modelSizeGiB;
}

/** Headroom of host RAM over {@link compileRamGiB}: "well above", because an out-of-memory compile wastes its hour. */
export const HOST_RAM_HEADROOM = 1.5;

/** How many instance types the job tries, in order, when EC2 has no capacity for the first. */
export const FALLBACK_TYPES = 2;

/**
 * Instance types to launch for `spec`, in the order tried on `InsufficientInstanceCapacity`: the smallest of the
 * target chip's families with {@link HOST_RAM_HEADROOM} x the RAM the compile needs, then the next larger ones. On
 * the target chip, so the compile script can measure the artifact into a profile.
 *
 * @param override instance types to use instead, as given (tried in order)
 */
export function compileHostTypes(spec: CompileSpec, modelSizeGiB: number, override?: readonly string[]): string[] {
  if (override !== undefined && override.length > 0) {
    return [...override];
  }
  const needed = compileRamGiB(modelSizeGiB) * HOST_RAM_HEADROOM;
  const candidates = BUILT_IN_INSTANCES
    .filter((i: InstanceSpec) => chipOfFamily(i.family) === spec.chip && i.family !== 'trn1n')
    .filter((i) => i.memoryGiB >= needed)
    .sort((a, b) => a.memoryGiB - b.memoryGiB || a.vcpus - b.vcpus);
  return candidates.slice(0, 1 + FALLBACK_TYPES).map((i) => i.name);
}

/**
 * SSM public parameter of the CPU compile host's AMI: the ECS-optimized Amazon Linux 2023 AMI (Docker, no Neuron
 * driver: the CPU compile needs no device).
 */
export const CPU_COMPILE_HOST_AMI_PARAMETER = '/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id';

/**
 * Memory-optimized CPU hosts for the compile (EC2 "Memory optimized instances": R7i, 8 GiB per vCPU), smallest first:
 * vCPUs run neuronx-cc on several buckets at once, memory holds the checkpoint while the graph is captured.
 */
export const CPU_COMPILE_HOSTS: readonly { readonly name: string; readonly vcpus: number; readonly memoryGiB: number }[] = [
  { name: 'r7i.4xlarge', vcpus: 16, memoryGiB: 128 },
  { name: 'r7i.8xlarge', vcpus: 32, memoryGiB: 256 },
  { name: 'r7i.12xlarge', vcpus: 48, memoryGiB: 384 },
  { name: 'r7i.16xlarge', vcpus: 64, memoryGiB: 512 },
  { name: 'r7i.24xlarge', vcpus: 96, memoryGiB: 768 },
  { name: 'r7i.48xlarge', vcpus: 192, memoryGiB: 1536 },
];

/**
 * Host memory a CPU compile needs: the checkpoint read once and sharded (twice the weights), plus 32 GiB for the
 * compiler workers. ESTIMATE (UNVERIFIED): the plugin docs state no figure; an out-of-memory compile is what it avoids.
 */
export function cpuCompileMemoryGiB(weightsGiB: number): number {
  return 2 * weightsGiB + 32;
}

/**
 * The CPU instance types to try for a model of `weightsGiB`, in order: the smallest R7i with the memory, then the next
 * larger one (EC2 capacity fallback).
 *
 * @throws InputError when no R7i size holds the model
 */
export function cpuCompileHostTypes(weightsGiB: number): string[] {
  const needed = cpuCompileMemoryGiB(weightsGiB);
  const fit = CPU_COMPILE_HOSTS.filter((h) => h.memoryGiB >= needed);
  if (fit.length === 0) {
    throw new InputError(`a CPU compile of ${Math.round(weightsGiB)} GiB of weights needs about ${Math.round(needed)} GiB of host memory, `
      + `more than ${CPU_COMPILE_HOSTS[CPU_COMPILE_HOSTS.length - 1].name} has; pass compileInstanceTypes`);
  }
  return fit.slice(0, 2).map((h) => h.name);
}

/**
 * Longest a CloudFormation custom resource may wait: CloudFormation's one-hour limit, less what the Provider
 * framework and the instance's boot take. A compile allowed longer is refused at synth with the CLI route.
 */
export const MAX_CUSTOM_RESOURCE_COMPILE_MINUTES = 50;

/** SSM public parameter of the Neuron DLAMI the compile host boots, per chip (Neuron DLAMI guide, SSM parameters). */
export const DLAMI_PARAMETERS = {
  inf1: '/aws/service/neuron/dlami/pytorch-1.13-inf1/ubuntu-22.04/latest/image_id',
  inf2: '/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id',
  trn1: '/aws/service/neuron/dlami/multi-framework/ubuntu-24.04/latest/image_id',
} as const;

/** A value as one single-quoted shell word. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'"'"'`)}'`;
}

/** The characters a value may have to go both into shell words and into JSON the shell writes. */
const SAFE = /^[A-Za-z0-9._\-/:+=@]*$/;

/** What every compile host is told; the job fills it in for each launch. */
export interface CompileHostConfig {
  readonly region: string;
  readonly bucket: string;
  /** Key prefix of this artifact, `<prefix><hash>/`. */
  readonly artifactPrefix: string;
  /** Identifies this launch: failure records and logs go under `attempts/<attemptId>/`. */
  readonly attemptId: string;
  /** The instance type launched, for the out-of-memory message. */
  readonly instanceType: string;
  /** `s3://` URI of the compile program. */
  readonly scriptS3Uri: string;
  /** SHA-256 (hex) the downloaded program must have. */
  readonly scriptSha256: string;
  /** Longest the compile may run before it is stopped and recorded as a timeout. */
  readonly timeoutSeconds: number;
}

/** What one engine's compile host adds to the frame. */
export interface CompileHostEngine {
  /** Names the script in its errors, e.g. `boot script`. */
  readonly label: string;
  /** The script's first comment, after `# cdk-inferentia `. */
  readonly title: string;
  /** Values checked against the safe characters besides the frame's own (`undefined` is skipped). */
  readonly safeFields: ReadonlyArray<readonly [string, string | undefined]>;
  /** Problems of the engine's own values. */
  readonly problems: readonly string[];
  /** The engine's `readonly` variables, each value already a shell word. */
  readonly variables: ReadonlyArray<readonly [string, string]>;
  /** Lines after the variables and the region export. @default - none */
  readonly declarations?: string;
  /** Minutes past the timeout before the scheduled power-off: download and upload time. */
  readonly powerOffMarginMinutes: number;
  /** Commands the EXIT trap runs before powering off, each ending in `; `. @default - none */
  readonly onExit?: string;
  /** Lines after the trap. @default - none */
  readonly setup?: string;
  /** Folders created under `$WORK`. */
  readonly directories: readonly string[];
  /** Files written from the job's values: path, heredoc delimiter, content. */
  readonly files: ReadonlyArray<readonly [string, string, string]>;
  /** Where the program is saved, and what it is called in failure reasons (`compile script`). */
  readonly program: { readonly path: string; readonly noun: string };
  /** Steps between the program's download and the compile (inputs, images, devices). */
  readonly inputs: string;
  /** The compile command, run under `timeout`: it follows `timeout --kill-after=60 "$TIMEOUT_SECONDS" `. */
  readonly run: string;
  /** Lines after the compile returned, before its outcome is judged. @default - none */
  readonly afterRun?: string;
  /** Upload commands before the manifest, each indented by two spaces. */
  readonly uploads: string;
  /** Said after "raise the timeout or compile with the CLI" on a timeout. @default - nothing */
  readonly timeoutHint?: string;
  /** The out-of-memory reason. */
  readonly outOfMemory: string;
  /** What ran, in the last failure reason: `the <ran> exited $code`. */
  readonly ran: string;
}

/** A file written from a heredoc, refused when its content holds the delimiter. */
function heredoc(label: string, path: string, delimiter: string, body: string): string {
  if (body.includes(delimiter)) {
    throw new Error(`${label}: the content of ${path} contains its heredoc delimiter ${delimiter}`);
  }
  return `cat >"${path}" <<'${delimiter}'\n${body}\n${delimiter}`;
}

function problems(config: CompileHostConfig, engine: CompileHostEngine): string[] {
  const out: string[] = [];
  const fields: Array<readonly [string, string | undefined]> = [['instanceType', config.instanceType], ['attemptId', config.attemptId],
    ['bucket', config.bucket], ['artifactPrefix', config.artifactPrefix], ['region', config.region], ...engine.safeFields];
  for (const [field, value] of fields) {
    // These go into JSON written by the shell as well as into shell words: keep them to characters neither quotes.
    if (value !== undefined && !SAFE.test(value)) {
      out.push(`${engine.label}: ${field}=${JSON.stringify(value)} has characters outside [A-Za-z0-9._-/:+=@]`);
    }
  }
  out.push(...engine.problems);
  if (!/^[0-9a-f]{64}$/.test(config.scriptSha256)) {
    out.push(`${engine.label}: scriptSha256=${JSON.stringify(config.scriptSha256)} is not a SHA-256 hex digest`);
  }
  if (!Number.isInteger(config.timeoutSeconds) || config.timeoutSeconds <= 0) {
    out.push(`${engine.label}: timeoutSeconds=${config.timeoutSeconds} must be a positive integer`);
  }
  return out;
}

/**
 * Renders one engine's compile host script for one launch.
 *
 * @throws Error when a value would not be safe in the script (the job builds every value; this guards its code)
 */
export function renderCompileHostScript(config: CompileHostConfig, engine: CompileHostEngine): string {
  const found = problems(config, engine);
  if (found.length > 0) {
    throw new Error(found.join('; '));
  }
  const files = engine.files.map(([path, delimiter, body]) => heredoc(engine.label, path, delimiter, body)).join('\n');
  // The instance powers itself off this long after boot even if the script hangs: the timeout plus transfer time.
  const powerOffMinutes = Math.ceil(config.timeoutSeconds / 60) + engine.powerOffMarginMinutes;
  const { path, noun } = engine.program;
  const lines = (text: string | undefined) => (text === undefined ? '' : `${text}\n`);
  return `#!/bin/bash
# cdk-inferentia ${engine.title}. Runs once at first boot as root.
set -uo pipefail

readonly REGION=${shellQuote(config.region)}
readonly BUCKET=${shellQuote(config.bucket)}
readonly ARTIFACTS=${shellQuote(config.artifactPrefix)}
readonly ATTEMPT=${shellQuote(config.attemptId)}
readonly INSTANCE_TYPE=${shellQuote(config.instanceType)}
readonly SCRIPT_URI=${shellQuote(config.scriptS3Uri)}
readonly SCRIPT_SHA256=${shellQuote(config.scriptSha256)}
readonly TIMEOUT_SECONDS=${config.timeoutSeconds}
readonly WORK="\${CDK_INFERENTIA_WORK:-/var/lib/cdk-inferentia-compile}"
readonly DEST="s3://$BUCKET/$ARTIFACTS"
readonly ATTEMPT_DEST="\${DEST}attempts/$ATTEMPT/"
${engine.variables.map(([name, value]) => `readonly ${name}=${value}\n`).join('')}export AWS_DEFAULT_REGION="$REGION"
${lines(engine.declarations)}
# Launched with shutdown behaviour terminate: powering off ends the instance and its billing. A scheduled power-off
# bounds a hung script; the trap ends the instance as soon as the script is done, whatever the outcome.
shutdown -h "+${powerOffMinutes}" || true
trap '${engine.onExit ?? ''}shutdown -h now' EXIT
${lines(engine.setup)}
mkdir -p ${engine.directories.map((d) => `"$WORK/${d}"`).join(' ')}
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

${files}

if ! aws s3 cp --only-show-errors "$SCRIPT_URI" "${path}" >>"$LOG" 2>&1; then
  fail error "could not download the ${noun} from $SCRIPT_URI" 1
fi
if ! echo "$SCRIPT_SHA256  ${path}" | sha256sum -c --status; then
  fail error "the ${noun} at $SCRIPT_URI is not the one this job was made with (SHA-256 differs)" 1
fi
${engine.inputs}

started=$(date +%s)
timeout --kill-after=60 "$TIMEOUT_SECONDS" ${engine.run} >>"$LOG" 2>&1
code=$?
elapsed=$(( $(date +%s) - started ))
${lines(engine.afterRun)}
if [ "$code" -eq 0 ] && [ -s "$WORK/out/manifest.json" ]; then
  # Artifacts first, manifest last: a manifest in S3 means every file it names is already there.
${engine.uploads}
  aws s3 cp --only-show-errors "$WORK/out/manifest.json" "\${DEST}manifest.json" >>"$LOG" 2>&1 \\
    || fail error "could not upload the manifest to $DEST" 1
  aws s3 cp --only-show-errors "$LOG" "\${ATTEMPT_DEST}compile.log" || true
  exit 0
fi
if [ "$code" -eq 124 ] || [ "$elapsed" -ge "$TIMEOUT_SECONDS" ]; then
  fail timeout "the compile ran longer than its timeout of $TIMEOUT_SECONDS s; raise the timeout or compile with the CLI${engine.timeoutHint ?? ''}" "$code"
fi
if [ "$code" -eq 137 ]; then
  fail out-of-memory "${engine.outOfMemory}" "$code"
fi
if [ "$code" -eq 0 ]; then
  fail error "the ${noun} exited 0 without writing manifest.json" 1
fi
fail error "the ${engine.ran} exited $code; see \${ATTEMPT_DEST}compile.log" "$code"
`;
}
