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


from . import protocol
from .http import HttpFront, error_body, raise_file_limit
from .linewriter import LineWriter
from .metrics import Metrics

# What the front end buffers for stderr (logs) while its reader is slow (stdout's: MODEL_SERVER_METRICS_BUFFER_BYTES);
# beyond it lines are dropped.
STDERR_BUFFER_BYTES = 1024 * 1024
# How long a stopping server waits for buffered metric lines to be written.
FINAL_FLUSH_S = 3.0
# A worker that fails to load this many times in a row is taken for broken hardware or a broken model: /ping turns
# 503 so that the instance is replaced (SageMaker, ALB) instead of retrying forever at reduced capacity.
REPLACE_AFTER_FAILED_LOADS = 3
# A worker that fails to load is retried with exponential backoff up to this, so a bad model does not spin the CPU.
MAX_RESTART_DELAY_S = 30.0
# SageMaker returns this response header to the InvokeEndpoint caller as `CustomAttributes` (at most 1024 visible
# US-ASCII characters; https://docs.aws.amazon.com/sagemaker/latest/APIReference/API_runtime_InvokeEndpoint.html),
# and a load balancer passes it on as is: one header gives the caller the server-side time and batch on both hostings.
TIMING_HEADER = "X-Amzn-SageMaker-Custom-Attributes"
SERVING_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


_stderr = None  # the LineWriter of stderr once the server runs: a stalled log reader must not stall requests


def log(message):
    line = f"model-server: {message}\n"
    if _stderr is None:
        print(line, end="", file=sys.stderr, flush=True)
    else:
        _stderr.write(line.encode("utf-8", "replace"))


def _report_writer_failure(sentence):
    """From a LineWriter's thread: straight to stderr, never through the writer that failed."""
    try:
        os.write(2, f"model-server: {sentence}\n".encode("utf-8", "replace"))
    except OSError:
        pass


class Pending:
    """A request between arrival and answer."""

    __slots__ = ("item", "future", "state", "batch", "retried")

    def __init__(self, item, future):
        self.item = item
        self.future = future
        self.state = "queued"  # queued -> assigned (a worker holds it) -> answered
        self.batch = None  # the BatchStats of the device call that answered it, for the timing header
        self.retried = False  # it has been retried once after its worker died or hung


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
        self.ever_loaded = False
        self.loaded_this_run = False
        self.watchdog = None  # timer that kills the worker when it holds requests without a word for too long
        self.hung = False  # the watchdog killed it

    def describe(self):
        return f"worker {self.index} (NEURON_RT_VISIBLE_CORES={self.cores})"


class Server:
    def __init__(self, config):
        self.config = config
        self.queue = collections.deque()
        self.ids = itertools.count(1)
        self.workers = [WorkerSlot(index, cores) for index, cores in enumerate(config.visible_cores)]
        self.waiters = []  # workers waiting for work, in the order they asked
        self.stdout = LineWriter(sys.stdout.fileno(), config.metrics_buffer_bytes, "metrics (stdout)", _report_writer_failure)
        self.metrics = Metrics(config.metrics_namespace, config.metrics_service, config.visible_cores, self.stdout)
        self.held_bytes = 0  # body bytes of the requests queued or running
        self.acceptors = [Acceptor(index) for index in range(1, config.front_ends)]
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
        reader, slot.writer = await asyncio.open_unix_connection(sock=parent, limit=self.config.max_body_bytes + (1 << 20))
        log(f"{slot.describe()} started as pid {slot.process.pid}")
        return reader

    async def supervise(self, slot):
        while not self.stopping:
            slot.loaded_this_run = False
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
            loaded = slot.loaded_this_run
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
        self.disarm(slot)
        cause = f"was stopped by the watchdog ({self.watchdog_phrase()})" if slot.hung else _exit_cause(code)
        slot.hung = False
        if self.stopping:
            log(f"{slot.describe()} stopped")
            for pending in slot.inflight.values():
                self.answer(pending, 503, _error_body(f"the server stopped {slot.describe()} while it ran this request"), "application/json")
            slot.inflight.clear()
            return
        self.metrics.workers[slot.index].counters["WorkerRestarts"] += 1
        self.metrics.count("WorkerErrors")
        now = time.monotonic()
        retry, fail = [], []
        for pending in slot.inflight.values():
            # Once, and only while a whole watchdog bound still fits before the deadline, so the retry can be judged.
            (retry if not pending.retried and pending.item.deadline - now >= self.config.watchdog_s else fail).append(pending)
        slot.inflight.clear()
        log(f"{slot.describe()} {cause}; retrying {len(retry)} of its requests alone on another worker, answering {len(fail)} with 500")
        for pending in fail:
            again = " (a retry of a request whose first worker failed too)" if pending.retried else ""
            self.answer(pending, 500, _error_body(f"{slot.describe()} {cause} while running this request{again}; it is being restarted"), "application/json")
        for pending in reversed(sorted(retry, key=lambda p: p.item.id)):
            pending.retried = True
            pending.state = "queued"
            pending.item = pending.item._replace(alone=True)
            self.queue.appendleft(pending)
        self.metrics.count("RequestsRetried", len(retry))
        self.dispatch()

    # ---- the watchdog --------------------------------------------------------------------------------------------

    def watchdog_phrase(self):
        return f"it held requests for more than {self.config.watchdog_s * 1000:.0f} ms without a word, MODEL_SERVER_WATCHDOG_MS"

    def arm(self, slot):
        """(Re)starts the worker's watchdog while it holds requests: every message from it, and every hand-over, resets it."""
        self.disarm(slot)
        if slot.inflight and slot.process is not None:
            slot.watchdog = asyncio.get_running_loop().call_later(self.config.watchdog_s, self.on_hung, slot)

    def disarm(self, slot):
        if slot.watchdog is not None:
            slot.watchdog.cancel()
            slot.watchdog = None

    def on_hung(self, slot):
        slot.watchdog = None
        if slot.process is None or slot.process.returncode is not None:
            return
        log(f"{slot.describe()} is hung ({self.watchdog_phrase()}): killing it")
        self.metrics.count("WorkerHangs")
        slot.ready = False  # a hung worker counts as down from now on
        slot.hung = True
        self.stop_waiting(slot)
        try:
            slot.process.kill()  # SIGKILL works on a stopped (SIGSTOP) process too; its socket then closes
        except ProcessLookupError:
            pass

    def on_message(self, slot, message):
        self.handle_message(slot, message)
        self.arm(slot)  # any word from the worker shows it is alive

    def handle_message(self, slot, message):
        kind = message[0]
        if kind == protocol.CALL:
            pass  # the watchdog restarts for this call (on_message)
        elif kind == protocol.TAKE:
            self.on_take(slot, message[1], message[2])
        elif kind == protocol.DONE:
            for request_id, status, body, content_type in message[1]:
                pending = slot.inflight.pop(request_id, None)
                if pending is not None:
                    pending.batch = message[2]
                    self.answer(pending, status, body, content_type)
            if message[2] is not None:
                self.metrics.workers[slot.index].record_batch(message[2])
            self.metrics.count("IsolationCalls", message[3])
        elif kind == protocol.PUT_BACK:
            for request_id in reversed(message[1]):
                pending = slot.inflight.pop(request_id, None)
                if pending is not None and not pending.future.done():
                    pending.state = "queued"
                    self.queue.appendleft(pending)
            self.dispatch()
        elif kind == protocol.LOADED:
            slot.ready = True
            slot.ever_loaded = True
            slot.loaded_this_run = True
            slot.failed_loads = 0
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
            self.arm(slot)
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

    # ---- health and capacity -------------------------------------------------------------------------------------

    def health(self):
        """(healthy, reason): what /ping says. See "Health" in serving/README.md for why these rules.

        - Until every worker has loaded once: unhealthy, so the instance enters service at full capacity.
        - A worker that failed to load REPLACE_AFTER_FAILED_LOADS times in a row: unhealthy, to be replaced.
        - No worker serving (all restarting, or hung and being killed): unhealthy, nothing could answer.
        - Otherwise healthy, at the capacity of the workers serving: the queue bound shrinks with them.
        """
        broken = [s for s in self.workers if s.failed_loads >= REPLACE_AFTER_FAILED_LOADS]
        if broken:
            return False, f"{broken[0].describe()} failed to load {broken[0].failed_loads} times in a row: replace the instance"
        if not all(s.ever_loaded for s in self.workers):
            return False, "starting: not every worker has loaded its model"
        if not any(s.ready for s in self.workers):
            return False, "no worker is serving: every worker is restarting"
        return True, None

    def serving_workers(self):
        if not all(s.ever_loaded for s in self.workers):
            return len(self.workers)  # starting: requests may wait for the first loads, /ping keeps traffic away
        return sum(1 for s in self.workers if s.ready)

    def queue_limit(self):
        """The request bound at the capacity of the workers serving now (rounded up, so one worker still queues)."""
        return -(-self.config.max_queued_requests * self.serving_workers() // len(self.workers))

    # ---- the backend of every front-end process (serving/http.py) -------------------------------------------------

    def count(self, name, amount=1):
        self.metrics.count(name, amount)

    async def ping(self):
        return self.ping_answer()

    def ping_answer(self):
        workers = [
            {
                "worker": s.index, "visibleCores": s.cores, "loaded": s.ready, "failedLoads": s.failed_loads,
                **({"lastError": s.last_error} if s.last_error else {}),
            }
            for s in self.workers
        ]
        healthy, reason = self.health()
        body = {
            "healthy": healthy, "queued": len(self.queue), "queueLimit": self.queue_limit(), "heldBytes": self.held_bytes,
            "servingWorkers": sum(1 for s in self.workers if s.ready), "workers": workers,
            "frontEnds": 1 + sum(1 for a in self.acceptors if a.ready), "frontEnd": os.getpid(),
            **({"reason": reason} if reason else {}),
        }
        return (200 if healthy else 503), json.dumps(body).encode("utf-8")

    def admit(self, length):
        """A 503 (status, body, content type, headers) when a request of `length` body bytes cannot be queued now."""
        limit = self.queue_limit()
        if len(self.queue) >= limit:
            why = f"the queue is full ({len(self.queue)} requests waiting; MODEL_SERVER_MAX_QUEUED_REQUESTS at the capacity of {self.serving_workers()} of {len(self.workers)} workers serving is {limit})"
        elif self.held_bytes + length > self.config.max_queued_bytes:
            why = f"the server holds {self.held_bytes} bytes of requests; with this one it would exceed {self.config.max_queued_bytes} (MODEL_SERVER_MAX_QUEUED_BYTES)"
        else:
            return None
        self.metrics.count("QueueFull")
        return 503, _error_body(f"{why}; retry later"), "application/json", {"Retry-After": "1"}

    async def submit(self, body, content_type, accept, check_again=True):
        """Queues one request whose body is in and waits for its answer: (status, body, content type, headers)."""
        if check_again:  # the size is known only now (chunked), or the request came from another front end
            refusal = self.admit(len(body))
            if refusal is not None:
                return refusal
        self.held_bytes += len(body)
        try:
            return await self.execute(body, content_type, accept)
        finally:
            self.held_bytes -= len(body)

    async def execute(self, body, content_type, accept):
        now = time.monotonic()
        deadline = now + self.config.request_timeout_s
        item = protocol.WorkItem(next(self.ids), body, content_type, accept, now, deadline)
        pending = Pending(item, asyncio.get_running_loop().create_future())
        self.queue.append(pending)
        self.dispatch()
        try:
            status, body, content_type = await asyncio.wait_for(asyncio.shield(pending.future), self.config.request_timeout_s)
        except asyncio.TimeoutError:
            self.metrics.count("DeadlineExceeded")
            where = "waiting in the queue" if pending.state == "queued" else "while a worker ran it"
            self.withdraw(pending)
            message = (f"the request's deadline of {self.config.request_timeout_s * 1000:.0f} ms "
                       f"(MODEL_SERVER_REQUEST_TIMEOUT_MS) passed {where}")
            return 504, _error_body(message), "application/json", {TIMING_HEADER: timing_attributes(now, None)}
        finally:
            if not pending.future.done():
                self.withdraw(pending)  # the client went away
        return status, body, content_type, {TIMING_HEADER: timing_attributes(now, pending.batch)}

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
        global _stderr
        _stderr = LineWriter(sys.stderr.fileno(), STDERR_BUFFER_BYTES, "logs (stderr)", None)
        raise_file_limit(self.config, 4 * len(self.workers) + 4 * len(self.acceptors), log)
        runner = await HttpFront(self.config, self).start(reuse_port=self.config.front_ends > 1)
        log(
            f"listening on port {self.config.port}: {self.config.front_ends} front-end process(es), {len(self.workers)} workers "
            f"({', '.join(s.cores for s in self.workers)}), batches of up to {self.config.max_batch_size} inputs, "
            f"max delay {self.config.max_delay_s * 1000:g} ms, watchdog {self.config.watchdog_s * 1000:g} ms, "
            f"bodies up to {self.config.max_body_bytes} bytes"
        )
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        self.tasks = [asyncio.create_task(self.supervise(slot)) for slot in self.workers]
        self.tasks += [asyncio.create_task(self.supervise_acceptor(a)) for a in self.acceptors]
        self.tasks.append(asyncio.create_task(self.flush_metrics()))
        await stop.wait()
        log("stopping")
        self.stopping = True
        await runner.cleanup()
        for process in [s.process for s in self.workers] + [a.process for a in self.acceptors]:
            if process is not None and process.returncode is None:
                process.terminate()
        await asyncio.wait([t for t in self.tasks[:-1]], timeout=10)
        for process in [s.process for s in self.workers] + [a.process for a in self.acceptors]:
            if process is not None and process.returncode is None:
                process.kill()
        self.metrics.flush()
        await loop.run_in_executor(None, self.stdout.close, FINAL_FLUSH_S)
        await loop.run_in_executor(None, _stderr.close, FINAL_FLUSH_S)

    # ---- acceptors: more front-end processes on the same port ---------------------------------------------------

    async def supervise_acceptor(self, acceptor):
        """Runs one acceptor (serving/acceptor.py) and serves its requests; restarts it when it exits."""
        while not self.stopping:
            parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                acceptor.process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "serving.acceptor", "--fd", str(child.fileno()),
                    env=self.acceptor_environment(), pass_fds=(child.fileno(),),
                    stdin=asyncio.subprocess.DEVNULL, stdout=sys.stderr.fileno(),
                )
            except OSError as error:
                log(f"could not start front end {acceptor.index}: {error}")
                child.close()
                parent.close()
                await asyncio.sleep(1.0)
                continue
            child.close()
            reader, acceptor.writer = await asyncio.open_unix_connection(sock=parent, limit=self.config.max_body_bytes + (1 << 20))
            try:
                while True:
                    self.on_acceptor_message(acceptor, await protocol.read_message(reader))
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            acceptor.ready = False
            acceptor.writer = None
            for task in acceptor.requests.values():
                task.cancel()  # its clients' connections died with it
            acceptor.requests.clear()
            code = await acceptor.process.wait()
            if self.stopping:
                return
            log(f"front end {acceptor.index} (pid {acceptor.process.pid}) {_exit_cause(code)}; restarting it")
            await asyncio.sleep(0.5)

    def acceptor_environment(self):
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p for p in (SERVING_ROOT, env.get("PYTHONPATH")) if p)
        return env

    def on_acceptor_message(self, acceptor, message):
        kind = message[0]
        if kind == protocol.SUBMIT:
            _, request_id, body, content_type, accept = message
            task = asyncio.get_running_loop().create_task(self.serve_remote(acceptor, request_id, body, content_type, accept))
            acceptor.requests[request_id] = task
        elif kind == protocol.CANCEL:
            task = acceptor.requests.pop(message[1], None)
            if task is not None:
                task.cancel()
        elif kind == protocol.PING:
            acceptor.send((protocol.ANSWER, message[1], self.ping_answer()))
        elif kind == protocol.COUNT:
            self.metrics.count(message[1], message[2])
        elif kind == protocol.LISTENING:
            acceptor.ready = True
            log(f"front end {acceptor.index} listening (pid {message[1]})")

    async def serve_remote(self, acceptor, request_id, body, content_type, accept):
        try:
            answer = await self.submit(body, content_type, accept, check_again=True)
        except asyncio.CancelledError:
            return
        finally:
            acceptor.requests.pop(request_id, None)
        acceptor.send((protocol.ANSWER, request_id, answer))


class Acceptor:
    """Another front-end process: HTTP on the shared port, its requests forwarded here."""

    def __init__(self, index):
        self.index = index
        self.process = None
        self.writer = None
        self.ready = False
        self.requests = {}  # request id -> the task serving it

    def send(self, message):
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(protocol.encode(message))


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


def _error_body(message):
    return error_body(message)
