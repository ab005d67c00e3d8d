"""neuron-monitor adapter: NeuronCore utilization from neuron-monitor's JSON as EMF lines CloudWatch accepts."""
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from serving.neuron_monitor import lines, run, utilization

from .support import BASE_ENV, REPO, clean_environ

# One period of neuron-monitor with two workers (runtimes), as its user guide documents the fields.
DOCUMENT = {
    "neuron_runtime_data": [
        {"pid": 11, "error": "", "report": {"neuroncore_counters": {"neuroncores_in_use": {
            "0": {"neuroncore_utilization": 71.25, "flops": 1}}}}},
        {"pid": 12, "error": "", "report": {"neuroncore_counters": {"neuroncores_in_use": {
            "1": {"neuroncore_utilization": 12}, "10": {"neuroncore_utilization": None}}}}},
        {"pid": 13, "error": "not started", "report": {}},
    ],
    "system_data": {},
}


class Utilization(unittest.TestCase):
    def test_each_runtime_reports_its_own_cores_and_missing_values_are_skipped(self):
        self.assertEqual(utilization(DOCUMENT), {"0": 71.25, "1": 12.0})
        self.assertEqual(utilization({}), {})

    def test_a_line_per_core_in_the_server_namespace_with_service_and_core_dimensions(self):
        documents = [json.loads(line) for line in lines(DOCUMENT, "CdkInferentia/ModelServer", "bert", 1700000000000)]
        self.assertEqual([d["NeuronCore"] for d in documents], ["0", "1"])
        self.assertEqual([d["NeuronCoreUtilization"] for d in documents], [71.25, 12.0])
        directive = documents[0]["_aws"]["CloudWatchMetrics"][0]
        self.assertEqual(directive["Namespace"], "CdkInferentia/ModelServer")
        self.assertEqual(directive["Dimensions"], [["Service"], ["Service", "NeuronCore"]])
        self.assertEqual(directive["Metrics"], [{"Name": "NeuronCoreUtilization", "Unit": "Percent"}])
        self.assertEqual(documents[0]["Service"], "bert")
        self.assertTrue(all(len(line) < 512 for line in lines(DOCUMENT, "n", "s", 0)))

    def test_non_json_lines_are_skipped_and_the_stream_is_read_to_its_end(self):
        source = io.StringIO("neuron-monitor starting\n" + json.dumps(DOCUMENT) + "\n[1, 2]\n{broken\n" + json.dumps(DOCUMENT) + "\n")
        with tempfile.TemporaryFile() as out:
            run(source, out.fileno(), "ns", "svc")
            out.seek(0)
            written = out.read().decode().splitlines()
        self.assertEqual(len(written), 4)

    def test_as_a_module_it_reads_stdin_and_writes_nothing_without_the_metrics_environment(self):
        env = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": REPO}
        base = [sys.executable, "-m", "serving.neuron_monitor"]
        ours = subprocess.run(base, input=json.dumps(DOCUMENT) + "\n", capture_output=True, text=True, timeout=30,
                              env={**env, "MODEL_SERVER_METRICS_NAMESPACE": "ns", "MODEL_SERVER_METRICS_SERVICE": "svc"})
        self.assertEqual(ours.returncode, 0, ours.stderr)
        self.assertEqual(len(ours.stdout.splitlines()), 2)
        bare = subprocess.run(base, input=json.dumps(DOCUMENT) + "\n", capture_output=True, text=True, timeout=30, env=env)
        self.assertEqual((bare.returncode, bare.stdout), (0, ""))


class Entrypoint(unittest.TestCase):
    def run_entrypoint(self, **extra):
        # GIVEN a neuron-monitor on PATH that prints one period and ends, and a server that exits at once (bad env)
        with tempfile.TemporaryDirectory() as bin_dir:
            fake = os.path.join(bin_dir, "neuron-monitor")
            with open(fake, "w") as script:
                script.write(f"#!/bin/sh\ncat <<'JSON'\n{json.dumps(DOCUMENT)}\nJSON\n")
            os.chmod(fake, 0o755)
            env = {**clean_environ(), **BASE_ENV, "MODEL_SERVER_MAX_BATCH_SIZE": "zero", "PYTHONPATH": REPO,
                   "PATH": f"{bin_dir}:/usr/bin:/bin", **extra}
            # WHEN the container starts as SageMaker starts it
            return subprocess.run([os.path.join(REPO, "serving", "entrypoint.sh"), "serve"], env=env,
                                  capture_output=True, text=True, timeout=30)

    def test_serve_pipes_neuron_monitor_into_the_adapter_beside_the_server(self):
        result = self.run_entrypoint()
        # THEN the server ran (and refused the environment) and the utilization lines reached stdout
        self.assertEqual(result.returncode, 2, result.stderr)
        self.assertIn("MODEL_SERVER_MAX_BATCH_SIZE='zero' is not valid", result.stderr)
        documents = [json.loads(line) for line in result.stdout.splitlines()]
        self.assertEqual(sorted(d["NeuronCore"] for d in documents), ["0", "1"])

    def test_model_server_neuron_monitor_off_leaves_it_out(self):
        result = self.run_entrypoint(MODEL_SERVER_NEURON_MONITOR="off")
        self.assertEqual((result.returncode, result.stdout), (2, ""))
