"""One worker: owns one NeuronCore group, loads the model once, and runs batches it pulls from the front end.

The front end starts each worker as a fresh interpreter (`python3 -m serving.worker --fd N`) with
`NEURON_RT_VISIBLE_CORES` already in its environment, so the Neuron runtime sees exactly its group from the first
import of the framework (aws-neuron-sdk#453, #898: a runtime that starts without it takes cores first-come).

Batch assembly (the worker pulls; a slow worker never holds requests another could run):
1. ask the front end for up to `max batch` requests and wait for the first;
2. decode each with `input_fn`; the batch's clock starts at the first request's arrival at the front end;
3. while the batch has room and `max delay` since that arrival has not passed, ask for more (up to the room left,
   waiting at most the delay left; requests already queued come at once, so a backlog fills batches immediately);
4. a request whose inputs do not fit the room left goes back to the head of the shared queue, untouched, for the next
   batch (on any worker): a request is never split across device calls, so its inputs run together;
5. one `predict_fn` call, then each request's slice through its own `output_fn`; when it raises, the batch is split
   and re-run down to single requests so only the request it fails on gets the error (see `predict`);
6. a retried request (`WorkItem.alone`: its worker died or hung with it) runs in a call of its own.

With MODEL_SERVER_OVERLAP=1 (rendered unless the plan was made for a Neuron DLC's stock toolkit, which runs one stage
after the other in one thread: then 0) the worker overlaps its host work with the device call, so the NeuronCore does
not idle while it decodes and encodes. Without a batching delay (MODEL_SERVER_MAX_DELAY_MS=0, a stock plan's) the
batch is whatever is queued when the worker asks, and serving/chained.py runs it: the device thread starts its next
call as the last one returns. With a delay the worker is a pipeline of three threads: the main
thread assembles and decodes (steps 1-4) the next batch while the device thread runs the current one's `predict_fn`
(step 5), and the finisher runs the previous one's `output_fn` and sends its answers. At most one batch waits decoded
for the device (bounded memory; a slow worker holds one batch more than it runs, no more); nothing is taken ahead of
a retried request's call, and a retried request that arrives while the device is busy goes back to the queue until it
is idle, so that it never dies with a call it was not in. `input_fn` and `output_fn` never run at once (a handler may
share a tokenizer between them). The overlap pays because the device call releases the GIL: a TorchScript module
(what torch_neuronx.trace returns) runs its graph with it released (https://github.com/pytorch/pytorch/pull/11541).
A call that returns must take the GIL back from a stage running Python; CPython hands it over only every switch
interval (5 ms by default, https://docs.python.org/3/library/sys.html#sys.setswitchinterval), which stretched a 6 ms
call to 7-8 ms in bench:serving's host-bound plan, so the pipeline runs with a 0.5 ms interval.

Before every `predict_fn` call the worker tells the front end (CALL), whose watchdog kills a worker that holds requests
without a word for longer than its bound. Without the overlap the first call of a batch follows the hand-over that
armed the watchdog, and as it starts the worker asks for its next batch (TAKE ahead): the front end's answer is in the
socket when the call and its answers are done, so the round trip through the front end is not between the worker's
calls (at saturation with a 1 ms call, the gap between calls fell from 0.34-0.37 to 0.25-0.28 ms, p50). The front end
gives a worker asking ahead only what no idle worker takes, and never a retried request; nothing is asked ahead of a
retried request's call.
"""
import os
import queue
import signal
import socket
import sys
import time
import threading
import traceback

from . import protocol
from .assembly import PIPELINE_SWITCH_INTERVAL_S, Assembly, fatal_on_error
from .chained import run_chained
from .config import load
from .handler import Handler, HandlerError, concat

def main():
    # Ctrl-C in a terminal reaches the whole process group: the front end decides when workers stop (SIGTERM).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=int(sys.argv[sys.argv.index("--fd") + 1]))
    config = load()
    try:
        handler = Handler.load(config.model_dir, config.program, config.code_dir)
        model = handler.model_fn(config.model_dir)
    except BaseException:  # noqa: B902  any failure to load is reported, then the front end restarts the worker
        sock.sendall(protocol.encode((protocol.LOAD_FAILED, traceback.format_exc(limit=20))))
        sys.exit(1)
    sock.sendall(protocol.encode((protocol.LOADED, os.getpid())))
    try:
        Worker(sock, handler, model, config.max_batch_size, config.max_delay_s, config.overlap).run()
    except EOFError:
        sys.exit(0)  # the front end has gone: nothing left to serve


class Worker:
    """The three stages of the pipeline (see the module's docstring): `run` assembles, `device` calls, `finish` answers."""

    def __init__(self, sock, handler, model, max_batch_size, max_delay_s, overlap=True):
        self.sock = sock
        self.frames = protocol.BlockingFrames(sock)
        self.overlap = overlap  # MODEL_SERVER_OVERLAP: 0 runs the three stages one after the other, in this thread
        self.handler = handler
        self.model = model
        self.max_batch_size = max_batch_size
        self.max_delay_s = max_delay_s
        self.send_lock = threading.Lock()  # three threads write to the socket; only `run` reads it
        # input_fn and output_fn never run at once (a handler may share a tokenizer between them); only predict_fn
        # runs beside them, as it ran between them before.
        self.host_lock = threading.Lock()
        self.state = threading.Condition()
        self.ready = None  # the batch decoded ahead, waiting for the device: (batch, size, results)
        self.calling = False  # the device thread holds a batch
        self.calling_alone = False  # ... and it holds a retried request (a suspect): take nothing ahead of it
        self.await_idle = False  # a retried request came while the device was busy: take again once it is idle
        self.finished = queue.Queue(maxsize=1)  # device -> finisher: at most one batch waits for its output_fn
        # Without the overlap, a call's answers (DONE) go out with the worker's next write (its TAKE, unless that was
        # asked ahead): one write fewer per call.
        self.deferred = b""
        # Without the overlap, the TAKE for the next batch goes out as a call starts (see `predict`): the front end's
        # answer is in the socket when the call and its answers are done, instead of a round trip between calls.
        self.asked_ahead = False
        # Without a batching delay the overlap needs no pipeline of batches being filled: see chained.py.
        self.chained = overlap and max_delay_s == 0

    def send(self, message):
        data = protocol.encode(message)
        with self.send_lock:
            self.sock.sendall(data)

    def take(self, max_requests, wait_s):
        data = self.deferred
        if self.asked_ahead:
            self.asked_ahead = False  # the first take of a batch, asked when the call before started: await its answer
        else:
            data += protocol.encode((protocol.TAKE, max_requests, wait_s))
        self.deferred = b""
        if data:
            with self.send_lock:
                self.sock.sendall(data)
        kind, items = self.frames.recv()
        assert kind == protocol.REQUESTS, kind
        return items

    def write(self, data):
        with self.send_lock:
            self.sock.sendall(data)

    def run(self):
        if self.chained:
            run_chained(self)
            return
        if not self.overlap:
            while True:
                self.run_one_batch()
                if self.ready is not None:
                    self.finish_one(self.call_one())
        sys.setswitchinterval(PIPELINE_SWITCH_INTERVAL_S)
        for stage in (self.device, self.finish):
            threading.Thread(target=fatal_on_error, args=(stage,), name=stage.__name__, daemon=True).start()
        while True:
            with self.state:
                # At most one batch decoded ahead, never ahead of a suspect's call, and once a retried request was
                # put back, nothing until the device is idle (so it runs with no batch behind it).
                self.state.wait_for(lambda: self.ready is None and not self.calling_alone and not (self.await_idle and self.calling))
                self.await_idle = False
            self.run_one_batch()

    def run_one_batch(self):
        """Assembles one batch and hands it to the device thread (or answers at once the requests it refused)."""
        batch = Assembly(self)
        wait_s = None  # the first request of a batch is awaited without limit
        while True:
            items = self.take(self.max_batch_size - batch.size, wait_s)
            if not items and wait_s is not None:
                break  # the delay ran out, or past it nothing more is queued
            # A retried request never waits behind a call (were the worker to die in it, the retry would die with it):
            # put back, it waits for an idle device.
            self.await_idle = batch.add(items, self.calling) or self.await_idle
            if batch.closed:
                break
            if batch.first_arrival is None:
                if batch.results:
                    break  # only refused requests so far: answer them now
                continue
            # Past the delay (a backlog), take only what is already queued: wait 0.
            wait_s = max(0.0, batch.first_arrival + self.max_delay_s - time.monotonic())
        if batch.put_back:
            self.send((protocol.PUT_BACK, batch.put_back))
        if batch.items:
            with self.state:
                self.ready = (batch.items, batch.size, batch.results)
                self.state.notify_all()
        elif batch.results:
            self.send((protocol.DONE, batch.results, None, 0))

    def device(self):
        """The device stage: takes each batch as it is ready, runs its call(s), and passes the outputs on."""
        while True:
            self.finished.put(self.call_one())

    def call_one(self):
        """Takes the batch that is ready (waiting for one) and runs its call(s): what `finish_one` answers."""
        with self.state:
            self.state.wait_for(lambda: self.ready is not None)
            batch, size, results = self.ready
            self.ready = None
            self.calling = True
            self.calling_alone = any(item.alone for item, _ in batch)
            self.state.notify_all()  # the next batch may be assembled while this one runs
        if self.calling_alone and self.overlap:
            # A suspect (a retried request) may kill the worker: the answers of the call before must be out first, or
            # they die with it, unsent, and their requests count a second failure they had no part in.
            self.finished.join()
        outputs, stats, isolation_calls = self.predict(batch, size, results)
        with self.state:
            self.calling = self.calling_alone = False
            self.state.notify_all()
        return results, outputs, stats, isolation_calls

    def finish(self):
        """The answer stage: answers each batch the device stage passes on."""
        while True:
            self.finish_one(self.finished.get())
            self.finished.task_done()  # its answers are sent (see call_one)

    def run_call(self, batch, size, results):
        """Runs a batch's call(s): what `encode` and a DONE answer."""
        outputs, stats, isolation_calls = self.predict(batch, size, results)
        return results, outputs, stats, isolation_calls

    def finish_one(self, called):
        """Each request's slice through its own `output_fn`, then the batch's answers to the front end."""
        results, outputs, stats, isolation_calls = called
        self.encode(outputs, results)
        if self.overlap:
            self.send((protocol.DONE, results, stats, isolation_calls))
        else:
            self.deferred = protocol.encode((protocol.DONE, results, stats, isolation_calls))  # sent with the next TAKE

    def encode(self, outputs, results):
        """Each request's slice of a call's outputs through its own `output_fn`, into `results`."""
        with self.host_lock:
            for item, output in outputs:
                try:
                    body, content_type = self.handler.output_fn(output, item.accept)
                    results.append((item.id, 200, body, content_type))
                except Exception as error:  # noqa: B902
                    results.append(_error(item, getattr(error, "status_code", 500), f"output_fn failed: {_describe(error)}"))

    def decode(self, item):
        """The request's inputs, or a finished (id, status, body, content type) when it cannot run."""
        if item.deadline <= time.monotonic():
            return _error(item, 504, "the request's deadline passed before a worker started it")
        try:
            with self.host_lock:
                inputs = self.handler.input_fn(item.body, item.content_type)
        except Exception as error:  # noqa: B902  the user's code: its message is the answer
            return _error(item, getattr(error, "status_code", 400), f"input_fn rejected the request: {_describe(error)}")
        if len(inputs) == 0:
            return _error(item, 400, "the request carries no inputs")
        if len(inputs) > self.max_batch_size:
            return _error(
                item,
                413,
                f"the request carries {len(inputs)} inputs; a batch holds at most {self.max_batch_size} "
                f"(MODEL_SERVER_MAX_BATCH_SIZE): send at most {self.max_batch_size} inputs per request",
            )
        return inputs

    def predict(self, batch, size, results):
        """Runs the batch: ([(item, its slice of the prediction)], BatchStats of the first call, isolation calls made);
        the requests that failed get their answer in `results`.

        When predict_fn raises on a batch of several requests, the batch is split in halves and each half runs again,
        down to single requests, so that only the request(s) it fails on get the error (fault isolation). A half runs
        again only while the failed call's duration still fits before the earliest deadline in it; otherwise its
        requests get the error at once. Cost, bounded: one bad request among n costs at most 2 x ceil(log2 n) extra
        calls, and any number of bad requests at most n - 1 extra splits (2n - 2 calls), each no longer than a call.
        """
        started = time.monotonic()
        waits = [(started - item.enqueued) * 1000.0 for item, _ in batch]
        groups = [batch]
        outputs = []
        first_device_ms = None
        calls = 0
        while groups:
            group = groups.pop()
            calls += 1
            call_started = time.monotonic()
            if (self.overlap and not self.chained) or calls > 1:
                # The front end's watchdog restarts for this call. Without the overlap the first call follows the
                # hand-over that armed it by no more than the batch's input_fn: no message needed.
                self.send((protocol.CALL, len(group)))
            elif not self.chained and not any(item.alone for item, _ in batch):
                # Ask for the next batch now (as `take` would after this call), so the hand-over overlaps the call;
                # the front end gives it only what no idle worker takes. Never beside a suspect's call.
                self.send((protocol.TAKE, self.max_batch_size, None, True))
                self.asked_ahead = True
            try:
                inputs = concat([inputs for _, inputs in group])
                prediction = self.handler.predict_fn(inputs, self.model)
                if len(prediction) != len(inputs):
                    raise HandlerError(
                        f"predict_fn returned {len(prediction)} outputs for a batch of {len(inputs)} inputs; return one "
                        "output per input, in order (pad inside predict_fn and drop the padding's outputs)"
                    )
            except Exception as error:  # noqa: B902  the user's code: isolate the request(s) it fails on
                call_s = time.monotonic() - call_started
                first_device_ms = call_s * 1000.0 if first_device_ms is None else first_device_ms
                message = f"predict_fn failed: {_describe(error)}"
                status = getattr(error, "status_code", 500)
                if len(group) == 1:
                    results.append(_error(group[0][0], status, message))
                    continue
                middle = len(group) // 2
                for half in (group[middle:], group[:middle]):
                    if min(item.deadline for item, _ in half) - time.monotonic() >= call_s:
                        groups.append(half)
                    else:
                        results.extend(
                            _error(item, status, f"{message} (on a batch this request shared; no time was left before "
                                   "its deadline to run it apart)")
                            for item, _ in half
                        )
                continue
            device_ms = (time.monotonic() - call_started) * 1000.0
            first_device_ms = device_ms if first_device_ms is None else first_device_ms
            offset = 0
            for item, inputs in group:
                outputs.append((item, prediction[offset : offset + len(inputs)]))
                offset += len(inputs)
        return outputs, protocol.BatchStats(size, len(batch), started, first_device_ms, waits), calls - 1


def _describe(error):
    return f"{type(error).__name__}: {error}"


def _error(item, status, message):
    import json

    return (item.id, status, json.dumps({"error": message}).encode("utf-8"), "application/json")


if __name__ == "__main__":
    main()
