"""Starts `vllm serve` with the arguments the hosting rendered from the plan (lib/generative/engine-image.ts).

They arrive as a JSON array of strings in CDK_INFERENTIA_VLLM_ARGS: SageMaker containers take an environment but no
command, so the environment is the one channel SageMaker and ECS share. The array goes to vllm unchanged, without a
shell, so no quoting can change it. The launcher replaces itself with vllm (exec): signals reach the engine directly.
"""
import json
import os
import shutil
import sys

ARGS_ENV = "CDK_INFERENTIA_VLLM_ARGS"


def serve_arguments(environ):
    """The arguments after `vllm serve`; raises ValueError naming the variable and the fix."""
    raw = environ.get(ARGS_ENV)
    if not raw:
        raise ValueError(f"{ARGS_ENV} is not set: the hosting passes the vllm serve arguments rendered from the plan "
                         "(vllmContainerEnvironment in cdk-inferentia) as a JSON array of strings")
    try:
        args = json.loads(raw)
    except ValueError as error:
        raise ValueError(f"{ARGS_ENV} is not JSON ({error}): expected an array of strings") from None
    if not isinstance(args, list) or not args or not all(isinstance(arg, str) for arg in args):
        raise ValueError(f"{ARGS_ENV}={raw[:200]} is not a non-empty JSON array of strings")
    return args


def command(args, which=shutil.which, python=sys.executable):
    """The command line: the `vllm` console script, or its module when the script is not on PATH."""
    if which("vllm"):
        return ["vllm", "serve", *args]
    return [python, "-m", "vllm.entrypoints.cli.main", "serve", *args]


def main():
    try:
        args = serve_arguments(os.environ)
    except ValueError as error:
        print(f"cdk-inferentia vllm launcher: {error}", file=sys.stderr)
        return 64  # EX_USAGE: a configuration error, not a crash to retry
    line = command(args)
    print(f"cdk-inferentia vllm launcher: {' '.join(line)}", file=sys.stderr, flush=True)
    os.execvp(line[0], line)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
