"""The worker without a batching delay (serving/chained.py): it decodes its next request while the device call runs,
so calls follow each other, and this changes nothing a request sees (its answer, a failing input failing alone, a
retried request running alone)."""
import asyncio
import json
import os
import tempfile

from .support import ServerTestCase
from .test_resilience import hung_call_with_a_batch_mate


class CallsFollowEachOther(ServerTestCase):
    async def test_each_request_is_decoded_during_the_call_before_it_and_gets_its_own_answer(self):
        # GIVEN one worker of one request per call, no batching delay, a device call of 200 ms and an input_fn of 10 ms
        tmp = tempfile.TemporaryDirectory(prefix="model-server-chained-")
        self.addCleanup(tmp.cleanup)
        decode_log = os.path.join(tmp.name, "decodes.jsonl")
        server = await self.server(
            MODEL_SERVER_MAX_BATCH_SIZE=1, MODEL_BATCH_SIZE=1, MODEL_SERVER_MAX_DELAY_MS=0, TEST_DEVICE_MS=200,
            TEST_DECODE_MS=10, TEST_DECODE_LOG=decode_log,
        )
        # WHEN five requests arrive at once
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(5)))
        # THEN each gets its own answer
        self.assertEqual([(s, b["outputs"]) for s, b, _ in replies], [(200, [2.0 * i]) for i in range(5)])
        # AND every call but the first ran a request decoded before the call before it ended (asked for as that call was
        # handed over): when a call ended, the next one's input was ready, with no hand-over or input_fn between them
        calls = server.calls()
        with open(decode_log) as log:
            decoded = {tuple(d["inputs"]): d for d in map(json.loads, filter(str.strip, log))}
        self.assertEqual(len(calls), 5, calls)
        for before, call in zip(calls, calls[1:]):
            decode = decoded[tuple(int(x) for x in call["inputs"])]
            self.assertLessEqual(decode["end"], before["end"], (before, decode))


class FailuresStayWithTheirRequest(ServerTestCase):
    async def test_a_batch_from_the_backlog_that_fails_is_split_and_only_the_failing_request_fails(self):
        # GIVEN one worker of batches of 4, no delay, 100 ms calls: requests queued during a call form the next batch
        server = await self.server(MODEL_SERVER_MAX_BATCH_SIZE=4, MODEL_BATCH_SIZE=4, MODEL_SERVER_MAX_DELAY_MS=0, TEST_DEVICE_MS=100)
        # WHEN a long call (300 ms) runs while a request is decoded ahead and four more queue, one that predict_fn
        # cannot take
        long_call = asyncio.ensure_future(server.invoke(self.session, [1000]))
        await server.wait_for(self.session, lambda _, __: len(server.attempts()) == 1, "the long call to start")
        ahead = asyncio.ensure_future(server.invoke(self.session, [1]))
        await server.wait_for(self.session, lambda _, body: body and body["queued"] == 0, "the next request decoded ahead")
        rest = await asyncio.gather(*(server.invoke(self.session, [x]) for x in (2, -2, 3, 4)))
        # THEN every good request is answered, and only the failing one gets predict_fn's error
        self.assertEqual([(s, b.get("outputs")) for s, b, _ in (await long_call, await ahead)], [(200, [2000.0]), (200, [2.0])])
        self.assertEqual([s for s, _, _ in rest], [200, 500, 200, 200])
        self.assertIn("predict_fn failed", rest[1][1]["error"])
        self.assertEqual([rest[i][1]["outputs"] for i in (0, 2, 3)], [[4.0], [6.0], [8.0]])

    async def test_a_request_input_fn_refuses_during_a_call_is_answered_and_the_call_s_request_too(self):
        # GIVEN one worker of one request per call, no delay, 300 ms calls
        server = await self.server(MODEL_SERVER_MAX_BATCH_SIZE=1, MODEL_BATCH_SIZE=1, MODEL_SERVER_MAX_DELAY_MS=0, TEST_DEVICE_MS=300)
        # WHEN a request input_fn refuses arrives while a call runs (it is the answer to the worker asking ahead)
        running = asyncio.ensure_future(server.invoke(self.session, [5]))
        await server.wait_for(self.session, lambda _, __: len(server.attempts()) == 1, "the call to start")
        refused = await server.invoke(self.session, ["not a number"])
        # THEN it gets input_fn's 400, and the call's request its answer; the worker goes on serving
        self.assertEqual(refused[0], 400, refused)
        self.assertIn("input_fn rejected the request", refused[1]["error"])
        self.assertEqual((await running)[1]["outputs"], [10.0])
        self.assertEqual((await server.invoke(self.session, [6]))[1]["outputs"], [12.0])

    async def test_a_hung_call_is_retried_alone_and_its_batch_mate_is_served(self):
        # (two workers of batches of up to 8 with no delay: the same case as with a delay, serving/tests/test_resilience)
        await hung_call_with_a_batch_mate(self, max_delay_ms=0)
