"""The HTTP side of a front-end process: routing, the body limit, read timeouts, and the guard's connection limits.

Every front-end process runs one `HttpFront` on the shared port (SO_REUSEPORT: the kernel spreads new connections
over the processes listening). What happens to a request once its body is in is the backend's, `frontend.Server`:
its queue, its workers, the deadlines. A backend provides `admit(length)` (a refusal response tuple or None; None when it cannot tell before the body),
`submit(body, content_type, accept)` -> (status, body, content type, headers), `ping()` -> (status, body bytes), and
`count(metric)`.
"""
import asyncio
import inspect
import json
import resource
import socket
import time

from aiohttp import http_writer, web

from .guard import GuardedServer


# aiohttp 3.9+ no longer cancels a handler whose client disconnects unless asked; the queue relies on that cancellation
# to withdraw a request nobody waits for (3.8, Debian's, always cancels and has no such parameter).
CANCEL_ON_DISCONNECT = (
    {"handler_cancellation": True} if "handler_cancellation" in inspect.signature(web.Server.__init__).parameters else {}
)


class CoalescingWriter(http_writer.StreamWriter):
    """Holds a response's status line and headers until its body, so that an answer leaves in one write.

    Why: aiohttp 3.8 (Debian's) writes the headers and then the body, two send() calls per answer, and a profile of the
    front end at batch 1 found send() its largest cost after waiting (9,016 sends for 3,000 requests, a third of its
    CPU on a loaded host): one of them a small packet that wakes the client for nothing. Used only where StreamWriter
    has the 3.8 shape this relies on (`_serialize_headers`, `_write`); otherwise aiohttp's own writer is kept.
    """

    _held = b""

    async def write_headers(self, status_line, headers):
        on_headers_sent = getattr(self, "_on_headers_sent", None)
        if on_headers_sent is not None:
            await on_headers_sent(headers)
        self._held = http_writer._serialize_headers(status_line, headers)

    def _write(self, chunk):
        if self._held:
            chunk, self._held = self._held + chunk, b""
        super()._write(chunk)

    async def write_eof(self, chunk=b""):
        if self._held and not chunk and not getattr(self, "_eof", False):
            super()._write(b"")  # no body: the headers alone
        await super().write_eof(chunk)


COALESCE = hasattr(http_writer, "_serialize_headers") and all(
    hasattr(http_writer.StreamWriter, name) for name in ("_write", "write_headers", "write_eof")
)


class HttpFront:
    def __init__(self, config, backend):
        self.config = config
        self.backend = backend
        self.server = None

    async def start(self, host="0.0.0.0", reuse_port=False):
        """Listens; returns the runner (await runner.cleanup() to stop)."""
        loop = asyncio.get_running_loop()
        self.server = GuardedServer(
            self.handle,
            loop=loop,
            request_factory=self.make_request,
            max_connections=self.config.max_connections,
            read_timeout_s=self.config.read_timeout_s,
            idle_timeout_s=self.config.idle_timeout_s,
            on_refused=lambda: self.backend.count("ConnectionsRefused"),
            on_timeout=lambda: self.backend.count("ReadTimeouts"),
            access_log=None,
            keepalive_timeout=self.config.idle_timeout_s,
            lingering_time=0,  # an unread body (413, 408) closes the connection instead of being read and dropped
            **CANCEL_ON_DISCONNECT,
        )
        runner = web.ServerRunner(self.server, handle_signals=False)
        await runner.setup()
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if reuse_port:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host, self.config.port))
        sock.listen(1024)
        sock.setblocking(False)
        await web.SockSite(runner, sock).start()
        return runner

    def make_request(self, message, payload, protocol_, writer, task):
        loop = asyncio.get_running_loop()
        if COALESCE:
            writer = CoalescingWriter(protocol_, loop)
        return web.BaseRequest(message, payload, protocol_, writer, task, loop, client_max_size=self.config.max_body_bytes)

    async def handle(self, request):
        self.server.request_started(request.protocol)
        try:
            if request.path == "/invocations":
                if request.method != "POST":
                    return json_error(405, "use POST /invocations", headers={"Allow": "POST"})
                return await self.invocations(request)
            if request.path == "/ping":
                if request.method not in ("GET", "HEAD"):
                    return json_error(405, "use GET /ping", headers={"Allow": "GET"})
                status, body = await self.backend.ping()
                return web.Response(status=status, body=body, content_type="application/json")
            return json_error(404, f"no such path {request.path}: the server answers GET /ping and POST /invocations")
        finally:
            self.server.request_finished(request.protocol)

    async def invocations(self, request):
        arrived = time.monotonic()
        length = request.content_length
        if length is not None and length > self.config.max_body_bytes:
            return self.too_large(length)
        refusal = self.backend.admit(length or 0)
        if refusal is not None:
            return web.Response(status=refusal[0], body=refusal[1], content_type=refusal[2], headers=refusal[3])
        if request.headers.get("Expect", "").lower() == "100-continue":
            await request.writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
        try:
            if request.content.is_eof():
                body = await request.read()  # the whole body came with the headers: no wait, so no timer or task for it
            else:
                body = await asyncio.wait_for(request.read(), max(0.0, arrived + self.config.read_timeout_s - time.monotonic()))
        except asyncio.TimeoutError:
            self.backend.count("ReadTimeouts")
            return json_error(
                408, f"the body did not arrive within {self.config.read_timeout_s * 1000:.0f} ms (MODEL_SERVER_READ_TIMEOUT_MS)",
                headers={"Connection": "close"},
            )
        except web.HTTPRequestEntityTooLarge:
            return self.too_large(None)
        accept = request.headers.get("Accept", "")
        if not accept or accept == "*/*":
            accept = self.config.default_accept
        status, body, content_type, headers = await self.backend.submit(
            body, request.headers.get("Content-Type", "application/json"), accept, length is None
        )
        return web.Response(status=status, body=body, content_type=base_type(content_type), charset=charset(content_type), headers=headers)

    def too_large(self, length):
        self.backend.count("BodyTooLarge")
        size = f"of {length} bytes " if length is not None else ""
        return json_error(
            413, f"the body {size}exceeds {self.config.max_body_bytes} bytes (MODEL_SERVER_MAX_BODY_BYTES, the hosting's "
            "payload limit); send a smaller request",
            headers={"Connection": "close"},
        )


def raise_file_limit(config, reserved, log):
    """Every connection is a descriptor: raises the soft open-file limit to the hard one (a container's soft limit is
    often 1024) and lowers `config.max_connections` to what it leaves room for: an accept() failing with EMFILE makes
    asyncio stop accepting for a second, for every client."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    room = soft - 64 - reserved  # stdio, the listening socket, sockets and pipes to workers and front ends
    if soft != resource.RLIM_INFINITY and config.max_connections > room:
        log(f"MODEL_SERVER_MAX_CONNECTIONS={config.max_connections} exceeds what the open-file limit ({soft}) leaves "
            f"room for; accepting at most {room}: raise the container's nofile ulimit to accept more")
        config.max_connections = max(1, room)


def base_type(content_type):
    return content_type.split(";")[0].strip() or "application/octet-stream"


def charset(content_type):
    for part in content_type.split(";")[1:]:
        key, _, value = part.strip().partition("=")
        if key.lower() == "charset":
            return value
    return None


def error_body(message):
    return json.dumps({"error": message}).encode("utf-8")


def json_error(status, message, headers=None):
    return web.Response(status=status, body=error_body(message), content_type="application/json", headers=headers)
