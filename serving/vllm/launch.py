"""Starts `vllm serve` with the arguments the hosting rendered from the plan (lib/generative/engine-image.ts).

They arrive as a JSON array of strings in CDK_INFERENTIA_VLLM_ARGS: SageMaker containers take an environment but no
command, so the environment is the one channel SageMaker and ECS share. The array goes to vllm unchanged, without a
shell, so no quoting can change it. The launcher replaces itself with vllm (exec): signals reach the engine directly.
"""
import glob
import json
import os
import shutil
import subprocess
import sys

from serving.vllm import cores_seen, pool_header

ARGS_ENV = "CDK_INFERENTIA_VLLM_ARGS"

# Where a copy's NeuronCores come from, and what decides how many it gets: on SageMaker the inference component's
# NumberOfAcceleratorDevicesRequired (the API does not say whether it counts chips or cores), on ECS the devices the
# task maps. The check below makes the first deploy tell, on Inf2, Trn1 and Trn2 alike.
DEVICE_SETTING = ("NumberOfAcceleratorDevicesRequired (SageMaker inference component) or the task's "
                  "/dev/neuronN device mappings (ECS)")


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


def tensor_parallel_size(args):
    """The `--tensor-parallel-size` the plan rendered (1 when absent, vLLM's default)."""
    for i, arg in enumerate(args):
        if arg.startswith("--tensor-parallel-size="):
            return int(arg.split("=", 1)[1])
        if arg == "--tensor-parallel-size" and i + 1 < len(args):
            return int(args[i + 1])
    return 1


def count_cores(spec):
    """Cores in a NEURON_RT_VISIBLE_CORES value such as `0-3,8`."""
    total = 0
    for part in spec.split(","):
        part = part.strip()
        if not part:
            continue
        low, _, high = part.partition("-")
        total += int(high or low) - int(low) + 1
    return total


def neuron_ls_cores(run=subprocess.run):
    """NeuronCores `neuron-ls -j` reports (the sum of each device's `nc_count`), or None without neuron-ls."""
    tool = shutil.which("neuron-ls") or ("/opt/aws/neuron/bin/neuron-ls" if os.path.exists("/opt/aws/neuron/bin/neuron-ls") else None)
    if not tool:
        return None
    try:
        devices = json.loads(run([tool, "-j"], capture_output=True, text=True, timeout=30, check=True).stdout)
    except (OSError, ValueError, subprocess.SubprocessError):
        return None
    return sum(int(device.get("nc_count", 0)) for device in devices)


def visible_cores(environ, neuron_ls=neuron_ls_cores, devices=lambda: glob.glob("/dev/neuron[0-9]*")):
    """(cores this copy sees, how they were counted), or (None, why not) when nothing tells."""
    if environ.get("NEURON_RT_VISIBLE_CORES"):
        return count_cores(environ["NEURON_RT_VISIBLE_CORES"]), "NEURON_RT_VISIBLE_CORES"
    cores = neuron_ls()
    if cores is not None:
        return cores, "neuron-ls"
    found = devices()
    per_device = environ.get("CDK_INFERENTIA_CORES_PER_DEVICE")
    if found and per_device:
        return len(found) * int(per_device), f"{len(found)} /dev/neuron devices x {per_device} cores"
    return None, f"{len(found)} /dev/neuron devices and neither neuron-ls nor CDK_INFERENTIA_CORES_PER_DEVICE"


def core_problem(args, environ, **probes):
    """The message of a copy that sees fewer NeuronCores than its tensor-parallel degree needs; None when it sees enough."""
    needed = tensor_parallel_size(args)
    seen, how = visible_cores(environ, **probes)
    if seen is None or seen >= needed:
        return None
    return (f"this copy sees {seen} NeuronCores ({how}) but --tensor-parallel-size={needed} needs {needed}: "
            f"raise {DEVICE_SETTING} so each copy gets {needed} cores (SageMaker may count chips, not cores)")


def with_cores_seen(args, environ, seen, how):
    """The arguments with the middleware that adds the cores seen to /metrics, the count put in `environ` for it.

    The token proof reads them from each copy (serving/vllm/cores_seen.py); nothing is added when nothing was counted.
    """
    if seen is None:
        return args
    environ[cores_seen.SEEN_ENV] = str(seen)
    environ[cores_seen.NEEDED_ENV] = str(tensor_parallel_size(args))
    environ[cores_seen.SOURCE_ENV] = how
    flag = f"--middleware={cores_seen.MIDDLEWARE}"
    return args if flag in args else [*args, flag]


def with_pool_header(args, environ):
    """The arguments with the middleware that names the instance pool in every answer, when the copy is in one."""
    flag = f"--middleware={pool_header.MIDDLEWARE}"
    if pool_header.pool_of(environ) is None or flag in args:
        return args
    return [*args, flag]


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
    problem = core_problem(args, os.environ)
    if problem:
        # Exit before the engine loads: the copy never answers /ping, so its health check fails with this in its log.
        print(f"cdk-inferentia vllm launcher: {problem}", file=sys.stderr, flush=True)
        return 78  # EX_CONFIG
    seen, how = visible_cores(os.environ)
    print(f"cdk-inferentia vllm launcher: NeuronCores seen={seen} ({how}) needed={tensor_parallel_size(args)}",
          file=sys.stderr, flush=True)
    args = with_pool_header(with_cores_seen(args, os.environ, seen, how), os.environ)
    line = command(args)
    print(f"cdk-inferentia vllm launcher: {' '.join(line)}", file=sys.stderr, flush=True)
    os.execvp(line[0], line)
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
