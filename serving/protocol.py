"""Length-prefixed pickle frames between the front end and its workers, and between front end 0 and the
other front ends (siblings), over Unix socket pairs.

Only the server's own processes are on either end of the socket, so pickle carries no untrusted input. A front end
reads its workers with `FrameProtocol` (each message handled in the loop's read callback; never blocks on a
half-written frame) and its siblings with asyncio streams; a worker reads blocking (`BlockingFrames`).
"""
import asyncio
import pickle
import struct
from typing import NamedTuple

_HEADER = struct.Struct("!Q")

# Worker -> front end
LOADED = "loaded"  # (LOADED, pid)
LOAD_FAILED = "load_failed"  # (LOAD_FAILED, message)
TAKE = "take"  # (TAKE, max_requests, wait_s or None[, ahead]): give me up to max_requests; wait at most wait_s for the
# first; ahead: asked by a stock worker while its call runs (an idle worker goes first, no retried request)
PUT_BACK = "put_back"  # (PUT_BACK, [request id, ...]): not started; return them to the head of the queue, in order
DONE = "done"  # (DONE, [(request id, status, body, content type), ...], BatchStats or None, isolation calls)
CALL = "call"  # (CALL, requests): a predict_fn call starts now; the front end's watchdog times it

# Front end -> worker
REQUESTS = "requests"  # (REQUESTS, [WorkItem, ...]); an empty list answers a TAKE whose wait ran out

# Another front end (serving/siblings.py) -> front end 0
LISTENING = "listening"  # (LISTENING, pid)
PING = "ping"  # (PING, request id, pid): /ping reached it; answer for the instance with ANSWER (status, JSON body bytes)
STATUS_OF = "status_of"  # (STATUS_OF, request id, status): its answer to STATUS (frontend.Server.status)
LINES = "lines"  # (LINES, bytes): a metric line for stdout, which front end 0 alone writes

# Front end 0 -> another front end
STATUS = "status"  # (STATUS, request id): report your queue and workers with STATUS_OF
ANSWER = "answer"  # (ANSWER, request id, (status, body)): the answer to its PING


def encode(message) -> bytes:
    payload = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    return _HEADER.pack(len(payload)) + payload


async def read_message(reader):
    """The next message from an asyncio StreamReader; raises asyncio.IncompleteReadError at end of stream."""
    (length,) = _HEADER.unpack(await reader.readexactly(_HEADER.size))
    return pickle.loads(await reader.readexactly(length))


class FrameProtocol(asyncio.Protocol):
    """The asyncio end of a socket pair that hands each message to `on_message` as soon as its frame is complete,
    inside the event loop's read callback: no reader task to wake per message (a StreamReader read costs a turn of the
    loop and its `readexactly` calls; a CPU profile of a batch-1 front end put the hand-over to its worker at a third
    of the loop's turns, docs/model-server-bench.md). `closed` completes when the other end has gone."""

    def __init__(self, on_message):
        self.on_message = on_message
        self.buffer = bytearray()
        self.transport = None
        self.closed = asyncio.get_running_loop().create_future()

    def connection_made(self, transport):
        self.transport = transport

    def data_received(self, data):
        buffer = self.buffer
        buffer += data
        start = 0
        messages = []
        with memoryview(buffer) as view:
            while len(buffer) - start >= _HEADER.size:
                (length,) = _HEADER.unpack_from(buffer, start)
                end = start + _HEADER.size + length
                if len(buffer) < end:
                    break
                messages.append(pickle.loads(view[start + _HEADER.size : end]))
                start = end
        del buffer[:start]
        for message in messages:
            self.on_message(message)

    def connection_lost(self, exc):
        if not self.closed.done():
            self.closed.set_result(None)


async def open_frames(sock, on_message):
    """(transport, FrameProtocol) over a connected Unix socket: write frames with `transport.write(encode(...))`."""
    return await asyncio.get_running_loop().connect_accepted_socket(lambda: FrameProtocol(on_message), sock)


class BlockingFrames:
    """Messages from a blocking socket (a worker's end): one recv() per burst of frames, not two per frame."""

    def __init__(self, sock):
        self.sock = sock
        self.buffer = bytearray()

    def recv(self):
        """The next message; raises EOFError when the front end has gone."""
        buffer = self.buffer
        while True:
            if len(buffer) >= _HEADER.size:
                end = _HEADER.size + _HEADER.unpack_from(buffer, 0)[0]
                if len(buffer) >= end:
                    with memoryview(buffer) as view:
                        message = pickle.loads(view[_HEADER.size : end])
                    del buffer[:end]
                    return message
                wanted = end - len(buffer)
            else:
                wanted = _HEADER.size - len(buffer)
            chunk = self.sock.recv(min(max(wanted, 1 << 16), 1 << 20))
            if not chunk:
                raise EOFError("the front end closed the connection")
            buffer += chunk


class WorkItem(NamedTuple):
    """One request as a worker sees it. Times are `time.monotonic()` seconds, one clock for every process on the host.

    A named tuple: compact, immutable once queued, and pickled as a plain tuple across the worker socket."""

    id: int
    body: bytes
    content_type: str
    accept: str
    enqueued: float
    deadline: float
    # A retry of a request whose worker died or hung with it: it runs in a device call of its own, so that a request
    # that kills its worker takes no batch-mate with it twice.
    alone: bool = False


class BatchStats(NamedTuple):
    """What one device call did: inputs and requests in it, when it started, how long `predict_fn` took, and how long
    each of its requests waited from arrival to the call."""

    inputs: int
    requests: int
    started: float
    device_ms: float
    queue_waits_ms: list
