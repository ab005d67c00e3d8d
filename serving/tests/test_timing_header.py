"""The timing header: every answer tells the caller its time in the server and the device call it rode in, so the
smoke benchmark can judge the server-side p99 and report the mean batch size from outside the host."""
import asyncio

from .support import ServerTestCase

HEADER = "X-Amzn-SageMaker-Custom-Attributes"


def parse(value):
    return {key: float(number) for key, _, number in (part.partition("=") for part in value.split(","))}


class TimingHeader(ServerTestCase):
    async def test_a_lone_request_reports_its_server_time_and_a_batch_of_one(self):
        # GIVEN an idle server whose device call takes 30 ms
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=5, TEST_DEVICE_MS=30)
        # WHEN one request arrives
        status, _, headers = await server.invoke(self.session, [1])
        # THEN its answer carries the header with a batch of one request and one input
        self.assertEqual(status, 200)
        attributes = parse(headers[HEADER])
        self.assertEqual((attributes["batch-requests"], attributes["batch-inputs"]), (1, 1))
        # AND the server time covers the device call and stays under the call plus the delay and some slack
        self.assertGreaterEqual(attributes["device-ms"], 30)
        self.assertGreaterEqual(attributes["server-ms"], attributes["device-ms"])
        self.assertLess(attributes["server-ms"], 30 + 5 + 200)

    async def test_requests_of_a_burst_report_the_batch_they_shared(self):
        # GIVEN batches of up to 8 inputs and a slow device so a burst piles up
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=50, TEST_DEVICE_MS=30)
        # WHEN 16 single-input requests arrive at once
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(16)))
        attributes = [parse(headers[HEADER]) for _, _, headers in replies]
        # THEN the batch sizes in the headers match the device calls the server made
        sizes = sorted(int(a["batch-inputs"]) for a in attributes)
        expected = sorted(size for call in server.calls() for size in [call["size"]] * call["size"])
        self.assertEqual(sizes, expected)
        self.assertGreater(max(sizes), 1)
        # AND a request that waited behind another batch reports more server time than its own device call
        self.assertTrue(any(a["server-ms"] > a["device-ms"] + 20 for a in attributes), attributes)

    async def test_a_request_past_its_deadline_reports_its_server_time_only(self):
        # GIVEN a 100 ms request deadline and a device call of 1 s
        server = await self.server(MODEL_SERVER_REQUEST_TIMEOUT_MS=100, TEST_DEVICE_MS=1000, MODEL_SERVER_MAX_DELAY_MS=1)
        # WHEN a request runs out of time
        status, _, headers = await server.invoke(self.session, [1])
        # THEN the 504 carries its time in the server and no batch
        self.assertEqual(status, 504)
        attributes = parse(headers[HEADER])
        self.assertEqual(set(attributes), {"server-ms"})
        self.assertGreaterEqual(attributes["server-ms"], 100)


class PoolInHeader(ServerTestCase):
    async def test_a_server_in_an_instance_pool_names_its_pool_in_every_answer(self):
        # GIVEN a server started as instance pool 3 (the endpoint renders CDK_INFERENTIA_POOL per pool model)
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=1, TEST_DEVICE_MS=1, CDK_INFERENTIA_POOL="3")
        # WHEN a request is answered
        status, _, headers = await server.invoke(self.session, [1])
        # THEN the header names the pool beside the timing
        self.assertEqual(status, 200)
        self.assertEqual(parse(headers[HEADER])["pool"], 3)

    async def test_a_server_outside_pools_names_none(self):
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=1, TEST_DEVICE_MS=1)
        status, _, headers = await server.invoke(self.session, [1])
        self.assertEqual(status, 200)
        self.assertNotIn("pool", parse(headers[HEADER]))
