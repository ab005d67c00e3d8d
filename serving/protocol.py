"""Length-prefixed pickle frames between the front end and its workers, and between front end 0 and the
other front ends (siblings), over Unix socket pairs.

Only the server's own processes are on either end of the socket, so pickle carries no untrusted input. The front
end reads with asyncio streams (never blocks the event loop on a half-written frame); a worker reads blocking.
"""
import pickle
import struct
from typing import NamedTuple

_HEADER = struct.Struct("!Q")

# Worker -> front end
LOADED = "loaded"  # (LOADED, pid)
LOAD_FAILED = "load_failed"  # (LOAD_FAILED, message)
TAKE = "take"  # (TAKE, max_requests, wait_s or None): give me up to max_requests; wait at most wait_s for the first
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


def recv_blocking(sock):
    """The next message from a blocking socket; raises EOFError when the front end has gone."""
    (length,) = _HEADER.unpack(_recv_exactly(sock, _HEADER.size))
    return pickle.loads(_recv_exactly(sock, length))


def _recv_exactly(sock, size: int) -> bytes:
    chunks = []
    while size > 0:
        chunk = sock.recv(min(size, 1 << 20))
        if not chunk:
            raise EOFError("the front end closed the connection")
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


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
