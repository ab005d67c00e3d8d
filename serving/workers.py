"""The workers of one front end: starting each pinned to its NeuronCores, reading its messages, restarting it when it
exits, and the watchdog that kills one that holds requests without a word.

A mixin of `frontend.Server`, which owns the queue these messages feed (see frontend.py); split from it at the seam
between the processes a front end supervises and the requests it queues.
"""
import asyncio
import os
import signal
import socket
import sys
import time

from . import protocol
from .http import error_body

# A worker that fails to load this many times in a row is taken for broken hardware or a broken model: /ping turns
# 503 so that the instance is replaced (SageMaker, ALB) instead of retrying forever at reduced capacity.
REPLACE_AFTER_FAILED_LOADS = 3
# A worker that fails to load is retried with exponential backoff up to this, so a bad model does not spin the CPU.
MAX_RESTART_DELAY_S = 30.0
SERVING_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class WorkerSlot:
    def __init__(self, index, cores):
        self.index = index  # the worker's index on the instance (the metrics' Worker dimension), not in its front end
        self.cores = cores
        self.process = None
        self.writer = None
        self.ready = False
        self.inflight = {}  # request id -> Pending
        self.waiting = None  # (max requests, timer handle or None, asked ahead) while the worker waits for work
        self.last_error = None
        self.failed_loads = 0
        self.ever_loaded = False
        self.loaded_this_run = False
        self.watchdog = None  # timer that kills the worker when it holds requests without a word for too long
        self.heard = 0.0  # the loop's time of its last word (or hand-over) while it held requests
        self.hung = False  # the watchdog killed it

    def describe(self):
        return f"worker {self.index} (NEURON_RT_VISIBLE_CORES={self.cores})"


def serving_environment():
    """This process's environment with the serving package importable: what a worker or a front end starts with."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (SERVING_ROOT, env.get("PYTHONPATH")) if p)
    return env


def exit_cause(code):
    if code >= 0:
        return f"exited with code {code}"
    try:
        return f"was killed by signal {signal.Signals(-code).name}"
    except ValueError:
        return f"was killed by signal {-code}"


class WorkerPool:
    """Needs of its host: `config`, `workers`, `metrics`, `stopping`, `log`, `queue`, `dispatch`, `answer`, `stop_waiting`,
    `on_take`, `done_calling`."""

    def worker_environment(self, slot):
        env = serving_environment()
        # Exact pinning: the runtime reads this when the worker first loads the framework; NUM_CORES would be
        # first-come, so drop it to leave no doubt about which cores the worker owns.
        env["NEURON_RT_VISIBLE_CORES"] = slot.cores
        env.pop("NEURON_RT_NUM_CORES", None)
        env["MODEL_SERVER_WORKER_INDEX"] = str(slot.index)
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
        slot.writer, link = await protocol.open_frames(parent, lambda message: self.on_message(slot, message))
        self.log(f"{slot.describe()} started as pid {slot.process.pid}")
        return link

    async def supervise(self, slot):
        while not self.stopping:
            slot.loaded_this_run = False
            try:
                link = await self.start_worker(slot)
            except OSError as error:  # fork/exec failed (memory, file descriptors): retry like a failed load
                slot.last_error = f"could not start the worker: {error}"
                slot.failed_loads += 1
                self.log(f"{slot.describe()}: {slot.last_error}")
                await asyncio.sleep(min(MAX_RESTART_DELAY_S, 0.5 * 2 ** (slot.failed_loads - 1)))
                continue
            await link.closed  # the worker's end closed: it is exiting (its messages are handled as they arrive)
            code = await slot.process.wait()
            loaded = slot.loaded_this_run
            self.on_worker_exit(slot, code)
            if self.stopping:
                return
            slot.failed_loads = 0 if loaded else slot.failed_loads + 1
            delay = 0.0 if loaded else min(MAX_RESTART_DELAY_S, 0.5 * 2 ** (slot.failed_loads - 1))
            self.log(f"restarting {slot.describe()} in {delay:.1f} s")
            await asyncio.sleep(delay)

    def on_worker_exit(self, slot, code):
        slot.ready = False
        slot.writer = None
        self.stop_waiting(slot)
        self.disarm(slot)
        cause = f"was stopped by the watchdog ({self.watchdog_phrase()})" if slot.hung else exit_cause(code)
        slot.hung = False
        if self.stopping:
            self.log(f"{slot.describe()} stopped")
            for pending in slot.inflight.values():
                self.answer(pending, 503, error_body(f"the server stopped {slot.describe()} while it ran this request"), "application/json")
            slot.inflight.clear()
            return
        self.metrics.worker(slot.index).counters["WorkerRestarts"] += 1
        self.metrics.count("WorkerErrors")
        now = time.monotonic()
        retry, fail = [], []
        for pending in slot.inflight.values():
            # Once, and only while a whole watchdog bound still fits before the deadline, so the retry can be judged.
            (retry if not pending.retried and pending.item.deadline - now >= self.config.watchdog_s else fail).append(pending)
        slot.inflight.clear()
        self.log(f"{slot.describe()} {cause}; retrying {len(retry)} of its requests alone on another worker, answering {len(fail)} with 500")
        for pending in fail:
            again = " (a retry of a request whose first worker failed too)" if pending.retried else ""
            self.answer(pending, 500, error_body(f"{slot.describe()} {cause} while running this request{again}; it is being restarted"), "application/json")
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
        """(Re)starts the worker's watchdog while it holds requests: every message from it, and every hand-over, resets it.

        Lazily: a reset records the time, and the one timer, when it fires, sleeps again for what is left of the bound
        since the last word. Cancelling and re-creating a timer on every message cost the front end two timers per
        device call (a CPU profile at batch 1: a fifth of the loop's turns were timer work; docs/model-server-bench.md).
        """
        if slot.inflight and slot.process is not None:
            loop = asyncio.get_running_loop()
            slot.heard = loop.time()
            if slot.watchdog is None:
                slot.watchdog = loop.call_at(slot.heard + self.config.watchdog_s, self.check_hung, slot)

    def disarm(self, slot):
        if slot.watchdog is not None:
            slot.watchdog.cancel()
            slot.watchdog = None

    def check_hung(self, slot):
        """The watchdog's timer: the worker is hung if it still holds requests a whole bound after its last word."""
        slot.watchdog = None
        if not slot.inflight or slot.process is None:
            return  # it holds nothing: the next hand-over arms it again
        due = slot.heard + self.config.watchdog_s
        if asyncio.get_running_loop().time() < due:
            slot.watchdog = asyncio.get_running_loop().call_at(due, self.check_hung, slot)
            return
        self.on_hung(slot)

    def on_hung(self, slot):
        if slot.process is None or slot.process.returncode is not None:
            return
        self.log(f"{slot.describe()} is hung ({self.watchdog_phrase()}): killing it")
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
            self.on_take(slot, *message[1:])
        elif kind == protocol.DONE:
            for request_id, status, body, content_type in message[1]:
                pending = slot.inflight.pop(request_id, None)
                if pending is not None:
                    self.answer(pending, status, body, content_type, message[2])
            if message[2] is not None:
                self.metrics.worker(slot.index).record_batch(message[2])
            self.metrics.count("IsolationCalls", message[3])
            self.done_calling(slot)
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
            self.log(f"{slot.describe()} loaded the model (pid {message[1]})")
        elif kind == protocol.LOAD_FAILED:
            slot.last_error = message[1].strip().splitlines()[-1]
            self.log(f"{slot.describe()} failed to load the model:\n{message[1]}")
