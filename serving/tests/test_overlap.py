"""The worker's pipeline: the next batch's input_fn runs while the device call of the previous one runs, and the
overlap changes nothing a request sees (its answer, its order within the batch, a failing input failing alone)."""
import asyncio
import json
import os
import tempfile

from .support import ServerTestCase


async def _server_logging_decodes(case, **env):
    """One worker of batches of 4, a 40 ms device call and an input_fn of 10 ms per request that logs when it ran;
    returns the server and a function reading that log."""
    tmp = tempfile.TemporaryDirectory(prefix="model-server-overlap-")
    case.addCleanup(tmp.cleanup)
    decode_log = os.path.join(tmp.name, "decodes.jsonl")
    server = await case.server(
        MODEL_SERVER_MAX_BATCH_SIZE=4, MODEL_BATCH_SIZE=4, MODEL_SERVER_MAX_DELAY_MS=100, TEST_DEVICE_MS=40,
        TEST_DECODE_MS=10, TEST_DECODE_LOG=decode_log, **env,
    )

    def decodes():
        with open(decode_log) as log:
            return [json.loads(line) for line in log if line.strip()]

    return server, decodes


class HostWorkOverlapsTheDeviceCall(ServerTestCase):
    async def test_input_fn_of_the_next_batch_runs_during_the_call_and_every_answer_is_its_own(self):
        # GIVEN one worker, batches of 4, an input_fn of 10 ms per request and a device call of 40 ms
        server, decodes = await _server_logging_decodes(self)
        # WHEN 16 single-input requests arrive at once, one of them an input input_fn rejects
        inputs = [[i] for i in range(16)]
        inputs[9] = ["not a number"]
        replies = await asyncio.gather(*(server.invoke(self.session, x) for x in inputs))
        # THEN each request gets its own answer, and only the rejected one fails
        self.assertEqual([(s, b.get("outputs")) for s, b, _ in replies[:9]], [(200, [2.0 * i]) for i in range(9)])
        self.assertEqual(replies[9][0], 400)
        self.assertIn("input_fn rejected the request", replies[9][1]["error"])
        self.assertEqual([(s, b["outputs"]) for s, b, _ in replies[10:]], [(200, [2.0 * i]) for i in range(10, 16)])
        # AND the 15 good inputs ran once each, in batches of at most 4
        calls = server.calls()
        self.assertEqual(sorted(x for c in calls for x in c["inputs"]), [float(i) for i in range(16) if i != 9])
        self.assertTrue(all(c["size"] <= 4 for c in calls), calls)
        # AND some input_fn ran wholly inside a device call: the worker decoded the next batch meanwhile
        inside = [d for d in decodes() for c in calls if c["start"] <= d["start"] and d["end"] <= c["end"]]
        self.assertGreater(len(inside), 0, (decodes(), calls))

    async def test_a_request_that_arrives_during_a_call_is_batched_at_most_the_delay_after_it_arrived(self):
        # GIVEN one worker, batches of 8, a delay of 20 ms and a device call of 200 ms
        server = await self.server(MODEL_SERVER_MAX_BATCH_SIZE=8, MODEL_BATCH_SIZE=8, MODEL_SERVER_MAX_DELAY_MS=20, TEST_DEVICE_MS=200)
        # WHEN a first request starts a call and a second arrives while it runs
        first = asyncio.create_task(server.invoke(self.session, [1]))
        await server.wait_for(self.session, lambda _, __: os.path.exists(server.attempt_log), "the first call")
        second = await server.invoke(self.session, [2])
        # THEN both are answered, each in a call of its own (the second was decoded ahead and waited for the device)
        self.assertEqual([(await first)[1]["outputs"], second[1]["outputs"]], [[2.0], [4.0]])
        self.assertEqual([c["inputs"] for c in server.calls()], [[1.0], [2.0]])


class WithoutOverlap(ServerTestCase):
    async def test_with_overlap_off_no_input_fn_runs_during_a_call_and_answers_are_the_same(self):
        # GIVEN MODEL_SERVER_OVERLAP=0 (a stock plan), the same handler and burst as above
        server, decodes = await _server_logging_decodes(self, MODEL_SERVER_OVERLAP=0)
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(12)))
        # THEN every answer is its own
        self.assertEqual([(s, b["outputs"]) for s, b, _ in replies], [(200, [2.0 * i]) for i in range(12)])
        # AND no input_fn overlapped any device call
        calls = server.calls()
        overlapping = [d for d in decodes() for c in calls if d["start"] < c["end"] and c["start"] < d["end"]]
        self.assertEqual(overlapping, [], calls)

    async def test_a_stock_worker_asking_ahead_during_its_call_never_takes_work_an_idle_worker_could_start(self):
        # GIVEN two stock workers (MODEL_SERVER_OVERLAP=0) of one request per call: a worker asks for its next request
        # as its call starts, so that the hand-over is not between its calls
        server = await self.server(
            MODEL_SERVER_VISIBLE_CORES="0;1", MODEL_SERVER_MAX_BATCH_SIZE=1, MODEL_BATCH_SIZE=1, MODEL_SERVER_MAX_DELAY_MS=0,
            MODEL_SERVER_OVERLAP=0, TEST_DEVICE_MS=300,
        )
        # WHEN a long call (900 ms) starts on one worker, then a short one (300 ms) on the other, which ends first and
        # waits behind the long call's worker in the order they asked ahead
        long_call = asyncio.ensure_future(server.invoke(self.session, [1000]))
        await server.wait_for(self.session, lambda _, __: len(server.attempts()) == 1, "the long call to start")
        self.assertEqual((await server.invoke(self.session, [2]))[0], 200)
        # AND a third request comes while the long call still runs
        third = await server.invoke(self.session, [3])
        # THEN the idle worker runs it at once, beside the long call, not the busy worker that asked ahead first (the
        # short call and the third request have 600 ms of the long call to fit in, a loaded machine's slack)
        self.assertEqual([(s, b["outputs"]) for s, b, _ in (await long_call, third)], [(200, [2000.0]), (200, [6.0])])
        long_one, _, last = server.calls()
        self.assertNotEqual(long_one["pid"], last["pid"])
        self.assertLess(last["start"], long_one["end"])
