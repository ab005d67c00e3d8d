"""One front end: HTTP on aiohttp, its own bounded queue, and a supervisor per worker it owns.

Why aiohttp.web: one package with its own HTTP/1.1 server (C-accelerated parser, keep-alive) and the same asyncio
loop that reads the workers' sockets, so queueing, deadlines and worker supervision share one thread with no locks.
FastAPI adds request validation and OpenAPI that an opaque `/invocations` body does not use, and needs a separate
ASGI server (uvicorn) with its own loop and signal handling.

Why pull and not push: a worker asks for work when it is free (see worker.py), so a slow or busy worker never holds
requests another could run, and the queue stays one FIFO in its front end, where deadlines and the bound are enforced
in one place.

Why several front ends, each with its own queue and workers (MODEL_SERVER_FRONT_ENDS, rendered from the plan): one
asyncio process runs on one core, and HTTP, the queue and the hops to the workers cost it about 0.4 ms of CPU per
request at batch 1, so one front end carried about 1,400 requests/s on an instance of any size. N front ends listen on
the port with SO_REUSEPORT (the kernel spreads new connections over them); front end i owns the i-th contiguous share
of the NeuronCore groups (`config.shares`), its workers pull from its queue only, and no request crosses a process
it does not need to. Front end 0 (this process, `python3 -m serving`) starts the others (siblings.py), writes every
front end's metric lines to stdout, and answers /ping for the instance from every front end's status.
"""
import asyncio
import collections
import itertools
import os
import signal
import sys
import time

from . import protocol
from .config import shares
from .health import instance_answer
from .http import HttpFront, error_body, raise_file_limit
from .linewriter import LineWriter
from .metrics import Metrics
from .siblings import Siblings
from .workers import REPLACE_AFTER_FAILED_LOADS, WorkerPool, WorkerSlot

# What a front end buffers for stderr (logs) while its reader is slow (stdout's: MODEL_SERVER_METRICS_BUFFER_BYTES);
# beyond it lines are dropped.
STDERR_BUFFER_BYTES = 1024 * 1024
# How long a stopping server waits for buffered metric lines to be written.
FINAL_FLUSH_S = 3.0
# SageMaker returns this response header to the InvokeEndpoint caller as `CustomAttributes` (at most 1024 visible
# US-ASCII characters; https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html),
# and a load balancer passes it on as is: one header gives the caller the server-side time and batch on both hostings.
TIMING_HEADER = "X-Amzn-SageMaker-Custom-Attributes"


def _report_writer_failure(sentence):
    """From a LineWriter's thread: straight to stderr, never through the writer that failed."""
    try:
        os.write(2, f"model-server: {sentence}\n".encode("utf-8", "replace"))
    except OSError:
        pass


class Pending:
    """A request between arrival and answer."""

    __slots__ = ("item", "future", "state", "retried")

    def __init__(self, item, future):
        self.item = item
        self.future = future  # (status, body, content type, the BatchStats of the call that answered it or None)
        self.state = "queued"  # queued -> assigned (a worker holds it) -> answered
        self.retried = False  # it has been retried once after its worker died or hung


class Server(WorkerPool):
    """Front end `index` of `config.front_ends`; `link` is the connection to front end 0 in the others (siblings.py)."""

    def __init__(self, config, index=0, link=None):
        self.config = config
        self.index = index
        self.link = link
        self.queue = collections.deque()
        self.ids = itertools.count(1)
        owned = shares(config.visible_cores, config.front_ends)[index]
        self.workers = [WorkerSlot(worker, cores) for worker, cores in owned]
        self.instance_workers = len(config.visible_cores)
        self.waiters = []  # workers waiting for work, in the order they asked
        self.stderr = None  # the LineWriter of stderr once the server runs: a stalled log reader must not stall requests
        self.stdout = link.lines if link is not None else LineWriter(
            sys.stdout.fileno(), config.metrics_buffer_bytes, "metrics (stdout)", _report_writer_failure
        )
        self.metrics = Metrics(config.metrics_namespace, config.metrics_service, owned, self.stdout)
        self.held_bytes = 0  # body bytes of the requests queued or running
        self.siblings = None
        if link is None and config.front_ends > 1:
            self.siblings = Siblings(self)
        self.stopping = False
        self.tasks = []

    def log(self, message):
        who = "model-server" if self.config.front_ends == 1 else f"model-server[front end {self.index}]"
        line = f"{who}: {message}\n"
        if self.stderr is None:
            print(line, end="", file=sys.stderr, flush=True)
        else:
            self.stderr.write(line.encode("utf-8", "replace"))

    # ---- the queue -----------------------------------------------------------------------------------------------

    def on_take(self, slot, max_requests, wait_s, ahead=False):
        """A worker asks for work; `ahead`: a stock worker asking for its next batch while its device call runs (see
        worker.py), so that the hand-over is not part of its time between calls. A worker asking ahead is given work
        only when no idle worker waits for it, and never a retried request (it would wait behind a call it is not in)."""
        if self.give(slot, max_requests, ahead):
            return
        if wait_s == 0:
            self.send(slot, (protocol.REQUESTS, []))
            return
        timer = None if wait_s is None else asyncio.get_running_loop().call_later(wait_s, self.expire, slot)
        slot.waiting = (max_requests, timer, ahead)
        self.waiters.append(slot)

    def give(self, slot, max_requests, ahead=False):
        """Sends the worker up to max_requests live requests from the head of the queue; False when there were none."""
        items = []
        while self.queue and len(items) < max_requests:
            pending = self.queue[0]
            if pending.future.done():
                self.queue.popleft()
                continue
            if ahead and pending.item.alone:
                break
            self.queue.popleft()
            pending.state = "assigned"
            slot.inflight[pending.item.id] = pending
            items.append(pending.item)
        if items:
            self.send(slot, (protocol.REQUESTS, items))
            self.arm(slot)
        return bool(items)

    def dispatch(self):
        while self.queue and self.waiters:
            # A worker filling a batch (it waits with a timer) goes first: adding to its batch is what batching is for;
            # then an idle worker before one asking ahead of its call's end.
            slot = next((w for w in self.waiters if w.waiting[1] is not None), None) or next(
                (w for w in self.waiters if not w.waiting[2]), self.waiters[0]
            )
            max_requests, _, ahead = slot.waiting
            if not self.give(slot, max_requests, ahead):
                return
            self.stop_waiting(slot)

    def done_calling(self, slot):
        """The worker answered its call: if it asked ahead and still waits, it now waits as an idle worker."""
        if slot.waiting is not None and slot.waiting[2]:
            slot.waiting = (*slot.waiting[:2], False)
            self.dispatch()

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

    def answer(self, pending, status, body, content_type, batch=None):
        pending.state = "answered"
        if not pending.future.done():
            pending.future.set_result((status, body, content_type, batch))

    # ---- health and capacity -------------------------------------------------------------------------------------

    def serving_workers(self):
        if not all(s.ever_loaded for s in self.workers):
            return len(self.workers)  # starting: requests may wait for the first loads, /ping keeps traffic away
        return sum(1 for s in self.workers if s.ready)

    def queue_limit(self):
        """This front end's share of the request bound, at the capacity of its workers serving now (rounded up, so one
        worker still queues): MODEL_SERVER_MAX_QUEUED_REQUESTS is the instance's."""
        return -(-self.config.max_queued_requests * self.serving_workers() // self.instance_workers)

    def bytes_limit(self):
        """This front end's share of MODEL_SERVER_MAX_QUEUED_BYTES, never below one body of the largest allowed size."""
        share = self.config.max_queued_bytes * len(self.workers) // self.instance_workers
        return max(self.config.max_body_bytes, share)

    def status(self):
        """What this front end tells /ping: its queue and its workers (see `instance_answer`)."""
        broken = next((s for s in self.workers if s.failed_loads >= REPLACE_AFTER_FAILED_LOADS), None)
        return {
            "frontEnd": self.index, "pid": os.getpid(), "queued": len(self.queue), "queueLimit": self.queue_limit(),
            "heldBytes": self.held_bytes, "starting": not all(s.ever_loaded for s in self.workers),
            "broken": f"{broken.describe()} failed to load {broken.failed_loads} times in a row: replace the instance" if broken else None,
            "workers": [
                {
                    "worker": s.index, "visibleCores": s.cores, "loaded": s.ready, "idle": s.waiting is not None and not s.waiting[2],
                    "failedLoads": s.failed_loads,
                    **({"lastError": s.last_error} if s.last_error else {}),
                }
                for s in self.workers
            ],
        }

    # ---- the backend of the HTTP front (serving/http.py) -----------------------------------------------------------

    def count(self, name, amount=1):
        self.metrics.count(name, amount)

    async def ping(self):
        if self.link is not None:
            return await self.link.ping()  # front end 0 answers for the instance
        statuses = [self.status()] + (await self.siblings.statuses() if self.siblings else [])
        return instance_answer(statuses, self.config.front_ends, os.getpid())

    def admit(self, length):
        """A 503 (status, body, content type, headers) when a request of `length` body bytes cannot be queued now."""
        limit = self.queue_limit()
        where = "" if self.config.front_ends == 1 else f" of front end {self.index} ({len(self.workers)} of the instance's {self.instance_workers} workers)"
        if len(self.queue) >= limit:
            why = (f"the queue{where} is full ({len(self.queue)} requests waiting; MODEL_SERVER_MAX_QUEUED_REQUESTS at the "
                   f"capacity of {self.serving_workers()} of {len(self.workers)} workers serving is {limit})")
        elif self.held_bytes + length > self.bytes_limit():
            why = (f"the server{where} holds {self.held_bytes} bytes of requests; with this one it would exceed "
                   f"{self.bytes_limit()} (its share of MODEL_SERVER_MAX_QUEUED_BYTES={self.config.max_queued_bytes})")
        else:
            return None
        self.metrics.count("QueueFull")
        return 503, error_body(f"{why}; retry later"), "application/json", {"Retry-After": "1"}

    async def submit(self, body, content_type, accept, check_again=True):
        """Queues one request whose body is in and waits for its answer: (status, body, content type, headers)."""
        if check_again:  # the size is known only now (chunked)
            refusal = self.admit(len(body))
            if refusal is not None:
                return refusal
        self.held_bytes += len(body)
        try:
            return await self.execute(body, content_type, accept)
        finally:
            self.held_bytes -= len(body)

    async def execute(self, body, content_type, accept):
        loop = asyncio.get_running_loop()
        now = time.monotonic()
        deadline = now + self.config.request_timeout_s
        item = protocol.WorkItem(next(self.ids), body, content_type, accept, now, deadline)
        pending = Pending(item, loop.create_future())
        self.queue.append(pending)
        self.dispatch()
        # The request's future itself, with one timer for its deadline: `asyncio.wait_for(asyncio.shield(...))` chains
        # three futures whose callbacks each take a turn of the event loop, a task-wake-up per link (a CPU profile of
        # a batch-1 front end: 11 turns of the loop per request; docs/model-server-bench.md).
        timer = loop.call_later(self.config.request_timeout_s, self.time_out, pending)
        try:
            status, body, content_type, batch = await pending.future
        finally:
            timer.cancel()
            if not pending.future.done() or pending.future.cancelled():
                self.withdraw(pending)  # the client went away (its task's cancellation cancelled the future)
        return status, body, content_type, {TIMING_HEADER: timing_attributes(now, batch, self.config.pool)}

    def time_out(self, pending):
        """The request's deadline passed before its answer: a 504 now, out of the queue if not started; a worker's late
        answer is ignored."""
        if pending.future.done():
            return
        self.metrics.count("DeadlineExceeded")
        where = "waiting in the queue" if pending.state == "queued" else "while a worker ran it"
        message = (f"the request's deadline of {self.config.request_timeout_s * 1000:.0f} ms "
                   f"(MODEL_SERVER_REQUEST_TIMEOUT_MS) passed {where}")
        self.unqueue(pending)
        pending.future.set_result((504, error_body(message), "application/json", None))

    def withdraw(self, pending):
        """Drops a request nobody waits for: out of the queue if not started; a worker's late answer is ignored."""
        self.unqueue(pending)
        if not pending.future.done():
            pending.future.cancel()

    def unqueue(self, pending):
        if pending.state == "queued":
            try:
                self.queue.remove(pending)
            except ValueError:
                pass
            pending.state = "withdrawn"

    # ---- lifecycle -----------------------------------------------------------------------------------------------

    async def flush_metrics(self):
        while True:
            await asyncio.sleep(self.config.metrics_interval_s)
            self.metrics.flush()

    async def run(self):
        self.stderr = LineWriter(sys.stderr.fileno(), STDERR_BUFFER_BYTES, "logs (stderr)", None)
        others = self.config.front_ends - 1 if self.siblings else 1
        raise_file_limit(self.config, 4 * len(self.workers) + 4 * others, self.log)
        runner = await HttpFront(self.config, self).start(reuse_port=self.config.front_ends > 1)
        self.log(
            f"listening on port {self.config.port}: front end {self.index} of {self.config.front_ends}, {len(self.workers)} of the "
            f"instance's {self.instance_workers} workers ({', '.join(s.cores for s in self.workers)}), batches of up to "
            f"{self.config.max_batch_size} inputs, max delay {self.config.max_delay_s * 1000:g} ms, watchdog "
            f"{self.config.watchdog_s * 1000:g} ms, bodies up to {self.config.max_body_bytes} bytes"
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, stop.set)
        if self.link is None:
            loop.add_signal_handler(signal.SIGINT, stop.set)  # the others ignore it: front end 0 decides when they stop
        self.tasks = [asyncio.create_task(self.supervise(slot)) for slot in self.workers]
        if self.siblings is not None:
            self.tasks += self.siblings.start()
        if self.link is not None:
            self.tasks.append(asyncio.create_task(self.link.serve(self, stop)))
        flusher = asyncio.create_task(self.flush_metrics())
        await stop.wait()
        self.log("stopping")
        self.stopping = True
        await runner.cleanup()
        processes = [s.process for s in self.workers] + (self.siblings.processes() if self.siblings else [])
        for process in processes:
            if process is not None and process.returncode is None:
                process.terminate()
        # Front ends flush their last lines through this one before they exit: wait for them, then flush ours.
        await asyncio.wait(self.tasks, timeout=10)
        for process in processes:
            if process is not None and process.returncode is None:
                process.kill()
        flusher.cancel()
        self.metrics.flush()
        if self.link is None:
            await loop.run_in_executor(None, self.stdout.close, FINAL_FLUSH_S)
        else:
            await self.link.drain()
        await loop.run_in_executor(None, self.stderr.close, FINAL_FLUSH_S)


def timing_attributes(arrived, batch, pool=None):
    """The value of TIMING_HEADER: the request's time in the server and the device call it rode in.

    `server-ms` runs from the arrival of the whole body to the answer (queue wait + batch formation + device call);
    `batch-requests`/`batch-inputs` count the requests and inputs of that call and `device-ms` is how long it took.
    A request answered without a device call (deadline passed, worker died) carries `server-ms` only. On an endpoint
    with instance pools, `pool` is the priority of the pool this container runs in (CDK_INFERENTIA_POOL).
    """
    parts = [f"server-ms={(time.monotonic() - arrived) * 1000:.3f}"]
    if batch is not None:
        parts += [f"batch-requests={batch.requests}", f"batch-inputs={batch.inputs}", f"device-ms={batch.device_ms:.3f}"]
    if pool is not None:
        parts.append(f"pool={pool}")
    return ",".join(parts)
