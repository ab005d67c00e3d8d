"""The worker without a batching delay (MODEL_SERVER_MAX_DELAY_MS=0, a stock plan's, with MODEL_SERVER_OVERLAP=1):
its device calls follow each other with no host work between them.

A batch without a delay is whatever the front end has queued when the worker asks (up to `max batch`), so the
worker can ask for its next batch while the current call runs and have it decoded by the time the call ends. Three
threads, each blocked in C while it waits (no Python-level condition between them):
- the device thread takes a decoded batch from `calls` and runs `predict_fn`; when it returns, it puts the outputs in
  `called` and at once takes the next batch, already waiting when the host keeps up: the device starts its next
  call without waking another thread or giving up the interpreter lock in between;
- the reader thread reads the front end's answers to the worker's TAKEs and decodes their requests (`input_fn`) into
  the next batch for `calls`;
- the main thread takes each called batch, encodes its outputs (`output_fn`) and sends its answers (DONE), with the
  worker's next TAKE in the same write.

The worker asks for work whenever the device thread holds fewer than two batches: ahead of the current call's end
while one runs (the front end then gives it only what no idle worker takes, never a retried request), as an idle
worker when none runs. At most one batch waits decoded for the device, as in the pipeline (worker.py). A retried
request (a suspect) runs alone, with nothing asked ahead of it. `input_fn` and `output_fn` never run at once (the
worker's host lock). When predict_fn raises on a batch of several requests, the device thread splits it (`predict`).
A call is not announced (no CALL): the hand-over of its requests, at most one call earlier, armed the watchdog.

Why not the pipeline of worker.py for these plans: with 1 ms calls it left as much time between calls as the stock
worker (0.10 ms: Python conditions, a CALL message and the interpreter lock changing hands between one call's end and
the next one's start) at twice its CPU per request.
"""
import queue
import sys
import threading

from . import protocol
from .assembly import PIPELINE_SWITCH_INTERVAL_S, Assembly, fatal_on_error


def run_chained(worker):
    """Serves with `worker`'s handler, sockets and limits until the front end closes the socket."""
    Chain(worker).run()


class Chain:
    def __init__(self, worker):
        self.worker = worker
        self.calls = queue.SimpleQueue()  # reader -> device thread: (batch, size, results)
        self.called = queue.SimpleQueue()  # device thread -> main: what Worker.run_call returns, one per batch
        # Held while the state below changes and while the write it decides goes out, so that what the front end
        # reads (a DONE, then a TAKE asked ahead or not) is in the order the worker decided it.
        self.lock = threading.Lock()
        self.in_device = 0  # batches handed to the device thread and not answered: one calling, at most one waiting
        self.suspect = False  # the device thread holds a retried request: ask for nothing until it is answered
        self.asked = False  # a TAKE is out and its REQUESTS not read yet
        self.held = []  # answers of refused requests, sent with the next DONE of a call (see `admit`)

    def run(self):
        sys.setswitchinterval(PIPELINE_SWITCH_INTERVAL_S)
        for stage in (self.device, self.reader):
            threading.Thread(target=fatal_on_error, args=(stage,), name=stage.__name__, daemon=True).start()
        with self.lock:
            self.send(self.ask())
        while True:
            self.answer(self.called.get())

    def device(self):
        worker = self.worker
        while True:
            batch, size, results = self.calls.get()
            self.called.put(worker.run_call(batch, size, results))

    def reader(self):
        frames = self.worker.frames
        while True:
            message = frames.recv()
            assert message[0] == protocol.REQUESTS, message[0]
            self.admit(message[1])

    def send(self, data):
        if data:
            self.worker.write(data)

    def ask(self):
        """A TAKE when the device thread may hold another batch (ahead of the running call's end, or idle), else b""."""
        if self.asked or self.suspect or self.in_device >= 2:
            return b""
        self.asked = True
        if self.in_device == 1:
            return protocol.encode((protocol.TAKE, self.worker.max_batch_size, None, True))
        return protocol.encode((protocol.TAKE, self.worker.max_batch_size, None))

    def admit(self, items):
        """Decodes the requests the front end gave into one batch for the device thread; the rest go back or fail."""
        batch = Assembly(self.worker)
        batch.add(items, self.in_device > 0)
        with self.lock:
            self.asked = False
            out = protocol.encode((protocol.PUT_BACK, batch.put_back)) if batch.put_back else b""
            results = batch.results
            if batch.items:
                self.calls.put((batch.items, batch.size, results))
                self.in_device += 1
                self.suspect = batch.alone
            elif results and self.in_device:
                # A DONE tells the front end the worker's call is over (a worker asking ahead then counts as idle and
                # may be given a retried request): while a call runs, these answers wait for its DONE.
                self.held.extend(results)
            elif results:
                out += protocol.encode((protocol.DONE, results, None, 0))
            self.send(out + self.ask())

    def answer(self, called):
        """Encodes a called batch's outputs and sends its DONE, with the next TAKE when the worker may hold more."""
        results, outputs, stats, isolation_calls = called
        self.worker.encode(outputs, results)
        with self.lock:
            self.in_device -= 1
            self.suspect = False
            if self.held:
                results.extend(self.held)
                self.held = []
            self.send(protocol.encode((protocol.DONE, results, stats, isolation_calls)) + self.ask())
