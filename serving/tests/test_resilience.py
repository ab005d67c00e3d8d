"""Under failure: one bad input fails one request, a hung worker is killed and its requests run again elsewhere, and
/ping tells the truth about capacity (in service while some workers serve, out when none can or one never comes back)."""
import asyncio
import math
import os
import signal
import tempfile

from .support import ServerTestCase


class FaultIsolation(ServerTestCase):
    async def test_when_predict_fn_raises_on_one_input_only_that_request_fails_and_the_cost_is_bounded(self):
        # GIVEN batches of up to 8 that wait 150 ms to fill
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=150)
        # WHEN 8 requests share a batch and predict_fn raises on one input
        inputs = [[1], [2], [3], [-2], [5], [6], [7], [8]]
        replies = await asyncio.gather(*(server.invoke(self.session, i) for i in inputs))
        # THEN only that request fails, with predict_fn's error
        self.assertEqual([s for s, _, _ in replies], [200, 200, 200, 500, 200, 200, 200, 200])
        self.assertIn("predict_fn failed: ValueError: the model cannot take -2", replies[3][1]["error"])
        self.assertEqual([b["outputs"] for s, b, _ in replies if s == 200], [[2.0 * i[0]] for i in inputs if i != [-2]])
        # AND the batch ran together first, then in halves: at most 2 x log2(8) calls more
        attempts = server.attempts()
        self.assertEqual(len(attempts[0]["inputs"]), 8, attempts)
        self.assertLessEqual(len(attempts), 1 + 2 * math.ceil(math.log2(8)))
        self.assertIn([-2.0], [a["inputs"] for a in attempts])

    async def test_when_no_time_is_left_before_the_deadline_the_batch_mates_fail_at_once_instead_of_being_rerun(self):
        # GIVEN a device call of 400 ms and a 600 ms deadline: after one failed call, no half fits
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=100, TEST_DEVICE_MS=400, MODEL_SERVER_REQUEST_TIMEOUT_MS=600)
        replies = await asyncio.gather(*(server.invoke(self.session, i) for i in ([1], [-2])))
        # THEN both get predict_fn's error, the innocent one saying why it was not run apart, and nothing ran again
        self.assertEqual([s for s, _, _ in replies], [500, 500])
        self.assertIn("no time was left before its deadline", replies[0][1]["error"])
        self.assertEqual(len(server.attempts()), 1)


class Watchdog(ServerTestCase):
    async def test_a_stopped_worker_is_killed_restarted_and_its_requests_are_served_by_another(self):
        # GIVEN two workers taking one request at a time, a 500 ms watchdog and a deadline beyond the client's patience
        server = await self.server(
            MODEL_SERVER_VISIBLE_CORES="0;1", MODEL_SERVER_MAX_BATCH_SIZE=1, MODEL_SERVER_WATCHDOG_MS=500,
            MODEL_SERVER_REQUEST_TIMEOUT_MS=600000, TEST_DEVICE_MS=20,
        )
        stopped = next(l["pid"] for l in server.loads() if l["worker"] == "0")
        # WHEN worker 0 hangs (SIGSTOP) while it waits for work: once it has asked for work, not merely loaded (on a
        # loaded machine a stop between the load and its first request for work left it holding nothing, never hung)
        await server.wait_for(self.session, lambda _, body: body and body["workers"][0]["idle"], "worker 0 to ask for work")
        os.kill(stopped, signal.SIGSTOP)
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(12)))
        # THEN every request is answered, those handed to the hung worker by worker 1
        self.assertEqual([(s, b["outputs"]) for s, b, _ in replies], [(200, [2.0 * i]) for i in range(12)])
        # (the log line goes out through the front end's stderr writer thread, which a loaded machine may run late)
        await server.wait_for(
            self.session, lambda _, __: "worker 0 (NEURON_RT_VISIBLE_CORES=0) is hung" in server.stderr(), "the watchdog's log line"
        )
        # AND the hung worker was killed and restarted, while /ping stayed in service with one worker serving
        status, body = await server.ping(self.session)
        self.assertEqual(status, 200, body)
        await server.wait_for(self.session, lambda _, __: len([l for l in server.loads() if l["worker"] == "0"]) == 2, "the restart")
        self.assertNotIn(stopped, [l["pid"] for l in server.loads()[-1:]])

    async def test_a_hung_call_is_retried_once_alone_so_its_batch_mate_is_served_and_it_fails_after_the_retry(self):
        await hung_call_with_a_batch_mate(self, max_delay_ms=150)

    async def test_a_request_that_kills_its_worker_does_not_take_its_batch_mates_with_it(self):
        server = await self.server(MODEL_SERVER_VISIBLE_CORES="0;1", MODEL_SERVER_MAX_DELAY_MS=150, MODEL_SERVER_REQUEST_TIMEOUT_MS=600000)
        replies = await asyncio.gather(*(server.invoke(self.session, i) for i in ([1], [-1], [3])))
        self.assertEqual([s for s, _, _ in replies], [200, 500, 200])
        self.assertEqual([replies[0][1]["outputs"], replies[2][1]["outputs"]], [[2.0], [6.0]])
        self.assertRegex(replies[1][1]["error"], r"was killed by signal SIGKILL while running this request \(a retry")


class HealthReflectsCapacity(ServerTestCase):
    async def test_a_worker_reloading_keeps_the_instance_in_service_with_a_queue_bound_at_its_share(self):
        # GIVEN two workers, a queue of 4, one-request calls of 1 s, and reloads that wait for a gate
        server = await self.server(
            MODEL_SERVER_VISIBLE_CORES="0;1", MODEL_SERVER_MAX_QUEUED_REQUESTS=4, MODEL_SERVER_MAX_BATCH_SIZE=1,
            TEST_DEVICE_MS=1000, reload_gated=True, TEST_DECODE_LOG=os.path.join(self.enterContext(tempfile.TemporaryDirectory()), "decodes"),
        )
        # WHEN worker 0 dies and reloads
        os.kill(next(l["pid"] for l in server.loads() if l["worker"] == "0"), signal.SIGKILL)
        body = await server.wait_for(self.session, lambda _, body: body and body["servingWorkers"] == 1, "worker 0 to be down")
        # THEN /ping stays 200 with one worker serving and half the queue
        status, body = await server.ping(self.session)
        self.assertEqual((status, body["servingWorkers"], body["queueLimit"]), (200, 1, 2), body)
        # AND beyond that half, requests are refused at once naming the capacity (the worker holds two: one in its
        # call, one decoded ahead of the next)
        # (two first, so that the worker has taken its two before the next two come: four at once on a loaded host
        # could all arrive before the worker asks for its second, and the fourth would find the queue full)
        waiting = [asyncio.create_task(server.invoke(self.session, [i])) for i in range(2)]
        await server.wait_for(self.session, lambda _, __: _lines(server.env["TEST_DECODE_LOG"]) == 2, "the worker to hold two")
        waiting += [asyncio.create_task(server.invoke(self.session, [i])) for i in range(2, 4)]
        await server.wait_for(self.session, lambda _, body: body["queued"] == 2, "two queued requests")
        status, refused, _ = await server.invoke(self.session, [9])
        self.assertEqual(status, 503)
        self.assertIn("1 of 2 workers serving", refused["error"])
        self.assertEqual([s for s, _, _ in await asyncio.gather(*waiting)], [200, 200, 200, 200])

    async def test_a_worker_that_cannot_reload_takes_the_instance_out_of_service_to_be_replaced(self):
        server = await self.server(MODEL_SERVER_VISIBLE_CORES="0;1", TEST_RELOAD_FAIL="1")
        os.kill(next(l["pid"] for l in server.loads() if l["worker"] == "0"), signal.SIGKILL)
        # The first failed reload leaves it in service: a restart may still succeed
        await server.wait_for(self.session, lambda _, body: body and body["workers"][0]["failedLoads"] == 1, "a failed reload")
        self.assertEqual((await server.ping(self.session))[0], 200)
        # After three in a row it asks to be replaced
        body = await server.wait_for(self.session, lambda status, _: status == 503, "the instance to turn unhealthy")
        self.assertIn("failed to load 3 times in a row: replace the instance", body["reason"])


async def hung_call_with_a_batch_mate(case, max_delay_ms):
    """A request that hangs predict_fn shares a batch with a good one: the good one is served by its retry, alone, and
    the bad one fails after its own retry. `max_delay_ms`: the batching delay (0: the chained worker)."""
    # GIVEN two workers, a 500 ms watchdog, the batching delay, and models that load only when told
    server = await case.server(
        gated=True, MODEL_SERVER_VISIBLE_CORES="0;1", MODEL_SERVER_WATCHDOG_MS=500, MODEL_SERVER_MAX_DELAY_MS=max_delay_ms,
        MODEL_SERVER_REQUEST_TIMEOUT_MS=600000,
    )
    # WHEN both are queued before any worker is up, so the first worker takes them together (two requests sent at once
    # on a loaded host could land further apart than the delay)
    replies = asyncio.gather(server.invoke(case.session, [-3]), server.invoke(case.session, [4]))
    await server.wait_for(case.session, lambda _, body: body and body["queued"] == 2, "two queued requests")
    server.open_gate()
    (bad, bad_body, _), (good, good_body, _) = await replies
    # THEN the good one is served by its retry, alone; the bad one hung two workers and gets 500 naming the watchdog
    case.assertEqual((good, good_body["outputs"]), (200, [8.0]))
    case.assertEqual(bad, 500)
    case.assertIn("was stopped by the watchdog", bad_body["error"])
    case.assertIn("a retry", bad_body["error"])
    attempts = [a["inputs"] for a in server.attempts()]
    case.assertEqual(attempts.count([-3.0]), 1, attempts)  # the retry ran alone
    case.assertIn([4.0], attempts)


def _lines(path):
    """Lines in a log the test model appends to; 0 before its first."""
    if not os.path.exists(path):
        return 0
    with open(path) as log:
        return sum(1 for _ in log)
