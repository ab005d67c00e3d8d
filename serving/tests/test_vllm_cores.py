"""The launcher's NeuronCore check: a copy that sees fewer cores than its tensor-parallel degree stops before loading."""
import asyncio
import unittest

from serving.vllm import cores_seen
from serving.vllm.launch import core_problem, count_cores, tensor_parallel_size, visible_cores, with_cores_seen

NO_TOOL = {"neuron_ls": lambda: None}


class CoreCheckTest(unittest.TestCase):
    def test_counts_visible_core_ranges(self):
        self.assertEqual(count_cores("0-3,8"), 5)
        self.assertEqual(count_cores("7"), 1)

    def test_reads_the_tensor_parallel_degree_in_both_spellings(self):
        self.assertEqual(tensor_parallel_size(["m", "--tensor-parallel-size=16"]), 16)
        self.assertEqual(tensor_parallel_size(["m", "--tensor-parallel-size", "8"]), 8)
        self.assertEqual(tensor_parallel_size(["m"]), 1)

    def test_a_trn2_copy_given_one_chip_for_tp16_names_the_setting_and_both_counts(self):
        # GIVEN SageMaker counted chips (1 device) while the plan needs 16 logical cores (4 Trn2 chips at LNC=2)
        problem = core_problem(["m", "--tensor-parallel-size=16"], {}, neuron_ls=lambda: 4)
        self.assertIn("sees 4 NeuronCores (neuron-ls) but --tensor-parallel-size=16 needs 16", problem)
        self.assertIn("NumberOfAcceleratorDevicesRequired", problem)

    def test_an_inf2_copy_with_its_cores_passes(self):
        self.assertIsNone(core_problem(["m", "--tensor-parallel-size=8"], {"NEURON_RT_VISIBLE_CORES": "0-7"}, **NO_TOOL))

    def test_device_files_count_when_neuron_ls_is_absent(self):
        seen, how = visible_cores({"CDK_INFERENTIA_CORES_PER_DEVICE": "2"}, neuron_ls=lambda: None,
                                  devices=lambda: ["/dev/neuron0", "/dev/neuron1"])
        self.assertEqual((seen, how), (4, "2 /dev/neuron devices x 2 cores"))
        self.assertIn("sees 4 NeuronCores", core_problem(["m", "--tensor-parallel-size=8"], {"CDK_INFERENTIA_CORES_PER_DEVICE": "2"},
                                                          neuron_ls=lambda: None, devices=lambda: ["/dev/neuron0", "/dev/neuron1"]))

    def test_nothing_to_count_does_not_block_the_engine(self):
        self.assertIsNone(core_problem(["m", "--tensor-parallel-size=8"], {}, neuron_ls=lambda: None, devices=lambda: []))


METRICS = b"# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{engine=\"0\"} 1.0\n"


def engine(status=200, chunks=(METRICS[:20], METRICS[20:])):
    """A stand-in for vLLM's ASGI app: /metrics in two body chunks; it records the request's headers."""
    seen = {}

    async def app(scope, receive, send):
        seen["headers"] = scope.get("headers", [])
        await send({"type": "http.response.start", "status": status,
                    "headers": [(b"content-type", b"text/plain"), (b"content-length", str(sum(map(len, chunks))).encode())]})
        for i, chunk in enumerate(chunks):
            await send({"type": "http.response.body", "body": chunk, "more_body": i < len(chunks) - 1})
    return app, seen


def call(app, path="/metrics", method="GET"):
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)
    scope = {"type": "http", "method": method, "path": path, "headers": [(b"accept-encoding", b"gzip")]}
    asyncio.run(app(scope, receive, send))
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start, body


ENVIRON = {"CDK_INFERENTIA_CORES_SEEN": "8", "CDK_INFERENTIA_CORES_NEEDED": "8",
           "CDK_INFERENTIA_CORES_SOURCE": "NEURON_RT_VISIBLE_CORES", "CDK_INFERENTIA_COPY": "ip-10-0-1-5"}


class CoresSeenTest(unittest.TestCase):
    def test_the_launcher_passes_the_count_and_adds_the_middleware_once(self):
        environ = {}
        args = with_cores_seen(["m", "--tensor-parallel-size=16"], environ, 16, "neuron-ls")
        self.assertEqual(args, ["m", "--tensor-parallel-size=16", "--middleware=serving.vllm.cores_seen.CoresSeenMiddleware"])
        self.assertEqual(environ, {"CDK_INFERENTIA_CORES_SEEN": "16", "CDK_INFERENTIA_CORES_NEEDED": "16",
                                   "CDK_INFERENTIA_CORES_SOURCE": "neuron-ls"})
        self.assertEqual(with_cores_seen(args, environ, 16, "neuron-ls"), args)
        # Nothing counted: the engine starts as rendered.
        self.assertEqual(with_cores_seen(["m"], {}, None, "no devices"), ["m"])

    def test_metrics_gain_the_copy_s_cores_with_a_matching_content_length_and_no_gzip(self):
        app, request = engine()
        start, body = call(cores_seen.CoresSeenMiddleware(app, ENVIRON))
        self.assertTrue(body.startswith(METRICS))
        self.assertIn(b'cdk_inferentia:neuron_cores_seen{copy="ip-10-0-1-5",source="NEURON_RT_VISIBLE_CORES"} 8\n', body)
        self.assertIn(b'cdk_inferentia:neuron_cores_needed{copy="ip-10-0-1-5",source="NEURON_RT_VISIBLE_CORES"} 8\n', body)
        self.assertEqual(dict(start["headers"])[b"content-length"], str(len(body)).encode())
        self.assertNotIn(b"accept-encoding", [k for k, _ in request["headers"]])

    def test_other_paths_errors_and_an_uncounted_copy_pass_through_untouched(self):
        for path, status, environ in (("/v1/completions", 200, ENVIRON), ("/metrics", 500, ENVIRON), ("/metrics", 200, {})):
            app, request = engine(status)
            _, body = call(cores_seen.CoresSeenMiddleware(app, environ), path=path)
            self.assertEqual(body, METRICS, (path, status))


if __name__ == "__main__":
    unittest.main()
