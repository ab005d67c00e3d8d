"""The worker without a batching delay (MODEL_SERVER_MAX_DELAY_MS=0, a stock plan's, with MODEL_SERVER_OVERLAP=1):
its device calls follow each other with no host work between them.

A batch without a delay is whatever the front end has queued when the worker asks (up to `max batch`), so the
worker can ask for its next batch while the current call runs and have it decoded by the time the call ends. Three
threads, each blocked in C while it waits (no Python-level lock or condition between them):
- the device thread takes a decoded batch from `calls` and runs `predict_fn`; when it returns, it puts the outputs in
  `events` and at once takes the next batch, already waiting when the host keeps up: the device starts its next
  call without waking another thread or giving up the interpreter lock in between;
- the reader thread reads the front end's messages (their frames) and puts them in `events`;
- the main thread takes from `events`: requests it decodes (`input_fn`) into the next batch for `calls`, outputs it
  encodes (`output_fn`) into one DONE for the front end, sent with the worker's next TAKE in one write.

The main thread asks for work whenever the device thread holds fewer than two batches: ahead of the current call's
end while one runs (the front end then gives it only what no idle worker takes, never a retried request), as an idle
worker when none runs. At most one batch waits decoded for the device, as with the pipeline (worker.py). A retried
request (a suspect) runs alone with nothing asked ahead of it. `input_fn` and `output_fn` run in the main thread
only, never at once. When predict_fn raises on a batch of several requests, the device thread splits it (`predict`).

Why not the pipeline of worker.py for these plans: a call of 1 ms left 0.10 ms between calls there as in the stock
worker (Python conditions and queues, a CALL message and the interpreter lock changing hands between the device
call's end and the next call's start), and cost the worker 0.30 ms of CPU per request against 0.13.
"""
import queue
import sys
import threading

from . import protocol
from .worker import PIPELINE_SWITCH_INTERVAL_S, _fatal_on_error

REQUESTS = "requests"  # an event: (REQUESTS, message from the front end)
CALLED = "called"  # an event: (CALLED, what Worker.call_one returns for one batch)


def run_chained(worker):
    """Serves with `worker`'s handler, sockets and limits until the front end closes the socket."""
    Chain(worker).run()


class Chain:
    def __init__(self, worker):
        self.worker = worker
        self.calls = queue.SimpleQueue()  # main -> device thread: (batch, size, results)
        self.events = queue.SimpleQueue()  # device and reader threads -> main
        self.in_device = 0  # batches handed to the device thread and not answered: one calling, at most one waiting
        self.suspect = False  # the device thread holds a retried request: ask for nothing until it is answered
        self.asked = False  # a TAKE is out and its REQUESTS not read yet
        self.held = []  # answers of refused requests, sent with the next DONE of a call (see `refused`)
        self.out = b""  # the next write to the front end

    def run(self):
        sys.setswitchinterval(PIPELINE_SWITCH_INTERVAL_S)
        for stage in (self.device, self.reader):
            threading.Thread(target=_fatal_on_error, args=(stage,), name=stage.__name__, daemon=True).start()
        while True:
            self.ask()
            if self.out:
                self.worker.write(self.out)
                self.out = b""
            kind, payload = self.events.get()
            if kind == REQUESTS:
                self.asked = False
                self.admit(payload[1])
            else:
                self.answer(payload)

    def device(self):
        worker = self.worker
        while True:
            batch, size, results = self.calls.get()
            self.events.put((CALLED, worker.run_call(batch, size, results)))

    def reader(self):
        frames = self.worker.frames
        while True:
            message = frames.recv()
            assert message[0] == protocol.REQUESTS, message[0]
            self.events.put((REQUESTS, message))

    def ask(self):
        """Queues a TAKE when the device thread may hold another batch: ahead of the running call's end, or idle."""
        if self.asked or self.suspect or self.in_device >= 2:
            return
        if self.in_device == 1:
            self.out += protocol.encode((protocol.TAKE, self.worker.max_batch_size, None, True))
        else:
            self.out += protocol.encode((protocol.TAKE, self.worker.max_batch_size, None))
        self.asked = True

    def admit(self, items):
        """Decodes the requests the front end gave into one batch for the device thread; the rest go back or fail."""
        worker = self.worker
        batch, results, put_back = [], [], []
        size = 0
        closed = False
        for item in items:
            if put_back or closed or (item.alone and (batch or self.in_device)):
                put_back.append(item.id)
                continue
            decoded = worker.decode(item)
            if isinstance(decoded, tuple):
                results.append(decoded)
            elif size + len(decoded) > worker.max_batch_size:
                put_back.append(item.id)
            else:
                batch.append((item, decoded))
                size += len(decoded)
                closed = item.alone
        if put_back:
            self.out += protocol.encode((protocol.PUT_BACK, put_back))
        if batch:
            self.calls.put((batch, size, results))
            self.in_device += 1
            self.suspect = closed
        elif results:
            self.refused(results)

    def refused(self, results):
        """Answers requests refused before any call. While a call runs they wait for its DONE: a DONE tells the front
        end the worker's call is over (a worker asking ahead then counts as idle and may be given a retried request)."""
        if self.in_device:
            self.held.extend(results)
        else:
            self.out += protocol.encode((protocol.DONE, results, None, 0))

    def answer(self, called):
        """Encodes a called batch's outputs and queues its DONE."""
        results, outputs, stats, isolation_calls = called
        self.in_device -= 1
        self.suspect = False
        self.worker.encode(outputs, results)
        if self.held:
            results.extend(self.held)
            self.held = []
        self.out += protocol.encode((protocol.DONE, results, stats, isolation_calls))

