"""Metrics: embedded-metric-format lines on stdout, one per worker per interval, valid for CloudWatch."""
import asyncio
import json
import unittest

from serving.metrics import SAMPLE_LIMIT, Reservoir

from .support import ServerTestCase


class EmbeddedMetrics(ServerTestCase):
    async def test_each_interval_writes_a_line_per_worker_with_batch_size_queue_wait_and_device_time(self):
        # GIVEN metrics every 200 ms and two workers
        server = await self.server(MODEL_SERVER_METRICS_INTERVAL_MS=200, MODEL_SERVER_VISIBLE_CORES="0;1", TEST_DEVICE_MS=5)
        # WHEN 20 requests are served
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(20)))
        self.assertEqual({status for status, _, _ in replies}, {200})
        await server.wait_for(
            self.session, lambda _, __: sum(d.get("Requests", 0) for d in self.documents(server)) == 20, "the metrics"
        )
        # THEN every line is an EMF document whose metrics are numbers or arrays of at most 100 numbers
        documents = self.documents(server)
        for document in documents:
            directive = document["_aws"]["CloudWatchMetrics"][0]
            self.assertEqual(directive["Namespace"], "CdkInferentia/ModelServer")
            self.assertIsInstance(document["_aws"]["Timestamp"], int)
            for dimensions in directive["Dimensions"]:
                self.assertTrue(all(isinstance(document[d], str) for d in dimensions))
            for metric in directive["Metrics"]:
                value = document[metric["Name"]]
                self.assertTrue(isinstance(value, (int, float)) or (isinstance(value, list) and len(value) <= 100))
        # AND the worker lines count every input and carry the three distributions
        workers = [d for d in documents if "Worker" in d]
        self.assertEqual({d["Worker"] for d in workers}, {"0", "1"})
        self.assertEqual(sum(d["Inputs"] for d in workers), 20)
        self.assertEqual(sum(d["Batches"] for d in workers), sum(len(d.get("BatchSize", [])) for d in workers))
        busy = [d for d in workers if d["Batches"]]
        self.assertTrue(all({"BatchSize", "QueueWait", "DeviceTime"} <= d.keys() for d in busy))
        self.assertTrue(all(min(d["DeviceTime"]) >= 5 for d in busy))
        self.assertEqual(busy[0]["_aws"]["CloudWatchMetrics"][0]["Dimensions"], [["Service"], ["Service", "Worker"]])

    def documents(self, server):
        return [json.loads(line) for line in server.stdout().splitlines() if line.strip()]


class Sampling(unittest.TestCase):
    def test_a_reservoir_keeps_at_most_the_emf_limit_and_counts_everything(self):
        reservoir = Reservoir()
        for value in range(1000):
            reservoir.add(value)
        self.assertEqual(len(reservoir.values), SAMPLE_LIMIT)
        self.assertEqual(reservoir.seen, 1000)
        self.assertTrue(set(reservoir.values) <= set(range(1000)))
