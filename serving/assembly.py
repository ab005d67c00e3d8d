"""What the two worker loops share: the pipelined worker (worker.py, for plans with a batching delay or without the
overlap) and the chained one (chained.py, for plans without a delay). Kept apart so that neither imports the other for
it: worker.py starts the chained loop, and the chained loop assembles its batches the same way.

- `Assembly`: one batch put together from the requests the front end gives a worker (the put-back, refusal and
  retried-request rules of steps 1-4 and 6 in worker.py's docstring), whichever loop runs it;
- `PIPELINE_SWITCH_INTERVAL_S`: the interpreter's switch interval while a worker's threads overlap (worker.py says why);
- `fatal_on_error`: a worker thread whose own code fails ends the process, so the front end retries its requests.

`Assembly` decodes through the worker it is given (`worker.decode`, `worker.max_batch_size`): it needs no import of it.
"""
import os
import sys
import traceback

# How often CPython offers the GIL to a waiting thread while the pipeline runs (see worker.py's docstring).
PIPELINE_SWITCH_INTERVAL_S = 0.0005


class Assembly:
    """One batch being put together from the requests the front end gives a worker, in arrival order: each request is
    decoded into the batch, refused (its answer in `results`), or put back for the next batch, untouched."""

    def __init__(self, worker):
        self.worker = worker
        self.items = []  # (item, inputs)
        self.results = []  # finished answers: (id, status, body, content type)
        self.put_back = []  # request ids
        self.size = 0  # inputs in the batch
        self.first_arrival = None
        self.alone = False  # the batch holds a retried request, which runs in a call of its own

    @property
    def closed(self):
        """Nothing more joins: it is full, holds a retried request, or put one back (arrival order stays)."""
        return bool(self.put_back) or self.alone or self.size >= self.worker.max_batch_size

    def add(self, items, device_busy):
        """Takes `items` into the batch; True when a retried request went back because the device was busy and the
        batch empty (it waits for an idle device)."""
        waits_for_idle = False
        for item in items:
            if self.put_back or self.alone or (item.alone and (self.items or device_busy)):
                # Keep arrival order behind a request that did not fit; a retried request runs with nothing beside it.
                waits_for_idle = waits_for_idle or (item.alone and not self.items)
                self.put_back.append(item.id)
                continue
            decoded = self.worker.decode(item)
            if isinstance(decoded, tuple):
                self.results.append(decoded)
            elif self.size + len(decoded) > self.worker.max_batch_size:
                self.put_back.append(item.id)
            else:
                self.items.append((item, decoded))
                self.size += len(decoded)
                self.first_arrival = item.enqueued if self.first_arrival is None else self.first_arrival
                self.alone = item.alone
        return waits_for_idle


def fatal_on_error(stage):
    """Runs a pipeline stage; any failure of the worker's own (not the handler's: each stage answers those) ends the
    process, so that the front end sees it exit and retries its requests, as when the worker dies in a call."""
    try:
        stage()
    except BaseException:  # noqa: B902
        if not isinstance(sys.exc_info()[1], OSError):  # a closed socket: the front end has gone
            traceback.print_exc()
        os._exit(1)
