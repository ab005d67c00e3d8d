"""Metrics off the request path: a stalled stdout reader never stalls a request, and after a broken pipe the lines
come back (with a count of those lost) as soon as someone reads again."""
import asyncio
import fcntl
import json
import os
import tempfile
import threading
import time

from .support import ServerProcess, ServerTestCase

# Short intervals and a small buffer so that a few seconds fill the pipe and the buffer behind it.
FAST_METRICS = {"MODEL_SERVER_METRICS_INTERVAL_MS": 5, "MODEL_SERVER_METRICS_BUFFER_BYTES": 16384, "MODEL_SERVER_VISIBLE_CORES": "0;1"}


def service_lines(text):
    documents = [json.loads(line) for line in text.splitlines() if line.strip().startswith("{")]
    return [d for d in documents if "Worker" not in d]


class StalledReader(ServerTestCase):
    async def test_a_stdout_nobody_reads_never_stalls_ping_or_invocations_and_the_lost_lines_are_counted(self):
        # GIVEN a server whose stdout is a pipe nobody reads, writing metrics every 5 ms
        server = await self.server(piped=True, **FAST_METRICS)
        pipe_size = fcntl.fcntl(server.stdout_pipe, 1032)  # F_GETPIPE_SZ
        # WHEN the pipe and the server's buffer behind it are full (far more lines than both hold)
        await asyncio.sleep(1.5)
        # THEN /ping and /invocations still answer at once
        started = time.monotonic()
        status, _ = await asyncio.wait_for(server.ping(self.session), 2)
        self.assertEqual(status, 200)
        replies = await asyncio.wait_for(asyncio.gather(*(server.invoke(self.session, [i]) for i in range(20))), 3)
        self.assertEqual([s for s, _, _ in replies], [200] * 20)
        self.assertLess(time.monotonic() - started, 3)
        # AND once the reader reads again, the lines flow and a service line counts the ones dropped meanwhile
        text = await asyncio.to_thread(_read_until, server.stdout_pipe, lambda t: any(
            d["MetricLinesDropped"] > 0 for d in service_lines(t)), 10)
        self.assertGreater(len(text), pipe_size)
        self.assertTrue(any(d["MetricLinesDropped"] > 0 for d in service_lines(text)))


class BrokenPipe(ServerTestCase):
    async def test_after_the_reader_goes_away_the_server_serves_and_metrics_resume_when_a_reader_returns(self):
        # GIVEN a server whose stdout is a FIFO with a reader that reads all along, so no line is dropped or left unread
        fifo = os.path.join(tempfile.mkdtemp(prefix="model-server-fifo-"), "stdout")
        os.mkfifo(fifo)
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        stop = threading.Event()
        drained = asyncio.create_task(asyncio.to_thread(_drain_until, reader, stop))
        server = ServerProcess(**FAST_METRICS)
        self.servers.append(server)
        server.stdout_fd = os.open(fifo, os.O_WRONLY)
        await server.start(self.session)
        os.close(server.stdout_fd)
        await asyncio.sleep(0.3)
        # WHEN the reader goes away (writes now fail with EPIPE)
        stop.set()
        first = await drained
        self.assertGreater(len(service_lines(first)), 10)
        self.assertEqual({d["MetricLinesDropped"] for d in service_lines(first)}, {0})
        await asyncio.sleep(0.5)
        # THEN the server still serves, and says on stderr that metric lines are being dropped
        self.assertEqual((await server.invoke(self.session, [3]))[0], 200)
        self.assertEqual((await server.ping(self.session))[0], 200)
        self.assertIn("writing failed", server.stderr())
        # AND when a reader comes back, metric lines flow again, counting the lines lost in between
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        try:
            text = await asyncio.to_thread(_read_until, reader, lambda t: any(
                d["MetricLinesDropped"] > 0 for d in service_lines(t)), 10)
        finally:
            os.close(reader)
        self.assertTrue(any(d["MetricLinesDropped"] > 0 for d in service_lines(text)))
        await server.wait_for(self.session, lambda _, __: "writing works again" in server.stderr(), "the recovery message")


class _LineReader:
    """Reads a file descriptor without blocking, keeping the whole lines read so far."""

    def __init__(self, fd):
        os.set_blocking(fd, False)
        self.fd = fd
        self.chunks = []

    def read(self):
        """Reads what is there; returns False when nothing was."""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            chunk = None
        if chunk:
            self.chunks.append(chunk)
        return bool(chunk)

    def lines(self):
        text = b"".join(self.chunks).decode("utf-8", "replace")
        return text[: text.rfind("\n") + 1]


def _drain_until(fd, stop):
    """Reads fd until stop is set, then closes it; returns the whole lines read."""
    reader = _LineReader(fd)
    while not stop.is_set():
        if not reader.read():
            time.sleep(0.005)
    os.close(fd)
    return reader.lines()


def _read_until(fd, done, timeout_s):
    """Reads fd (blocking or not) until done(text so far, whole lines only) or the timeout; returns the text."""
    reader = _LineReader(fd)
    limit = time.monotonic() + timeout_s
    while time.monotonic() < limit:
        if reader.read():
            if done(reader.lines()):
                return reader.lines()
        else:
            time.sleep(0.01)
    raise AssertionError(f"timed out; read {sum(len(c) for c in reader.chunks)} bytes")
