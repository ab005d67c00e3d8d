"""The front ends beyond the first (MODEL_SERVER_FRONT_ENDS > 1): front end 0 starts and restarts them, and each is
a whole front end (frontend.Server) with its own share of the workers and its own queue.

What crosses between them is small and off the request path: front end 0 asks each for its status when /ping is
answered (any front end may be asked; the others forward /ping to front end 0, which answers for the instance), and
the others hand it their metric lines, so that stdout has one writer. A request never leaves the front end whose
connection brought it.

Front end 0 starts each as `python3 -m serving.sibling --fd N --index I` (a Unix socket to it; sibling.py); it exits
when front end 0 goes.
"""
import asyncio
import itertools
import os
import socket
import sys

from . import protocol
from .config import shares
from .health import instance_answer
from .workers import exit_cause, serving_environment

# How long /ping waits for a front end's status before it counts that front end as down.
STATUS_TIMEOUT_S = 2.0


class Peer:
    """Front end 0's view of another front end."""

    def __init__(self, index, workers):
        self.index = index
        self.workers = workers  # (index on the instance, cores) of the workers it owns
        self.process = None
        self.writer = None
        self.ready = False
        self.ever_ready = False  # it has reported all its workers loaded once: a restart does not make the instance "starting"
        self.asks = {}  # request id -> future of its status

    def send(self, message):
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(protocol.encode(message))

    def placeholder(self):
        """The status of a front end that is down or did not answer: its workers serve nothing."""
        return {
            "frontEnd": self.index, "pid": None, "queued": 0, "queueLimit": 0, "heldBytes": 0, "down": True,
            "starting": not self.ever_ready, "broken": None,
            "workers": [{"worker": w, "visibleCores": cores, "loaded": False, "failedLoads": 0} for w, cores in self.workers],
        }


class Siblings:
    """Front end 0's side: runs the other front ends and gathers their status."""

    def __init__(self, server):
        self.server = server
        groups = shares(server.config.visible_cores, server.config.front_ends)
        self.peers = [Peer(index, groups[index]) for index in range(1, server.config.front_ends)]
        self.ids = itertools.count(1)

    def start(self):
        return [asyncio.create_task(self.supervise(peer)) for peer in self.peers]

    def processes(self):
        return [peer.process for peer in self.peers]

    async def statuses(self):
        return list(await asyncio.gather(*(self.status_of(peer) for peer in self.peers)))

    async def status_of(self, peer):
        if not peer.ready:
            return peer.placeholder()
        request_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        peer.asks[request_id] = future
        peer.send((protocol.STATUS, request_id))
        try:
            status = await asyncio.wait_for(future, STATUS_TIMEOUT_S)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            return peer.placeholder()
        finally:
            peer.asks.pop(request_id, None)
        if peer.ever_ready:
            status["starting"] = False
        elif not status["starting"]:
            peer.ever_ready = True
        return status

    async def supervise(self, peer):
        """Runs one front end and serves its messages; restarts it when it exits."""
        server = self.server
        while not server.stopping:
            parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                peer.process = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "serving.sibling", "--fd", str(child.fileno()), "--index", str(peer.index),
                    env=serving_environment(), pass_fds=(child.fileno(),),
                    stdin=asyncio.subprocess.DEVNULL, stdout=sys.stderr.fileno(),  # its metric lines come over the socket
                )
            except OSError as error:
                server.log(f"could not start front end {peer.index}: {error}")
                child.close()
                parent.close()
                await asyncio.sleep(1.0)
                continue
            child.close()
            reader, peer.writer = await asyncio.open_unix_connection(sock=parent, limit=1 << 24)
            try:
                while True:
                    self.on_message(peer, await protocol.read_message(reader))
            except (asyncio.IncompleteReadError, ConnectionError):
                pass
            peer.ready = False
            peer.writer = None
            for future in peer.asks.values():
                future.cancel()
            code = await peer.process.wait()
            if server.stopping:
                return
            server.log(f"front end {peer.index} (pid {peer.process.pid}) {exit_cause(code)}; restarting it")
            await asyncio.sleep(0.5)

    def on_message(self, peer, message):
        kind = message[0]
        if kind == protocol.LINES:
            self.server.stdout.write(message[1])
        elif kind == protocol.STATUS_OF:
            future = peer.asks.get(message[1])
            if future is not None and not future.done():
                future.set_result(message[2])
        elif kind == protocol.PING:
            asyncio.get_running_loop().create_task(self.answer_ping(peer, message[1], message[2]))
        elif kind == protocol.LISTENING:
            peer.ready = True
            self.server.log(f"front end {peer.index} listening (pid {message[1]})")

    async def answer_ping(self, peer, request_id, pid):
        statuses = [self.server.status()] + await self.statuses()
        peer.send((protocol.ANSWER, request_id, instance_answer(statuses, self.server.config.front_ends, pid)))


class RemoteLines:
    """A LineWriter's face for a front end other than 0: its metric lines go to front end 0, stdout's one writer."""

    def __init__(self, link):
        self.link = link

    def write(self, line):
        return self.link.send((protocol.LINES, line))

    def take_dropped(self):
        return 0  # front end 0's writer counts what it drops, in its own service line


class Link:
    """The side of a front end other than 0: its connection to front end 0."""

    def __init__(self, reader, writer):
        self.reader = reader
        self.writer = writer
        self.lines = RemoteLines(self)
        self.ids = itertools.count(1)
        self.waiting = {}  # request id -> future of a /ping answer

    def send(self, message):
        if self.writer.is_closing():
            return False
        self.writer.write(protocol.encode(message))
        return True

    async def ping(self):
        request_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        self.send((protocol.PING, request_id, os.getpid()))
        try:
            return await future
        finally:
            self.waiting.pop(request_id, None)

    async def serve(self, server, stop):
        self.send((protocol.LISTENING, os.getpid()))
        try:
            while True:
                message = await protocol.read_message(self.reader)
                if message[0] == protocol.STATUS:
                    self.send((protocol.STATUS_OF, message[1], server.status()))
                elif message[0] == protocol.ANSWER:
                    future = self.waiting.get(message[1])
                    if future is not None and not future.done():
                        future.set_result(message[2])
        except (asyncio.IncompleteReadError, ConnectionError):
            stop.set()  # front end 0 has gone

    async def drain(self):
        try:
            await asyncio.wait_for(self.writer.drain(), 3.0)
        except (asyncio.TimeoutError, ConnectionError):
            pass

