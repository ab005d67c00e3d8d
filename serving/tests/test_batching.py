"""Batching: bursts share device calls, each request gets its own slice in order, an idle request waits at most the
delay, a request never splits across calls."""
import asyncio
import time

from .support import ServerTestCase


class BurstsShareDeviceCalls(ServerTestCase):
    async def test_a_burst_of_single_input_requests_runs_in_fewer_device_calls_each_within_the_batch(self):
        # GIVEN one worker, batches of up to 8 and a device call that takes 30 ms
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=50, TEST_DEVICE_MS=30)
        # WHEN 32 single-input requests arrive at once
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(32)))
        # THEN every request gets its own answer
        self.assertEqual([(status, body["outputs"]) for status, body, _ in replies], [(200, [2.0 * i]) for i in range(32)])
        # AND the 32 inputs ran in fewer than 32 device calls, none above the batch size
        calls = server.calls()
        self.assertEqual(sum(call["size"] for call in calls), 32)
        self.assertLess(len(calls), 32)
        self.assertTrue(all(call["size"] <= 8 for call in calls), calls)
        self.assertGreater(max(call["size"] for call in calls), 1)

    async def test_sequential_requests_on_an_idle_server_run_alone(self):
        # GIVEN an idle server
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=5)
        # WHEN requests come one after another
        for i in range(4):
            status, body, _ = await server.invoke(self.session, [i])
            self.assertEqual((status, body["outputs"]), (200, [2.0 * i]))
        # THEN each is its own device call of size 1
        self.assertEqual([call["size"] for call in server.calls()], [1, 1, 1, 1])


class SlicesAndOrder(ServerTestCase):
    async def test_requests_with_several_inputs_get_their_own_outputs_in_order_and_are_never_split(self):
        # GIVEN batches of up to 8 inputs and a slow device so requests pile up
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=30, TEST_DEVICE_MS=20, MODEL_SERVER_VISIBLE_CORES="0;1")
        # WHEN 40 requests of 1 to 5 distinct inputs arrive at once
        requests = [[1000 * r + k for k in range(1 + r % 5)] for r in range(40)]
        replies = await asyncio.gather(*(server.invoke(self.session, inputs) for inputs in requests))
        # THEN each request's outputs are its own inputs doubled, in its order
        for inputs, (status, body, _) in zip(requests, replies):
            self.assertEqual(status, 200, body)
            self.assertEqual(body["outputs"], [2.0 * x for x in inputs])
        # AND each device call holds whole requests, contiguous and in order, and at most 8 inputs
        calls = server.calls()
        self.assertTrue(all(call["size"] <= 8 for call in calls), calls)
        by_first = {inputs[0]: inputs for inputs in requests}
        for call in calls:
            position = 0
            while position < len(call["inputs"]):
                request = by_first[call["inputs"][position]]
                self.assertEqual(call["inputs"][position : position + len(request)], request, call)
                position += len(request)
        self.assertEqual(sum(call["size"] for call in calls), sum(len(r) for r in requests))

    async def test_a_request_with_more_inputs_than_a_batch_is_refused_with_413(self):
        server = await self.server()
        status, body, _ = await server.invoke(self.session, list(range(9)))
        self.assertEqual(status, 413)
        self.assertIn("9 inputs", body["error"])
        self.assertIn("MODEL_SERVER_MAX_BATCH_SIZE", body["error"])
        self.assertEqual(server.calls(), [])


class MaxDelay(ServerTestCase):
    async def test_a_lone_request_waits_for_the_batch_to_fill_for_the_delay_and_no_longer(self):
        # GIVEN a 300 ms batching delay and a 30 s deadline
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=300, MODEL_SERVER_REQUEST_TIMEOUT_MS=30000)
        # WHEN one request arrives and no other follows
        started = time.monotonic()
        status, body, _ = await server.invoke(self.session, [3])
        elapsed = time.monotonic() - started
        # THEN it runs alone once the delay has passed: it waited for company, then stopped waiting
        # (the upper bound is the deadline's order of magnitude, not a speed claim: an unbounded wait would hit it)
        self.assertEqual((status, body["outputs"]), (200, [6.0]))
        self.assertGreaterEqual(elapsed, 0.3)
        self.assertLess(elapsed, 10)
        self.assertEqual([call["size"] for call in server.calls()], [1])

    async def test_a_full_batch_does_not_wait_for_the_delay(self):
        # GIVEN a delay far longer than the client's patience (60 s against 20 s)
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=60000, MODEL_SERVER_REQUEST_TIMEOUT_MS=120000)
        # WHEN exactly a batch of inputs arrives
        replies = await asyncio.gather(*(server.invoke(self.session, [i, i]) for i in range(4)))
        # THEN the full batch runs at once
        self.assertEqual([status for status, _, _ in replies], [200] * 4)
        self.assertEqual([call["size"] for call in server.calls()], [8])
