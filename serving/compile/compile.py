"""Compiles a model for a Neuron chip on the compile host, checks it against CPU, and writes manifest.json.

Run by the compile host's boot script (lib/compile/boot-script.ts) inside the DLAMI's PyTorch Neuron virtual
environment:

    python3 compile.py --spec spec.json --hash HASH --source DIR --out DIR --instance-type inf2.xlarge

For each batch size of the spec it traces the model with torch_neuronx.trace (Inf2, Trn1) or torch.neuron.trace
(Inf1) at the spec's fixed shape, runs the traced model and the CPU model on the same input and compares the first
output within the spec's tolerance, and saves the artifact (`model.pt` for one batch size, else `model-b<N>.pt`,
plus the tokenizer for text models). When the host has the target chip (/dev/neuron0) it also measures each artifact
and writes profile.json in the planner's profile format (docs/profile-format.md). manifest.json is written last.

Failures leave `failure.json` in the output directory (the boot script uploads it) and a distinct exit code:
137 compiler killed for memory, 3 unsupported operators, 4 accuracy, 2 anything else. The spec format and the
manifest fields are the contract in lib/compile/spec.ts and lib/compile/manifest.ts.
"""
import argparse
import hashlib
import importlib
import json
import os
import re
import resource
import subprocess
import sys
import time

MANIFEST_FORMAT_VERSION = 1
EXIT_ERROR = 2
EXIT_UNSUPPORTED = 3
EXIT_ACCURACY = 4
EXIT_OUT_OF_MEMORY = 137
CORE_VERSION = {"inf1": "v1", "inf2": "v2", "trn1": "v2"}
TEXT_TASKS = ("feature-extraction", "text-classification")
MEASURE_WARMUP = 10
MEASURE_CALLS = 200


class CompileFailure(Exception):
    """A failure with its kind, the sentence users read, and the exit code the boot script classifies."""

    def __init__(self, kind, reason, exit_code, operators=None):
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        self.exit_code = exit_code
        self.operators = operators or []


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_sha256(spec, source_dir):
    """Hash of the source files as read (names and bytes), or of the Hub id and revision for a Hub model."""
    digest = hashlib.sha256()
    source = spec["source"]
    if "hubModelId" in source:
        digest.update(f"hub:{source['hubModelId']}@{source.get('revision', 'main')}".encode())
        return digest.hexdigest()
    for root, dirs, files in os.walk(source_dir):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(root, name)
            digest.update(os.path.relpath(path, source_dir).encode() + b"\0")
            digest.update(sha256_file(path).encode())
    return digest.hexdigest()


def version_of(*packages):
    from importlib import metadata

    for package in packages:
        try:
            return metadata.version(package)
        except metadata.PackageNotFoundError:
            continue
    return "unknown"


def runtime_version():
    """The Neuron runtime package (a Debian or RPM package on the DLAMI, not a pip one)."""
    for command in (["dpkg-query", "-W", "-f=${Version}", "aws-neuronx-runtime-lib"],
                    ["rpm", "-q", "--qf", "%{VERSION}", "aws-neuronx-runtime-lib"]):
        try:
            out = subprocess.run(command, capture_output=True, text=True, timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    return "unknown"


def import_framework(chip):
    """torch and the tracing module for the chip; a clear failure when the environment lacks them."""
    name = "torch_neuron" if chip == "inf1" else "torch_neuronx"
    try:
        torch = importlib.import_module("torch")
        neuron = importlib.import_module(name)
    except ImportError as e:
        raise CompileFailure("error", f"{name} is not importable in {sys.executable} ({e}); use a Neuron DLAMI whose "
                             f"PyTorch Neuron environment matches chip {chip}", EXIT_ERROR) from e
    return torch, neuron


def load_model(spec, source_dir, torch):
    """The CPU model and, for text tasks, its tokenizer."""
    source = spec["source"]
    if source.get("format") == "torchscript":
        return torch.jit.load(os.path.join(source_dir, "model.pt")).eval(), None
    transformers = importlib.import_module("transformers")
    where = source.get("hubModelId", source_dir)
    kwargs = {"revision": source.get("revision", "main")} if "hubModelId" in source else {}
    classes = {
        "feature-extraction": "AutoModel",
        "text-classification": "AutoModelForSequenceClassification",
        "image-classification": "AutoModelForImageClassification",
    }
    model = getattr(transformers, classes[spec["task"]]).from_pretrained(where, torchscript=True, **kwargs).eval()
    tokenizer = transformers.AutoTokenizer.from_pretrained(where, **kwargs) if spec["task"] in TEXT_TASKS else None
    return model, tokenizer


def example_inputs(spec, batch, tokenizer, torch):
    """The fixed-shape input the artifact is compiled for: what the server sends, padded to the batch."""
    if spec["task"] in TEXT_TASKS:
        length = spec["sequenceLength"]
        if tokenizer is None:
            ids = torch.zeros((batch, length), dtype=torch.int64)
            return (ids, torch.ones((batch, length), dtype=torch.int64))
        encoded = tokenizer(["The compile step traces this sentence."] * batch, padding="max_length",
                            truncation=True, max_length=length, return_tensors="pt")
        return (encoded["input_ids"], encoded["attention_mask"])
    torch.manual_seed(0)
    size = spec["imageSize"]
    return (torch.rand((batch, 3, size, size)),)


def compiler_args(spec):
    """neuronx-cc flags for Inf2/Trn1; neuron-cc (Inf1) takes the spec's own args and pipeline cores."""
    args = list(spec.get("compilerArgs", []))
    if spec["chip"] == "inf1":
        if spec["coresPerProcess"] > 1:
            args += ["--neuroncore-pipeline-cores", str(spec["coresPerProcess"])]
        return args
    cast = spec.get("autoCast", {"scope": "matmult", "type": "bf16"})
    return ["--auto-cast", cast["scope"], "--auto-cast-type", cast["type"], *args]


def classify_trace_error(error):
    """A trace exception as a CompileFailure: killed for memory, unsupported operators, or other."""
    text = str(error)
    if re.search(r"(-9\b|SIGKILL|Killed|out of memory|Cannot allocate memory)", text):
        return CompileFailure("out-of-memory", "the compiler was killed for memory (exit -9): the model needs more RAM "
                              "than this compile host has; set a larger compile instance type", EXIT_OUT_OF_MEMORY)
    if re.search(r"(not supported|unsupported|Unsupported)", text):
        operators = sorted(set(re.findall(r"aten::[A-Za-z0-9_.]+", text)))
        listed = ", ".join(operators) if operators else "see the compile log"
        return CompileFailure("unsupported-operators", f"the compiler does not support operators of this model: {listed}",
                              EXIT_UNSUPPORTED, operators)
    return CompileFailure("error", f"tracing failed: {text.strip().splitlines()[-1] if text.strip() else type(error).__name__}",
                          EXIT_ERROR)


def first_output(output):
    first = output[0] if isinstance(output, (tuple, list)) else output
    if hasattr(first, "detach"):
        first = first.detach().cpu().numpy()
    return first


def max_abs_error(cpu, neuron):
    import numpy

    a = numpy.asarray(first_output(cpu), dtype=numpy.float64)
    b = numpy.asarray(first_output(neuron), dtype=numpy.float64)
    if a.shape != b.shape:
        return float("inf")
    return float(numpy.max(numpy.abs(a - b))) if a.size else 0.0


def artifact_name(spec, batch):
    return "model.pt" if len(spec["batchSizes"]) == 1 else f"model-b{batch}.pt"


def percentile(sorted_values, q):
    index = min(len(sorted_values) - 1, max(0, int(round(q / 100 * (len(sorted_values) - 1)))))
    return sorted_values[index]


def device_memory_gib():
    """Device memory the Neuron runtime of this process holds, from one neuron-monitor report; None if unavailable."""
    config = {"period": "1s", "neuron_runtimes": [{"tag_filter": ".*", "metrics": [{"type": "memory_used"}]}]}
    try:
        monitor = subprocess.Popen(["neuron-monitor", "-c", "/dev/stdin"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   text=True)
    except OSError:
        return None
    try:
        monitor.stdin.write(json.dumps(config))
        monitor.stdin.close()
        for _ in range(5):
            line = monitor.stdout.readline()
            if not line:
                break
            for runtime in json.loads(line).get("neuron_runtime_data", []):
                if runtime.get("pid") == os.getpid():
                    used = runtime["report"]["memory_used"]["neuron_runtime_used_bytes"]["neuron_device"]
                    return used / 1024 ** 3
    except (ValueError, KeyError, OSError):
        return None
    finally:
        monitor.kill()
    return None


def measure(traced, example, batch):
    """Latency of one call (p50, p99 in ms) and this process's inferences per second, one call in flight."""
    for _ in range(MEASURE_WARMUP):
        traced(*example)
    times = []
    for _ in range(MEASURE_CALLS):
        start = time.perf_counter()
        traced(*example)
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    mean = sum(times) / len(times)
    return {"p50Ms": round(percentile(times, 50), 4), "p99Ms": round(percentile(times, 99), 4),
            "throughputRps": round(batch * 1000 / mean, 2)}


def host_memory_gib():
    # ru_maxrss is KiB on Linux: the peak of this process, tracing included, so an upper bound for serving.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 ** 2


def write_json(path, document):
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(document, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def compile_model(spec, spec_hash, source_dir, out_dir, instance_type, measure_on_chip):
    if spec["chip"] != "inf1" and spec["coresPerProcess"] > 1:
        raise CompileFailure("error", f"coresPerProcess {spec['coresPerProcess']} on {spec['chip']}: torch_neuronx.trace "
                             "compiles for one NeuronCore; use 1, or a tensor-parallel library (NxD Inference)", EXIT_ERROR)
    torch, neuron = import_framework(spec["chip"])
    trace = neuron.trace
    started = time.monotonic()
    model, tokenizer = load_model(spec, source_dir, torch)
    artifacts, measurements, worst_error = [], [], 0.0
    for batch in spec["batchSizes"]:
        example = example_inputs(spec, batch, tokenizer, torch)
        try:
            traced = trace(model, example, compiler_args=compiler_args(spec))
        except Exception as e:  # noqa: BLE001  the tracer raises plain RuntimeError/subprocess errors
            raise classify_trace_error(e) from e
        with torch.no_grad():
            error = max_abs_error(model(*example), traced(*example))
        worst_error = max(worst_error, error)
        if not error <= spec["tolerance"]:
            raise CompileFailure("accuracy", f"batch {batch}: the Neuron output differs from CPU by {error:.4g}, more than "
                                 f"the tolerance {spec['tolerance']}; try autoCast scope 'none' or raise tolerance",
                                 EXIT_ACCURACY)
        name = artifact_name(spec, batch)
        path = os.path.join(out_dir, name)
        torch.jit.save(traced, path)
        artifacts.append({"batchSize": batch, "file": name, "sha256": sha256_file(path), "bytes": os.path.getsize(path)})
        if measure_on_chip:
            numbers = measure(traced, example, batch)
            device = device_memory_gib()
            measurements.append((batch, numbers, device, os.path.getsize(path)))
    compile_seconds = round(time.monotonic() - started, 3)
    if tokenizer is not None:
        tokenizer.save_pretrained(out_dir)
    sdk = spec["neuronSdkVersion"]
    trace_api = "torch_neuron" if spec["chip"] == "inf1" else "torch_neuronx"
    profile_name = None
    if measurements:
        profile_name = "profile.json"
        write_json(os.path.join(out_dir, profile_name), profile_document(spec, instance_type, measurements, sdk))
    manifest = {
        "formatVersion": MANIFEST_FORMAT_VERSION,
        "model": spec["model"],
        "hash": spec_hash,
        "chip": spec["chip"],
        "coreVersion": CORE_VERSION[spec["chip"]],
        "coresPerProcess": spec["coresPerProcess"],
        "batchSizes": spec["batchSizes"],
        "traceApi": trace_api,
        "versions": {
            "neuronSdk": sdk,
            "compiler": version_of("neuron-cc") if spec["chip"] == "inf1" else version_of("neuronx-cc"),
            "runtime": runtime_version(),
            "torch": str(getattr(torch, "__version__", version_of("torch"))),
            "torchNeuron": version_of(trace_api.replace("_", "-")),
        },
        "sourceSha256": source_sha256(spec, source_dir),
        "artifacts": artifacts,
        "compileSeconds": compile_seconds,
        "accuracy": {"passed": True, "maxAbsError": worst_error, "tolerance": spec["tolerance"]},
        "hostInstanceType": instance_type,
        "profile": profile_name,
    }
    for key in ("sequenceLength", "imageSize"):
        if key in spec:
            manifest[key] = spec[key]
    write_json(os.path.join(out_dir, "manifest.json"), manifest)
    return manifest


def profile_document(spec, instance_type, measurements, sdk):
    """The planner's profile format (docs/profile-format.md): one measurement per compiled batch size."""
    host = max(host_memory_gib(), 0.01)
    rows = []
    for batch, numbers, device, artifact_bytes in measurements:
        if device is None:
            # Same rule as the built-in estimates (lib/profiles/memory.ts): artifact x 1.2 + 0.25 GiB of runtime.
            device, how = artifact_bytes / 1024 ** 3 * 1.2 + 0.25, "estimated: artifact size x 1.2 + 0.25 GiB (neuron-monitor unavailable)"
        else:
            how = "neuron-monitor memory_used.neuron_runtime_used_bytes.neuron_device of the compile process"
        rows.append({
            "coreVersion": CORE_VERSION[spec["chip"]],
            "coresPerProcess": spec["coresPerProcess"],
            "batchSize": batch,
            "mode": "real-time" if batch == 1 else "batch",
            **numbers,
            "instanceType": instance_type,
            "deviceMemoryGiB": round(max(device, 0.01), 3),
            "hostMemoryGiB": round(host, 3),
            "memorySource": how,
            "measuredProcesses": 1,
            "source": f"cdk-inferentia compile on {instance_type}, Neuron SDK {sdk}, {MEASURE_CALLS} calls after "
                      f"{MEASURE_WARMUP} warm-up, one call in flight, {time.strftime('%Y-%m-%d')}",
        })
    return {
        "id": spec["model"],
        "description": f"{spec['model']} compiled by cdk-inferentia for {spec['chip']}, measured on the compile host",
        "deviceMemoryGiB": max(r["deviceMemoryGiB"] for r in rows),
        "hostMemoryGiB": max(r["hostMemoryGiB"] for r in rows),
        "vcpuPerProcess": 1,
        "memorySource": "largest of the measurements; host memory is the compile process's peak RSS (tracing included)",
        "measurements": rows,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    parser.add_argument("--hash", required=True)
    parser.add_argument("--source", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--instance-type", required=True)
    parser.add_argument("--measure", choices=("auto", "yes", "no"), default="auto",
                        help="measure the artifacts (auto: when /dev/neuron0 exists)")
    args = parser.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    with open(args.spec) as f:
        spec = json.load(f)
    measure_on_chip = args.measure == "yes" or (args.measure == "auto" and os.path.exists("/dev/neuron0"))
    try:
        manifest = compile_model(spec, args.hash, args.source, args.out, args.instance_type, measure_on_chip)
    except CompileFailure as failure:
        record = {"kind": failure.kind, "reason": failure.reason, "exitCode": failure.exit_code,
                  "instanceType": args.instance_type}
        if failure.operators:
            record["operators"] = failure.operators
        write_json(os.path.join(args.out, "failure.json"), record)
        print(f"compile failed: {failure.reason}", file=sys.stderr)
        return failure.exit_code
    print(json.dumps({"manifest": manifest["artifacts"], "compileSeconds": manifest["compileSeconds"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
