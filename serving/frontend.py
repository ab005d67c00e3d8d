"""The front end: HTTP on aiohttp, one shared bounded queue, and a supervisor per worker.

Why aiohttp.web: one package with its own HTTP/1.1 server (C-accelerated parser, keep-alive) and the same asyncio
loop that reads the workers' sockets, so queueing, deadlines and worker supervision share one thread with no locks.
FastAPI adds request validation and OpenAPI that an opaque `/invocations` body does not use, and needs a separate
ASGI server (uvicorn) with its own loop and signal handling.

Why pull and not push: a worker asks for work when it is free (see worker.py), so a slow or busy worker never holds
requests another could run, and the queue stays one shared FIFO in the front end, where deadlines and the bound are
enforced in one place.
"""
import asyncio
import collections
import itertools
import json
import os
import signal
import socket
import sys
import time

from aiohttp import web

from . import protocol
from .metrics import Metrics

# SageMaker real-time endpoints cap payloads at 6 MB; EC2 deployments may send more. Above this, 413.
MAX_BODY_BYTES = 64 * 1024 * 1024
# A worker that fails to load is retried with exponential backoff up to this, so a bad model does not spin the CPU.
MAX_RESTART_DELAY_S = 30.0
# SageMaker returns this response header to the InvokeEndpoint caller as `CustomAttributes` (at most 1024 visible
# US-ASCII characters; https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html),
# and a load balancer passes it on as is: one header gives the caller the server-side time and batch on both hostings.
TIMING_HEADER = "X-Amzn-SageMaker-Custom-Attributes"
SERVING_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def log(message):
    print(f"model-server: {message}", file=sys.stderr, flush=True)


class Pending:
    """A request between arrival and answer."""

    __slots__ = ("item", "future", "state", "batch")

    def __init__(self, item, future):
        self.item = item
        self.future = future
        self.state = "queued"  # queued -> assigned (a worker holds it) -> answered
        self.batch = None  # the BatchStats of the device call that answered it, for the timing header


class WorkerSlot:
    def __init__(self, index, cores):
        self.index = index
        self.cores = cores
        self.process = None
        self.writer = None
        self.ready = False
        self.inflight = {}  # request id -> Pending
        self.waiting = None  # (max requests, timer handle or None) while the worker waits for work
        self.last_error = None
        self.failed_loads = 0

    def describe(self):
        return f"worker {self.index} (NEURON_RT_VISIBLE_CORES={self.cores})"


class Server:
    def __init__(self, config):
        self.config = config
        self.queue = collections.deque()
        self.ids = itertools.count(1)
        self.workers = [WorkerSlot(index, cores) for index, cores in enumerate(config.visible_cores)]
        self.waiters = []  # workers waiting for work, in the order they asked
        self.metrics = Metrics(config.metrics_namespace, config.metrics_service, config.visible_cores)
        self.stopping = False
        self.tasks = []

    # ---- workers -------------------------------------------------------------------------------------------------

    def worker_environment(self, slot):
        env = dict(os.environ)
        # Exact pinning: the runtime reads this when the worker first loads the framework; NUM_CORES would be
        # first-come, so drop it to leave no doubt about which cores the worker owns.
        env["NEURON_RT_VISIBLE_CORES"] = slot.cores
        env.pop("NEURON_RT_NUM_CORES", None)
        env["MODEL_SERVER_WORKER_INDEX"] = str(slot.index)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (SERVING_ROOT, env.get("PYTHONPATH")) if p)
        return env

    async def start_worker(self, slot):
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            slot.process = await asyncio.create_subprocess_exec(
                sys.executable,
                "-m",
                "serving.worker",
                "--fd",
                str(child.fileno()),
                env=self.worker_environment(slot),
                pass_fds=(child.fileno(),),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=sys.stderr.fileno(),  # stdout carries only the front end's metric lines
            )
        finally:
            child.close()
        reader, slot.writer = await asyncio.open_unix_connection(sock=parent, limit=MAX_BODY_BYTES)
        log(f"{slot.describe()} started as pid {slot.process.pid}")
        return reader

    async def supervise(self, slot):
        while not self.stopping:
            try:
                reader = await self.start_worker(slot)
            except OSError as error:  # fork/exec failed (memory, file descriptors): retry like a failed load
                slot.last_error = f"could not start the worker: {error}"
                slot.failed_loads += 1
                log(f"{slot.describe()}: {slot.last_error}")
                await asyncio.sleep(min(MAX_RESTART_DELAY_S, 0.5 * 2 ** (slot.failed_loads - 1)))
                continue
            try:
                while True:
                    self.on_message(slot, await protocol.read_message(reader))
            except (asyncio.IncompleteReadError, ConnectionError):
                pass  # the worker's end closed: it is exiting
            code = await slot.process.wait()
            loaded = slot.ready
            self.on_worker_exit(slot, code)
            if self.stopping:
                return
            slot.failed_loads = 0 if loaded else slot.failed_loads + 1
            delay = 0.0 if loaded else min(MAX_RESTART_DELAY_S, 0.5 * 2 ** (slot.failed_loads - 1))
            log(f"restarting {slot.describe()} in {delay:.1f} s")
            await asyncio.sleep(delay)

    def on_worker_exit(self, slot, code):
        slot.ready = False
        slot.writer = None
        self.stop_waiting(slot)
        if self.stopping:
            status, message = 503, f"the server stopped {slot.describe()} while it ran this request"
            log(f"{slot.describe()} stopped")
        else:
            status, message = 500, f"{slot.describe()} {_exit_cause(code)} while running this request; it is being restarted"
            log(f"{slot.describe()} {_exit_cause(code)}; answering its {len(slot.inflight)} requests with 500")
            self.metrics.workers[slot.index].counters["WorkerRestarts"] += 1
            self.metrics.count("WorkerErrors")
        for pending in slot.inflight.values():
            self.answer(pending, status, _error_body(message), "application/json")
        slot.inflight.clear()

    def on_message(self, slot, message):
        kind = message[0]
        if kind == protocol.TAKE:
            self.on_take(slot, message[1], message[2])
        elif kind == protocol.DONE:
            for request_id, status, body, content_type in message[1]:
                pending = slot.inflight.pop(request_id, None)
                if pending is not None:
                    pending.batch = message[2]
                    self.answer(pending, status, body, content_type)
            if message[2] is not None:
                self.metrics.workers[slot.index].record_batch(message[2])
        elif kind == protocol.PUT_BACK:
            for request_id in reversed(message[1]):
                pending = slot.inflight.pop(request_id, None)
                if pending is not None and not pending.future.done():
                    pending.state = "queued"
                    self.queue.appendleft(pending)
            self.dispatch()
        elif kind == protocol.LOADED:
            slot.ready = True
            slot.last_error = None
            log(f"{slot.describe()} loaded the model (pid {message[1]})")
        elif kind == protocol.LOAD_FAILED:
            slot.last_error = message[1].strip().splitlines()[-1]
            log(f"{slot.describe()} failed to load the model:\n{message[1]}")

    # ---- the queue -----------------------------------------------------------------------------------------------

    def on_take(self, slot, max_requests, wait_s):
        if self.give(slot, max_requests):
            return
        if wait_s == 0:
            self.send(slot, (protocol.REQUESTS, []))
            return
        timer = None if wait_s is None else asyncio.get_running_loop().call_later(wait_s, self.expire, slot)
        slot.waiting = (max_requests, timer)
        self.waiters.append(slot)

    def give(self, slot, max_requests):
        """Sends the worker up to max_requests live requests from the head of the queue; False when there were none."""
        items = []
        while self.queue and len(items) < max_requests:
            pending = self.queue.popleft()
            if pending.future.done():
                continue
            pending.state = "assigned"
            slot.inflight[pending.item.id] = pending
            items.append(pending.item)
        if items:
            self.send(slot, (protocol.REQUESTS, items))
        return bool(items)

    def dispatch(self):
        while self.queue and self.waiters:
            # A worker filling a batch (it waits with a timer) goes first: adding to its batch is what batching is for.
            slot = next((w for w in self.waiters if w.waiting[1] is not None), self.waiters[0])
            max_requests, _ = slot.waiting
            if not self.give(slot, max_requests):
                return
            self.stop_waiting(slot)

    def expire(self, slot):
        if slot.waiting is not None:
            self.stop_waiting(slot)
            self.send(slot, (protocol.REQUESTS, []))

    def stop_waiting(self, slot):
        if slot.waiting is not None:
            if slot.waiting[1] is not None:
                slot.waiting[1].cancel()
            slot.waiting = None
            self.waiters.remove(slot)

    def send(self, slot, message):
        if slot.writer is not None and not slot.writer.is_closing():
            slot.writer.write(protocol.encode(message))

    def answer(self, pending, status, body, content_type):
        pending.state = "answered"
        if not pending.future.done():
            pending.future.set_result((status, body, content_type))

    # ---- HTTP ----------------------------------------------------------------------------------------------------

    async def ping(self, _request):
        workers = [
            {"worker": s.index, "visibleCores": s.cores, "loaded": s.ready, **({"lastError": s.last_error} if s.last_error else {})}
            for s in self.workers
        ]
        healthy = all(s.ready for s in self.workers)
        body = {"healthy": healthy, "queued": len(self.queue), "workers": workers}
        return web.json_response(body, status=200 if healthy else 503)

    async def invocations(self, request):
        body = await request.read()
        if len(self.queue) >= self.config.max_queued_requests:
            self.metrics.count("QueueFull")
            return _json_error(
                503,
                f"the queue is full ({self.config.max_queued_requests} requests waiting, MODEL_SERVER_MAX_QUEUED_REQUESTS); retry later",
                headers={"Retry-After": "1"},
            )
        now = time.monotonic()
        deadline = now + self.config.request_timeout_s
        accept = request.headers.get("Accept", "")
        if not accept or accept == "*/*":
            accept = self.config.default_accept
        item = protocol.WorkItem(
            next(self.ids), body, request.headers.get("Content-Type", "application/json"), accept, now, deadline
        )
        pending = Pending(item, asyncio.get_running_loop().create_future())
        self.queue.append(pending)
        self.dispatch()
        try:
            status, body, content_type = await asyncio.wait_for(asyncio.shield(pending.future), self.config.request_timeout_s)
        except asyncio.TimeoutError:
            self.metrics.count("DeadlineExceeded")
            where = "waiting in the queue" if pending.state == "queued" else "while a worker ran it"
            self.withdraw(pending)
            return _json_error(
                504, f"the request's deadline of {self.config.request_timeout_s * 1000:.0f} ms "
                f"(MODEL_SERVER_REQUEST_TIMEOUT_MS) passed {where}",
                headers={TIMING_HEADER: timing_attributes(now, None)},
            )
        finally:
            if not pending.future.done():
                self.withdraw(pending)  # the client went away
        return web.Response(
            status=status,
            body=body,
            content_type=_base_type(content_type),
            charset=_charset(content_type),
            headers={TIMING_HEADER: timing_attributes(now, pending.batch)},
        )

    def withdraw(self, pending):
        """Drops a request nobody waits for: out of the queue if not started; a worker's late answer is ignored."""
        if pending.state == "queued":
            try:
                self.queue.remove(pending)
            except ValueError:
                pass
        if not pending.future.done():
            pending.future.cancel()

    # ---- lifecycle -----------------------------------------------------------------------------------------------

    async def flush_metrics(self):
        while True:
            await asyncio.sleep(self.config.metrics_interval_s)
            self.metrics.flush()

    async def run(self):
        app = web.Application(client_max_size=MAX_BODY_BYTES)
        app.router.add_get("/ping", self.ping)
        app.router.add_post("/invocations", self.invocations)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, "0.0.0.0", self.config.port, reuse_address=True)
        await site.start()
        log(
            f"listening on port {self.config.port}: {len(self.workers)} workers "
            f"({', '.join(s.cores for s in self.workers)}), batches of up to {self.config.max_batch_size} inputs, "
            f"max delay {self.config.max_delay_s * 1000:g} ms"
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        self.tasks = [asyncio.create_task(self.supervise(slot)) for slot in self.workers]
        self.tasks.append(asyncio.create_task(self.flush_metrics()))
        await stop.wait()
        log("stopping")
        self.stopping = True
        await runner.cleanup()
        for slot in self.workers:
            if slot.process is not None and slot.process.returncode is None:
                slot.process.terminate()
        await asyncio.wait([t for t in self.tasks[:-1]], timeout=10)
        for slot in self.workers:
            if slot.process is not None and slot.process.returncode is None:
                slot.process.kill()
        self.metrics.flush()


def timing_attributes(arrived, batch):
    """The value of TIMING_HEADER: the request's time in the server and the device call it rode in.

    `server-ms` runs from the arrival of the whole body to the answer (queue wait + batch formation + device call);
    `batch-requests`/`batch-inputs` count the requests and inputs of that call and `device-ms` is how long it took.
    A request answered without a device call (deadline passed, worker died) carries `server-ms` only.
    """
    parts = [f"server-ms={(time.monotonic() - arrived) * 1000:.3f}"]
    if batch is not None:
        parts += [f"batch-requests={batch.requests}", f"batch-inputs={batch.inputs}", f"device-ms={batch.device_ms:.3f}"]
    return ",".join(parts)


def _exit_cause(code):
    if code >= 0:
        return f"exited with code {code}"
    try:
        return f"was killed by signal {signal.Signals(-code).name}"
    except ValueError:
        return f"was killed by signal {-code}"


def _base_type(content_type):
    return content_type.split(";")[0].strip() or "application/octet-stream"


def _charset(content_type):
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset":
            return value
    return None


def _error_body(message):
    return json.dumps({"error": message}).encode("utf-8")


def _json_error(status, message, headers=None):
    return web.Response(status=status, body=_error_body(message), content_type="application/json", headers=headers)
