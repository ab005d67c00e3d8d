"""vLLM engine metrics exporter: Prometheus text in, EMF lines out, percentiles of each interval from bucket counts."""
import http.server
import json
import math
import os
import threading
import unittest

from serving.linewriter import LineWriter
from serving.vllm.engine_metrics import Exporter, buckets, interval_buckets, parse, quantile, run
from serving.vllm.launch import command, serve_arguments

TTFT_BOUNDS = (0.25, 0.5, 0.75, 1.0, 2.5)


def metrics_text(running, waiting, kv, prompt, generation, finished, ttft_cumulative, tpot_cumulative):
    """A /metrics page as vLLM V1 writes it (names and labels of vllm/v1/metrics/loggers.py), two finish reasons."""
    labels = 'engine="0",model_name="llama"'
    lines = [
        "# HELP vllm:num_requests_running Number of requests in model execution batches.",
        "# TYPE vllm:num_requests_running gauge",
        f"vllm:num_requests_running{{{labels}}} {running}",
        f"vllm:num_requests_waiting{{{labels}}} {waiting}",
        f"vllm:kv_cache_usage_perc{{{labels}}} {kv}",
        "# TYPE vllm:prompt_tokens_total counter",
        f"vllm:prompt_tokens_total{{{labels}}} {prompt}",
        f"vllm:generation_tokens_total{{{labels}}} {generation}",
        f'vllm:request_success_total{{{labels},finished_reason="length"}} {finished - 1}',
        f'vllm:request_success_total{{{labels},finished_reason="stop"}} 1.0',
        "# TYPE vllm:time_to_first_token_seconds histogram",
    ]
    for bound, count in zip(TTFT_BOUNDS + ("+Inf",), ttft_cumulative):
        lines.append(f'vllm:time_to_first_token_seconds_bucket{{{labels},le="{bound}"}} {count}')
    lines.append(f"vllm:time_to_first_token_seconds_count{{{labels}}} {ttft_cumulative[-1]}")
    for bound, count in zip(("0.01", "0.025", "0.05", "0.075", "+Inf"), tpot_cumulative):
        lines.append(f'vllm:request_time_per_output_token_seconds_bucket{{{labels},le="{bound}"}} {count}')
    return "\n".join(lines) + "\n"


class FakeWriter:
    def __init__(self, accept=True):
        self.lines = []
        self.accept = accept

    def write(self, line):
        if self.accept:
            self.lines.append(json.loads(line))
        return self.accept

    def take_dropped(self):
        return 0


class Parsing(unittest.TestCase):
    def test_samples_are_read_with_labels_and_comments_skipped(self):
        series = parse('# HELP x y\nvllm:a{model_name="m",le="0.5"} 3.0\nvllm:b 2 1700000000\nnot a sample\n')
        self.assertEqual(series["vllm:a"], [({"model_name": "m", "le": "0.5"}, 3.0)])
        self.assertEqual(series["vllm:b"], [({}, 2.0)])

    def test_buckets_sum_over_label_sets_and_read_inf(self):
        series = parse('h_bucket{engine="0",le="1.0"} 2\nh_bucket{engine="1",le="1.0"} 3\nh_bucket{engine="0",le="+Inf"} 5\n')
        self.assertEqual(buckets(series, "h"), {1.0: 5.0, math.inf: 5.0})


class Quantiles(unittest.TestCase):
    def test_interpolates_inside_the_bucket_the_rank_falls_in(self):
        # 100 observations: 50 up to 0.5 s, 40 in (0.5, 1], 10 in (1, 2.5]. p50 = 0.5; p99 is the 9th of 10 in (1, 2.5].
        cumulative = {0.5: 50.0, 1.0: 90.0, 2.5: 100.0, math.inf: 100.0}
        self.assertAlmostEqual(quantile(0.5, cumulative), 0.5)
        self.assertAlmostEqual(quantile(0.99, cumulative), 1.0 + 1.5 * 9 / 10)

    def test_rank_in_the_inf_bucket_reports_the_highest_finite_bound_and_empty_is_none(self):
        self.assertEqual(quantile(0.99, {1.0: 1.0, math.inf: 10.0}), 1.0)
        self.assertIsNone(quantile(0.99, {1.0: 0.0, math.inf: 0.0}))
        self.assertIsNone(quantile(0.99, {}))

    def test_interval_histogram_is_the_increase_and_a_restart_counts_from_zero(self):
        before = {1.0: 5.0, math.inf: 6.0}
        self.assertEqual(interval_buckets({1.0: 7.0, math.inf: 9.0}, before), {1.0: 2.0, math.inf: 3.0})
        self.assertEqual(interval_buckets({1.0: 1.0, math.inf: 1.0}, before), {1.0: 1.0, math.inf: 1.0})


class Lines(unittest.TestCase):
    def test_gauges_counter_increases_and_interval_percentiles_with_service_and_replica(self):
        writer = FakeWriter()
        exporter = Exporter("CdkInferentia/GenerativeEngine", "llama-endpoint", "2", writer)
        exporter.observe(metrics_text(3, 1, 0.25, 1000, 200, 3, (0, 0, 0, 2, 2, 2), (0, 2, 3, 3, 3)), 1000)
        # Next interval: 10 more first tokens, 9 of them by 0.5 s and one in (1, 2.5]; 90 more prompt tokens.
        exporter.observe(metrics_text(4, 0, 0.5, 1090, 260, 13, (0, 9, 9, 11, 12, 12), (0, 12, 13, 13, 13)), 11000)
        first, second = writer.lines
        self.assertEqual(first["PromptTokens"], 1000)  # everything since the engine started
        self.assertEqual(second["RunningRequests"], 4)
        self.assertEqual(second["WaitingRequests"], 0)
        self.assertEqual(second["KvCacheUsage"], 50.0)
        self.assertEqual((second["PromptTokens"], second["GenerationTokens"], second["FinishedRequests"]), (90, 60, 10))
        # Interval TTFT: 9 in (0.25, 0.5], 1 in (1, 2.5]: p50 inside (0.25, 0.5], p99 inside (1, 2.5].
        self.assertAlmostEqual(second["TimeToFirstTokenP50"], (0.25 + 0.25 * 5 / 9) * 1000, places=2)
        self.assertAlmostEqual(second["TimeToFirstTokenP99"], (1.0 + 1.5 * 0.9) * 1000, places=2)
        self.assertAlmostEqual(second["TimePerOutputTokenP99"], (0.01 + 0.015 * 9.9 / 10) * 1000, places=2)
        self.assertNotIn("InterTokenLatencyP99", second)  # not exposed by this engine: left out, not zero
        directive = second["_aws"]["CloudWatchMetrics"][0]
        self.assertEqual(directive["Namespace"], "CdkInferentia/GenerativeEngine")
        self.assertEqual(directive["Dimensions"], [["Service"], ["Service", "Replica"]])
        self.assertEqual((second["Service"], second["Replica"]), ("llama-endpoint", "2"))
        self.assertEqual(second["_aws"]["Timestamp"], 11000)
        self.assertEqual({d["Name"] for d in directive["Metrics"]} - set(second), set())

    def test_the_plugin_s_start_and_the_cores_seen_are_gauges_in_ms_and_absent_from_other_engines(self):
        writer = FakeWriter()
        exporter = Exporter("CdkInferentia/GenerativeEngine", "llama-endpoint", "0", writer)
        plugin = "\n".join([
            'vllm_neuron:compilation_time_seconds{engine="0"} 4.5',
            'vllm_neuron:model_load_time_seconds{engine="0"} 40',
            'vllm_neuron:startup_time_seconds_sum{engine="0"} 60',  # exported as a histogram: its _sum
            'vllm_neuron:startup_time_seconds_count{engine="0"} 1',
            'cdk_inferentia:neuron_cores_seen{copy="ip-10-0-1-5",source="neuron-ls"} 16',
        ])
        exporter.observe(metrics_text(1, 0, 0.1, 10, 5, 1, (0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0)) + plugin + "\n", 1000)
        exporter.observe(metrics_text(1, 0, 0.1, 10, 5, 1, (0, 0, 0, 0, 0, 0), (0, 0, 0, 0, 0)), 2000)
        with_plugin, without = writer.lines
        self.assertEqual((with_plugin["CompileTime"], with_plugin["ModelLoadTime"], with_plugin["StartupTime"]), (4500.0, 40000.0, 60000.0))
        self.assertEqual(with_plugin["NeuronCoresSeen"], 16)
        self.assertEqual({"CompileTime", "ModelLoadTime", "StartupTime", "NeuronCoresSeen"} & set(without), set())

    def test_failures_count_only_after_the_engine_answered_and_carry_over_a_dropped_line(self):
        writer = FakeWriter()
        exporter = Exporter("N", "s", "0", writer)
        exporter.failed(1)  # still loading: nothing written
        self.assertEqual(writer.lines, [])
        exporter.observe(metrics_text(0, 0, 0, 0, 0, 1, (0,) * 6, (0,) * 5), 2)
        writer.accept = False
        exporter.failed(3)
        writer.accept = True
        exporter.failed(4)
        self.assertEqual(writer.lines[-1]["MetricsScrapeFailures"], 2)
        self.assertEqual(writer.lines[-1]["MetricLinesDropped"], 1)


class Handler(http.server.BaseHTTPRequestHandler):
    body = b""

    def do_GET(self):  # noqa: N802 - the http.server API
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args):
        pass


class Scraping(unittest.TestCase):
    def test_scrapes_a_real_metrics_endpoint_and_writes_through_the_line_writer(self):
        Handler.body = metrics_text(2, 5, 0.75, 10, 20, 2, (0, 1, 1, 1, 1, 1), (0, 1, 1, 1, 1)).encode()
        server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        read_end, write_end = os.pipe()
        writer = LineWriter(write_end, 65536, "test")
        try:
            exporter = Exporter("N", "s", "1", writer)
            run(exporter, f"http://127.0.0.1:{server.server_port}/metrics", 0.01, scrapes=2)
            writer.close(5)
            lines = os.read(read_end, 65536).decode().splitlines()
        finally:
            server.shutdown()
            server.server_close()
            os.close(read_end)
            os.close(write_end)
        self.assertEqual(len(lines), 2)
        self.assertEqual(json.loads(lines[0])["WaitingRequests"], 5)
        self.assertEqual(json.loads(lines[1])["PromptTokens"], 0)  # no increase in the second interval

    def test_an_engine_that_is_not_listening_is_a_failed_scrape_not_a_crash(self):
        writer = FakeWriter()
        exporter = Exporter("N", "s", "0", writer)
        exporter.engine_seen = True
        run(exporter, "http://127.0.0.1:9/metrics", 0.01, scrapes=1)
        self.assertEqual(writer.lines[0]["MetricsScrapeFailures"], 1)


class Launcher(unittest.TestCase):
    def test_arguments_come_from_the_json_array_unchanged(self):
        args = ["/opt/ml/model", "--served-model-name=llama", "--max-num-seqs=8"]
        self.assertEqual(serve_arguments({"CDK_INFERENTIA_VLLM_ARGS": json.dumps(args)}), args)
        self.assertEqual(command(args, which=lambda _: "/usr/bin/vllm"), ["vllm", "serve", *args])
        self.assertEqual(command(args, which=lambda _: None, python="/py")[:4], ["/py", "-m", "vllm.entrypoints.cli.main", "serve"])

    def test_missing_or_malformed_arguments_name_the_variable(self):
        for environ in ({}, {"CDK_INFERENTIA_VLLM_ARGS": "--port 8080"}, {"CDK_INFERENTIA_VLLM_ARGS": '["a", 1]'}):
            with self.assertRaisesRegex(ValueError, "CDK_INFERENTIA_VLLM_ARGS"):
                serve_arguments(environ)


if __name__ == "__main__":
    unittest.main()
