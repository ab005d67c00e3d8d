"""Failures answer at once: a full queue is a 503 with Retry-After, a passed deadline a 504, a dead worker a 500
naming it (and it comes back), and /ping is unhealthy until every worker has loaded its model."""
import asyncio

from .support import ServerTestCase


class Health(ServerTestCase):
    async def test_ping_is_unhealthy_until_every_worker_has_loaded_its_model(self):
        # GIVEN two workers whose model_fn waits for a gate
        server = await self.server(gated=True, MODEL_SERVER_VISIBLE_CORES="0;1")
        # WHEN the server listens but no model has loaded
        status, body = await server.ping(self.session)
        # THEN /ping answers 503 and says which workers are not loaded
        self.assertEqual(status, 503)
        self.assertEqual([w["loaded"] for w in body["workers"]], [False, False])
        # AND once the models load it answers 200
        server.open_gate()
        body = await server.wait_for(self.session, lambda status, _: status == 200, "both workers to load")
        self.assertEqual([w["loaded"] for w in body["workers"]], [True, True])

    async def test_a_model_that_fails_to_load_keeps_ping_unhealthy_and_names_the_error(self):
        server = await self.server(wait_healthy=False, MODEL_SERVER_MODEL_DIR="/nonexistent/model")
        body = await server.wait_for(
            self.session, lambda status, body: status == 503 and "lastError" in body["workers"][0], "the load error"
        )
        self.assertIn("inference.py is missing", body["workers"][0]["lastError"])


class QueueBound(ServerTestCase):
    async def test_a_full_queue_answers_503_with_retry_after_at_once(self):
        # GIVEN a queue of 2 and a worker that has not loaded yet, so nothing leaves the queue
        server = await self.server(gated=True, MODEL_SERVER_MAX_QUEUED_REQUESTS=2)
        waiting = [asyncio.create_task(server.invoke(self.session, [i])) for i in range(2)]
        await server.wait_for(self.session, lambda _, body: body and body["queued"] == 2, "two queued requests")
        # WHEN a third request arrives
        status, body, headers = await server.invoke(self.session, [9])
        # THEN it is refused with 503 and a Retry-After, without waiting for the queue
        self.assertEqual(status, 503)
        self.assertEqual(headers["Retry-After"], "1")
        self.assertIn("MODEL_SERVER_MAX_QUEUED_REQUESTS", body["error"])
        # AND the queued requests are served once the worker is up
        server.open_gate()
        self.assertEqual([(s, b["outputs"]) for s, b, _ in await asyncio.gather(*waiting)], [(200, [0.0]), (200, [2.0])])


class Deadlines(ServerTestCase):
    async def test_a_request_past_its_deadline_in_the_queue_gets_504_and_never_runs(self):
        # GIVEN a 300 ms deadline and a worker that has not loaded yet
        server = await self.server(gated=True, MODEL_SERVER_REQUEST_TIMEOUT_MS=300)
        # WHEN a request waits in the queue past its deadline
        status, body, _ = await server.invoke(self.session, [5])
        # THEN it gets 504 saying where the time went
        self.assertEqual(status, 504)
        self.assertIn("waiting in the queue", body["error"])
        # AND it has left the queue: once the worker is up, it never runs
        self.assertEqual((await server.ping(self.session))[1]["queued"], 0)
        server.open_gate()
        await server.wait_healthy(self.session)
        status, body, _ = await server.invoke(self.session, [7])
        self.assertEqual((status, body["outputs"]), (200, [14.0]))
        self.assertEqual([call["inputs"] for call in server.calls()], [[7.0]])

    async def test_a_request_whose_device_call_outlasts_its_deadline_gets_504(self):
        server = await self.server(MODEL_SERVER_REQUEST_TIMEOUT_MS=300, TEST_DEVICE_MS=2000, MODEL_SERVER_MAX_DELAY_MS=0)
        status, body, _ = await server.invoke(self.session, [1])
        self.assertEqual(status, 504)
        self.assertIn("while a worker ran it", body["error"])


class WorkerCrash(ServerTestCase):
    async def test_a_worker_that_dies_answers_its_requests_with_500_at_once_and_is_restarted(self):
        # GIVEN two workers and a deadline far beyond the client's 20 s patience, so only a prompt answer passes
        server = await self.server(MODEL_SERVER_VISIBLE_CORES="0;1", MODEL_SERVER_REQUEST_TIMEOUT_MS=600000)
        first_loads = len(server.loads())
        # WHEN a request kills the worker that runs it
        status, body, _ = await server.invoke(self.session, [-1])
        # THEN it gets a 500 naming the worker, its cores and the signal
        self.assertEqual(status, 500)
        self.assertRegex(body["error"], r"worker \d \(NEURON_RT_VISIBLE_CORES=\d\) was killed by signal SIGKILL")
        # AND the worker is restarted with the same cores, and the server serves again (the request was retried once on
        # the other worker, which it killed too: both restart)
        await server.wait_for(self.session, lambda _, __: len(server.loads()) == first_loads + 2, "the restarts")
        await server.wait_healthy(self.session)
        loads = server.loads()
        self.assertEqual({(l["worker"], l["cores"]) for l in loads}, {("0", "0"), ("1", "1")})
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(6)))
        self.assertEqual([s for s, _, _ in replies], [200] * 6)
        self.assertIn("was killed by signal SIGKILL", server.stderr())


class Pinning(ServerTestCase):
    async def test_each_worker_imports_the_framework_with_its_own_neuron_rt_visible_cores(self):
        # GIVEN the plan's layout of three core groups, and a stale NEURON_RT_NUM_CORES in the container environment
        server = await self.server(MODEL_SERVER_VISIBLE_CORES="0;1;2-3", NEURON_RT_NUM_CORES="4")
        # THEN each worker saw its own group at import time, before model_fn ran
        self.assertEqual(sorted((l["worker"], l["cores"]) for l in server.loads()), [("0", "0"), ("1", "1"), ("2", "2-3")])
        # AND responses come from workers with those cores
        replies = await asyncio.gather(*(server.invoke(self.session, [i]) for i in range(12)))
        self.assertTrue({body["cores"] for _, body, _ in replies} <= {"0", "1", "2-3"})
        _, ping = await server.ping(self.session)
        self.assertEqual([w["visibleCores"] for w in ping["workers"]], ["0", "1", "2-3"])
        # AND the stale first-come setting was not passed on
        self.assertEqual({l["numCores"] for l in server.loads()}, {None})


class HandlerErrors(ServerTestCase):
    async def test_a_body_the_handler_cannot_read_gets_400_and_its_batch_mates_are_served(self):
        # GIVEN a batching delay long enough for the two requests to meet
        server = await self.server(MODEL_SERVER_MAX_DELAY_MS=100)

        async def broken():
            async with self.session.post(f"{server.url}/invocations", data=b"not json", headers={"Content-Type": "application/json"}) as response:
                return response.status, await response.json()

        # WHEN a malformed request and a good one arrive together
        (bad_status, bad_body), (good_status, good_body, _) = await asyncio.gather(broken(), server.invoke(self.session, [4]))
        # THEN the malformed one gets 400 naming input_fn and the good one its answer
        self.assertEqual(bad_status, 400)
        self.assertIn("input_fn rejected the request: JSONDecodeError", bad_body["error"])
        self.assertEqual((good_status, good_body["outputs"]), (200, [8.0]))
        self.assertEqual([call["inputs"] for call in server.calls()], [[4.0]])


class Shutdown(ServerTestCase):
    async def test_sigterm_stops_the_workers_writes_the_last_metrics_and_exits_0(self):
        # GIVEN a server that has served a request, with metrics due only once a minute
        server = await self.server(MODEL_SERVER_VISIBLE_CORES="0;1")
        self.assertEqual((await server.invoke(self.session, [1]))[0], 200)
        # WHEN the container is stopped
        server.process.terminate()
        code = await asyncio.to_thread(server.process.wait, 15)
        # THEN it exits cleanly, both workers stopped, and the interval's counts were not lost
        self.assertEqual(code, 0, server.stderr())
        self.assertEqual(server.stderr().count(" stopped"), 2)
        self.assertIn('"Inputs":1', server.stdout())
