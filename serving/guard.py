"""The HTTP server's guard against slow, idle and too many clients: aiohttp's low-level server with connection hooks.

aiohttp closes a kept-alive connection after `keepalive_timeout`, but a connection that never finishes its first
request's headers (or never sends a byte) stays open forever, and it accepts any number of connections. The guard:

- counts open connections and answers one over `MODEL_SERVER_MAX_CONNECTIONS` with a 503 and closes it at once;
- closes a connection whose request headers have not all arrived `MODEL_SERVER_READ_TIMEOUT_MS` after it opened, or
  that stays idle `MODEL_SERVER_IDLE_TIMEOUT_MS` after its last response (above the ALB's default 60 s idle timeout,
  so the load balancer, not the server, closes kept-alive connections: a server closing first races the ALB's reuse
  and shows as 502s, Elastic Load Balancing user guide, "Connection idle timeout");
- the body's own timeout is the handler's (Server.invocations), which knows when the body has been read.

The per-connection timers are `loop.call_later` handles: no sweep over all connections.
"""
from aiohttp import web

REFUSAL = (
    b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nConnection: close\r\nContent-Type: application/json\r\n"
    b'Content-Length: 90\r\n\r\n{"error": "too many open connections (MODEL_SERVER_MAX_CONNECTIONS); retry later"}'
)
REFUSAL = REFUSAL.replace(b"Content-Length: 90", b"Content-Length: %d" % len(REFUSAL.split(b"\r\n\r\n", 1)[1]))


class GuardedServer(web.Server):
    def __init__(self, handler, *, loop, max_connections, read_timeout_s, idle_timeout_s, on_refused, on_timeout, request_factory, **kwargs):
        super().__init__(handler, request_factory=request_factory, loop=loop, **kwargs)
        self.guard_loop = loop
        self.max_connections = max_connections
        self.read_timeout_s = read_timeout_s
        self.idle_timeout_s = idle_timeout_s
        self.on_refused = on_refused
        self.on_timeout = on_timeout
        self.open = 0
        self.timers = {}  # RequestHandler -> [timer handle, what it waits for (headers, busy, idle), since when]

    def connection_made(self, handler, transport):
        super().connection_made(handler, transport)
        self.open += 1
        if self.open > self.max_connections:
            self.on_refused()
            transport.write(REFUSAL)
            handler.force_close()  # closes the transport once the refusal is flushed; no request is read
            return
        self._arm(handler, self.read_timeout_s, "headers")

    def connection_lost(self, handler, exc=None):
        super().connection_lost(handler, exc)
        self.open -= 1
        entry = self.timers.pop(handler, None)
        if entry is not None:
            entry[0].cancel()

    def request_started(self, handler):
        """The headers of a request have arrived: its handler owns the time from here."""
        entry = self.timers.get(handler)
        if entry is not None:
            entry[1] = "busy"  # the timer, if it fires first, finds the connection busy and lets it be

    def request_finished(self, handler):
        """The handler has its response: the connection may now idle until the next request.

        Lazily: the connection's one timer is kept and, when it fires, sleeps again for what is left of the idle bound
        since the last response; a new timer per request was a heap push and a cancelled entry per request."""
        now = self.guard_loop.time()
        entry = self.timers.get(handler)
        if entry is None or entry[0].when() > now + self.idle_timeout_s:
            self._arm(handler, self.idle_timeout_s, "idle")
        else:
            entry[1], entry[2] = "idle", now

    def _arm(self, handler, delay, what):
        entry = self.timers.pop(handler, None)
        if entry is not None:
            entry[0].cancel()
        self.timers[handler] = [self.guard_loop.call_later(delay, self._expire, handler), what, self.guard_loop.time()]

    def _expire(self, handler):
        entry = self.timers.get(handler)
        if entry is None:
            return
        what, since = entry[1], entry[2]
        if what == "busy":
            del self.timers[handler]  # request_finished arms it again
            return
        if what == "idle" and since + self.idle_timeout_s > self.guard_loop.time():
            entry[0] = self.guard_loop.call_at(since + self.idle_timeout_s, self._expire, handler)
            return
        del self.timers[handler]
        if what == "headers":
            self.on_timeout()
        handler.force_close()
