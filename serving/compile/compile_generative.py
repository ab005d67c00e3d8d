"""cdk-inferentia generative compile: runs inside the serving image on the compile host.

Run by the boot script lib/compile/generative-script.ts renders, as `python3 /work/compile_generative.py` in the vLLM
Neuron container. Reads /work/spec.json and /work/meta.json; writes /out/compiled/ (NEURON_COMPILED_ARTIFACTS),
/out/manifest.json (format: lib/compile/generative-manifest.ts) or /out/failure.json. The manifest's format version
and folder names must match lib/compile/generative-manifest.ts (test/lib/compile/generative-script.test.ts parses
what this writes).
"""
import json
import os
import sys
import time
from importlib import metadata


def version(name):
    try:
        return metadata.version(name)
    except Exception:  # noqa: BLE001 - a package the image lacks is reported, not fatal
        return "unknown"


def fail(kind, reason):
    with open(ROOT + "/out/failure.json", "w") as f:
        json.dump({"kind": kind, "reason": reason}, f)
    sys.exit(1)


# Empty in the container; a test runs the program outside one under a temporary root.
ROOT = os.environ.get("CDK_INFERENTIA_ROOT", "")
spec = json.load(open(ROOT + "/work/spec.json"))
meta = json.load(open(ROOT + "/work/meta.json"))
weights = spec["weights"]
if weights["source"] == "huggingface":
    from huggingface_hub import snapshot_download
    token = None
    if os.path.exists(ROOT + "/run/secrets/hf_token"):
        token = open(ROOT + "/run/secrets/hf_token").read().strip() or None
    try:
        # The original/ folder (consolidated .pth files) and .bin duplicates are not what vLLM loads.
        snapshot_download(repo_id=weights["repository"], revision=weights["revision"], local_dir=ROOT + "/model", token=token,
                          ignore_patterns=["original/*", "*.pth", "*.bin", "*.pt", "*.gguf", "*.h5", "*.msgpack"])
    except Exception as e:  # noqa: BLE001
        fail("error", "could not download %s@%s from the Hugging Face Hub (%s): check the token secret and that the "
             "token's account accepted the model's license" % (weights["repository"], weights["revision"], type(e).__name__))
    token = None
if not os.path.exists(ROOT + "/model/config.json"):
    fail("error", "the weights have no config.json: give the uncompressed Hugging Face layout (config.json, *.safetensors, tokenizer files)")

# Trn2/Trn3 plans run the vLLM Neuron plugin (lib/generative/engine-config.ts): its graphs go to the remote cache
# the serving copies read (NEURON_LIBTORCH_REMOTE_CACHE), compiled on a CPU host when the spec says so
# (VLLM_NEURON_CPU_COMPILE with the chip as NEURON_PLATFORM_TARGET_OVERRIDE: lib/compile/generative-spec.ts).
plugin = spec.get("plugin")
if plugin:
    os.environ["NEURON_LIBTORCH_REMOTE_CACHE"] = ROOT + "/out/compiled"
    if plugin.get("cpuCompile"):
        os.environ["VLLM_NEURON_CPU_COMPILE"] = "1"
        os.environ["NEURON_PLATFORM_TARGET_OVERRIDE"] = plugin["target"]
else:
    os.environ["NEURON_COMPILED_ARTIFACTS"] = ROOT + "/out/compiled"
    os.environ["VLLM_NEURON_FRAMEWORK"] = "neuronx-distributed-inference"
if spec["logicalNeuronCoreConfig"] > 1:
    os.environ["NEURON_LOGICAL_NC_CONFIG"] = str(spec["logicalNeuronCoreConfig"])
started = time.time()
from vllm import LLM, SamplingParams  # noqa: E402

if plugin:
    # The plugin settings vllm serve gets from the plan: buckets, KV blocks, prefix caching, async scheduling.
    llm = LLM(model=ROOT + "/model", tensor_parallel_size=spec["tensorParallelSize"], max_num_seqs=spec["maxNumSeqs"],
              max_model_len=spec["maxModelLen"], dtype=spec["dtype"], **plugin["engine"])
else:
    # The settings vllm serve gets from the plan (lib/generative/engine-config.ts): a contiguous KV cache, unless the
    # plan's levers say otherwise (spec "engine": its buckets and FP8 in override_neuron_config, a speculative draft,
    # prefix caching's block layout). vLLM loads these artifacts whatever it is asked later, so they must be compiled in.
    engine = {"num_gpu_blocks_override": spec["maxNumSeqs"], "enable_chunked_prefill": False, "enable_prefix_caching": False}
    engine.update(spec.get("engine") or {})
    llm = LLM(model=ROOT + "/model", tensor_parallel_size=spec["tensorParallelSize"], max_num_seqs=spec["maxNumSeqs"],
              max_model_len=spec["maxModelLen"], dtype=spec["dtype"], **engine)
seconds = time.time() - started
if not os.path.isdir(ROOT + "/out/compiled") or not os.listdir(ROOT + "/out/compiled"):
    fail("error", "vLLM loaded the model but wrote nothing to the compiled artifacts' folder; the plugin in this image "
         "does not save compiled artifacts")
if plugin and plugin.get("cpuCompile"):
    # A CPU compile executes no graph ("You cannot run inference ... in this mode"): the proof in tokens checks output.
    check_output = ""
else:
    check_output = llm.generate([meta["checkPrompt"]], SamplingParams(temperature=0.0, max_tokens=8))[0].outputs[0].text
dtype = str(llm.llm_engine.model_config.dtype).replace("torch.", "")
manifest = {
    "formatVersion": 1, "kind": "generative", "model": spec["model"], "hash": meta["hash"],
    "weights": weights, "tensorParallelSize": spec["tensorParallelSize"], "maxNumSeqs": spec["maxNumSeqs"],
    "maxModelLen": spec["maxModelLen"], "neuronSdkVersion": spec["neuronSdkVersion"], "chip": spec["chip"],
    "logicalNeuronCoreConfig": spec["logicalNeuronCoreConfig"], "dtype": dtype,
    "engine": (plugin or {}).get("engine") or spec.get("engine") or {},
    "compiledArtifacts": "compiled/", "stagedModel": "model/" if weights["source"] == "huggingface" else None,
    "versions": {"vllm": version("vllm"), "vllmNeuron": version("vllm-neuron"),
                 "nxdInference": version("neuronx-distributed-inference"), "neuronxCc": version("neuronx-cc")},
    "compileSeconds": round(seconds, 1), "check": {"prompt": meta["checkPrompt"], "output": check_output},
    "hostInstanceType": meta["instanceType"], "image": meta["image"],
}
if meta.get("weightsDigest"):
    manifest["weightsDigest"] = meta["weightsDigest"]
with open(ROOT + "/out/manifest.json", "w") as f:
    json.dump(manifest, f, indent=2)
