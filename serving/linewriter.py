"""Whole lines to a file descriptor, written by a thread so that a slow or stalled reader never blocks the event loop.

Why: the front end answers every request from one asyncio loop, and its stdout (EMF metric lines) and stderr (log
lines) are pipes read by someone else: the SageMaker log agent, or on ECS the `awslogs` Docker driver, which in its
`blocking` mode stops reading while CloudWatch Logs throttles. A blocking `write` in the loop then freezes `/ping` and
`/invocations` alike. Here the loop only appends to a bounded buffer (a lock held for an append) and a daemon thread
does the blocking writes. When the buffer is full the line is dropped whole and counted, never split, and the loop
goes on; the front end publishes the count as the `MetricLinesDropped` metric.

A write that fails (EPIPE after the reader has gone, EIO) drops that line, counts it, says so once on stderr, and the
thread keeps taking lines, retrying every second: should the descriptor accept writes again, lines flow again and the
gap is in the dropped count; the loop is never told and never stops.
"""
import collections
import os
import threading
import time

# How long the thread waits before it tries a descriptor again after a failed write.
RETRY_AFTER_FAILURE_S = 1.0


class LineWriter:
    def __init__(self, fd, max_buffered_bytes, name, on_failure=None):
        self.fd = fd
        self.max_buffered_bytes = max_buffered_bytes
        self.name = name
        self.on_failure = on_failure  # called from the thread with a sentence, once per run of failures
        self._lines = collections.deque()
        self._buffered = 0
        self._dropped = 0  # since the last take_dropped()
        self._busy = False  # a line has been taken and is being written
        self._closed = False
        self._lock = threading.Lock()
        self._ready = threading.Condition(self._lock)
        self._idle = threading.Condition(self._lock)
        self._failing = False
        self._thread = threading.Thread(target=self._run, name=f"{name}-writer", daemon=True)
        self._thread.start()

    def write(self, line: bytes) -> bool:
        """Buffers one line; False (and counted) when the buffer is full. Never blocks on the descriptor."""
        with self._lock:
            if self._closed or self._buffered + len(line) > self.max_buffered_bytes:
                self._dropped += 1
                return False
            self._lines.append(line)
            self._buffered += len(line)
            self._ready.notify()
        return True

    def take_dropped(self) -> int:
        """Lines dropped since the last call (buffer full or failed writes)."""
        with self._lock:
            dropped, self._dropped = self._dropped, 0
            return dropped

    def buffered_bytes(self) -> int:
        with self._lock:
            return self._buffered

    def close(self, timeout_s):
        """Waits up to timeout_s for buffered lines to be written, then stops taking lines."""
        limit = time.monotonic() + timeout_s
        with self._lock:
            while (self._lines or self._busy) and time.monotonic() < limit:
                self._idle.wait(max(0.0, limit - time.monotonic()))
            self._closed = True
            self._ready.notify()

    def _run(self):
        while True:
            with self._lock:
                while not self._lines and not self._closed:
                    self._idle.notify_all()
                    self._ready.wait()
                if not self._lines:
                    self._idle.notify_all()
                    return
                line = self._lines.popleft()
                self._buffered -= len(line)
                self._busy = True
            ok = self._write_all(line)
            with self._lock:
                self._busy = False
                if not ok:
                    self._dropped += 1
                if not self._lines:
                    self._idle.notify_all()
            if not ok:
                time.sleep(RETRY_AFTER_FAILURE_S)

    def _write_all(self, line):
        view = memoryview(line)
        try:
            while view:
                view = view[os.write(self.fd, view):]
        except OSError as error:
            if not self._failing and self.on_failure is not None:
                self.on_failure(f"{self.name}: writing failed ({error}); lines are dropped and counted until it works again")
            self._failing = True
            return False
        if self._failing and self.on_failure is not None:
            self.on_failure(f"{self.name}: writing works again")
        self._failing = False
        return True
