/**
 * The compile host's boot script (EC2 user data), rendered per launch.
 *
 * The frame every compile host shares is lib/compile/host.ts (download and check the program, run it under a
 * timeout, upload with the manifest last, record failures, power off). This engine adds the source model's download
 * and running `compile.py` in the DLAMI's PyTorch Neuron virtual environment.
 */
import { canonicalJson } from './hash';
import { renderCompileHostScript, shellQuote, type CompileHostConfig } from './host';
import type { CompileSpec, CompileChip } from './spec';

export { shellQuote };

/** What the boot script needs; the job fills it in for each launch. */
export interface BootScriptConfig extends CompileHostConfig {
  readonly spec: CompileSpec;
  /** Content hash of spec and script, written into the manifest. */
  readonly hash: string;
}

/**
 * Where the DLAMI keeps its PyTorch Neuron virtual environments, per chip (the newest match is used).
 * UNVERIFIED: the names follow the Neuron DLAMI guide's `aws_neuronx_venv_pytorch_<version>` (Inf2/Trn1) and
 * `aws_neuron_venv_pytorch` (Inf1) pattern; the script fails with a record naming the pattern if none matches.
 */
export const VENV_GLOBS: Readonly<Record<CompileChip, string>> = {
  inf1: '/opt/aws_neuron_venv_pytorch*',
  inf2: '/opt/aws_neuronx_venv_pytorch_[0-9]*',
  trn1: '/opt/aws_neuronx_venv_pytorch_[0-9]*',
};

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
  return renderCompileHostScript(config, {
    label: 'boot script',
    title: 'compile host (rendered by lib/compile/boot-script.ts)',
    safeFields: [],
    problems: [],
    variables: [['HASH', shellQuote(config.hash)], ['VENV_GLOB', shellQuote(VENV_GLOBS[config.spec.chip])]],
    powerOffMarginMinutes: 20,
    directories: ['out'],
    files: [['$WORK/spec.json', 'CDK_INFERENTIA_SPEC', canonicalJson(config.spec)]],
    program: { path: '$WORK/compile.py', noun: 'compile script' },
    inputs: `if ! { ${sourceStep(config.spec).split('\n').join('\n  ')}; } >>"$LOG" 2>&1; then
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
fi`,
    run: `"$PYTHON" "$WORK/compile.py" --spec "$WORK/spec.json" --hash "$HASH" \\
  --source "$WORK/source" --out "$WORK/out" --instance-type "$INSTANCE_TYPE"`,
    uploads: `  aws s3 cp --only-show-errors --recursive --exclude manifest.json --exclude failure.json "$WORK/out/" "$DEST" >>"$LOG" 2>&1 \\
    || fail error "could not upload the artifacts to $DEST" 1`,
    timeoutHint: ' (cdk-inferentia compile)',
    outOfMemory: 'the compiler was killed for memory (exit 137, SIGKILL): the model needs more RAM than $INSTANCE_TYPE has; set a larger compile instance type',
    ran: 'compile script',
  });
}
