"""The compile script end to end with CPU stand-ins for torch, torch_neuronx and transformers (see
compile_frameworks/README.md): manifest, artifacts, profile, and each failure record."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "serving", "compile", "compile.py")
FRAMEWORKS = os.pathsep.join(
    os.path.join(ROOT, "serving", "tests", d) for d in ("compile_frameworks", "stand_in_common")
)

SPEC = {
    "model": "bert-base-uncased",
    "source": {"hubModelId": "bert-base-uncased", "revision": "main"},
    "task": "feature-extraction",
    "sequenceLength": 16,
    "batchSizes": [1, 4],
    "autoCast": {"scope": "matmult", "type": "bf16"},
    "compilerArgs": ["--optlevel", "2"],
    "chip": "inf2",
    "coresPerProcess": 1,
    "neuronSdkVersion": "2.26.1",
    "tolerance": 0.02,
}


def run_compile(spec, measure="no", **env):
    """Runs compile.py as the boot script does; returns (exit code, output directory, stderr)."""
    work = tempfile.mkdtemp(prefix="cdk-inferentia-compile-")
    spec_path = os.path.join(work, "spec.json")
    with open(spec_path, "w") as f:
        json.dump(spec, f)
    out = os.path.join(work, "out")
    result = subprocess.run(
        [sys.executable, SCRIPT, "--spec", spec_path, "--hash", "abc123", "--source", os.path.join(work, "source"),
         "--out", out, "--instance-type", "inf2.xlarge", "--measure", measure],
        env={**os.environ, "PYTHONPATH": FRAMEWORKS, **env}, capture_output=True, text=True, timeout=120,
    )
    return result.returncode, out, result.stderr


def read(out, name):
    with open(os.path.join(out, name)) as f:
        return json.load(f)


class CompileSucceeds(unittest.TestCase):
    def test_the_script_byte_compiles(self):
        import py_compile

        py_compile.compile(SCRIPT, cfile=os.path.join(tempfile.mkdtemp(), "compile.pyc"), doraise=True)

    def test_writes_one_artifact_per_batch_and_a_manifest_naming_them(self):
        # WHEN two batch sizes compile without measuring
        code, out, stderr = run_compile(SPEC)
        # THEN it exits 0 with model-b1.pt, model-b4.pt, the tokenizer and a manifest describing them
        self.assertEqual(code, 0, stderr)
        manifest = read(out, "manifest.json")
        self.assertEqual([a["file"] for a in manifest["artifacts"]], ["model-b1.pt", "model-b4.pt"])
        self.assertEqual(manifest["chip"], "inf2")
        self.assertEqual(manifest["coreVersion"], "v2")
        self.assertEqual(manifest["hash"], "abc123")
        self.assertEqual(manifest["sequenceLength"], 16)
        self.assertEqual(manifest["versions"]["torch"], "2.9.0+fake")
        self.assertTrue(manifest["accuracy"]["passed"])
        self.assertAlmostEqual(manifest["accuracy"]["maxAbsError"], 0.001, places=6)
        self.assertIsNone(manifest["profile"])
        self.assertTrue(os.path.exists(os.path.join(out, "vocab.txt")))
        self.assertFalse(os.path.exists(os.path.join(out, "profile.json")))

    def test_one_batch_size_is_saved_as_model_pt_the_handlers_load(self):
        code, out, stderr = run_compile({**SPEC, "batchSizes": [1]})
        self.assertEqual(code, 0, stderr)
        self.assertEqual([a["file"] for a in read(out, "manifest.json")["artifacts"]], ["model.pt"])

    def test_on_the_chip_it_writes_a_profile_in_the_planner_format(self):
        # WHEN the host has the chip (forced here)
        code, out, stderr = run_compile(SPEC, measure="yes")
        # THEN profile.json has one measurement per batch with positive numbers and p50 <= p99
        self.assertEqual(code, 0, stderr)
        profile = read(out, "profile.json")
        self.assertEqual(read(out, "manifest.json")["profile"], "profile.json")
        self.assertEqual([m["batchSize"] for m in profile["measurements"]], [1, 4])
        for m in profile["measurements"]:
            self.assertGreater(m["throughputRps"], 0)
            self.assertLessEqual(m["p50Ms"], m["p99Ms"])
            self.assertEqual(m["coreVersion"], "v2")
            self.assertIn("inf2.xlarge", m["source"])


class CompileFails(unittest.TestCase):
    def failure(self, spec=SPEC, exit_code=2, **env):
        """Runs compile.py, which must exit with exit_code, write its failure record and no manifest; returns the record."""
        code, out, _ = run_compile(spec, **env)
        self.assertEqual(code, exit_code)
        self.assertFalse(os.path.exists(os.path.join(out, "manifest.json")))
        return read(out, "failure.json")

    def test_compiler_killed_for_memory_exits_137_with_an_out_of_memory_record(self):
        record = self.failure(exit_code=137, FAKE_NEURON_FAIL="oom")
        self.assertEqual(record["kind"], "out-of-memory")
        self.assertIn("needs more RAM", record["reason"])

    def test_unsupported_operators_are_listed(self):
        record = self.failure(exit_code=3, FAKE_NEURON_FAIL="unsupported")
        self.assertEqual(record["operators"], ["aten::fft_rfft", "aten::stft"])
        self.assertIn("aten::fft_rfft, aten::stft", record["reason"])

    def test_output_beyond_the_tolerance_fails_the_accuracy_check(self):
        record = self.failure(exit_code=4, FAKE_NEURON_OFFSET="0.5")
        self.assertEqual(record["kind"], "accuracy")
        self.assertIn("0.5", record["reason"])

    def test_two_cores_per_process_on_inf2_are_refused_before_tracing(self):
        self.assertIn("compiles for one NeuronCore", self.failure({**SPEC, "coresPerProcess": 2})["reason"])

    def test_a_missing_neuron_package_says_which(self):
        self.assertIn("torch_neuron is not importable", self.failure({**SPEC, "chip": "inf1"})["reason"])

if __name__ == "__main__":
    unittest.main()
