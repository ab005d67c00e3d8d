"""Another front-end process: HTTP on the shared port (SO_REUSEPORT), its requests forwarded to the main front end.

Why: HTTP (parsing, connection handling, reading bodies, the guard's timers) is most of the front end's CPU per
request, and one asyncio process runs on one core. With `MODEL_SERVER_FRONT_ENDS` = N, the main process and N - 1
acceptors listen on the same port and the kernel spreads new connections over them; the one queue, the workers, the
deadlines and /ping's answer stay in the main process, so batching still draws on every request of the instance.
An acceptor forwards a request only once its whole body is in, so slow and large clients cost the acceptor that holds
them, not the queue; the main process answers /ping for all.

Started by the main front end as `python3 -m serving.acceptor --fd N` (a Unix socket to it); exits when it goes.
"""
import asyncio
import itertools
import json
import os
import signal
import socket
import sys

from . import protocol
from .config import load_or_exit
from .http import HttpFront, raise_file_limit


class RemoteBackend:
    def __init__(self, writer):
        self.writer = writer
        self.ids = itertools.count(1)
        self.waiting = {}  # request id -> future of its answer

    def send(self, message):
        if not self.writer.is_closing():
            self.writer.write(protocol.encode(message))

    def count(self, name, amount=1):
        self.send((protocol.COUNT, name, amount))

    def admit(self, length):
        return None  # the main process decides once the body is in (SUBMIT)

    async def ask(self, message_for):
        request_id = next(self.ids)
        future = asyncio.get_running_loop().create_future()
        self.waiting[request_id] = future
        self.send(message_for(request_id))
        try:
            return await future
        except asyncio.CancelledError:
            self.send((protocol.CANCEL, request_id))  # the client went away
            raise
        finally:
            self.waiting.pop(request_id, None)

    async def submit(self, body, content_type, accept, check_again=True):
        return await self.ask(lambda request_id: (protocol.SUBMIT, request_id, body, content_type, accept))

    async def ping(self):
        status, body = await self.ask(lambda request_id: (protocol.PING, request_id))
        document = json.loads(body)
        document["frontEnd"] = os.getpid()  # which front-end process answered: the main one fills in its own
        return status, json.dumps(document).encode("utf-8")

    def on_answer(self, request_id, answer):
        future = self.waiting.get(request_id)
        if future is not None and not future.done():
            future.set_result(answer)


async def serve(sock, config):
    raise_file_limit(config, 4, lambda message: print(f"model-server: front end {os.getpid()}: {message}", file=sys.stderr, flush=True))
    reader, writer = await asyncio.open_unix_connection(sock=sock, limit=config.max_body_bytes + (1 << 20))
    backend = RemoteBackend(writer)
    runner = await HttpFront(config, backend).start(reuse_port=True)
    backend.send((protocol.LISTENING, os.getpid()))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)

    async def read_answers():
        try:
            while True:
                _, request_id, answer = await protocol.read_message(reader)
                backend.on_answer(request_id, answer)
        except (asyncio.IncompleteReadError, ConnectionError):
            stop.set()  # the main front end has gone

    answers = asyncio.create_task(read_answers())
    await stop.wait()
    answers.cancel()
    await runner.cleanup()


def main():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main front end decides when front ends stop (SIGTERM)
    sock = socket.socket(fileno=int(sys.argv[sys.argv.index("--fd") + 1]))
    asyncio.run(serve(sock, load_or_exit()))


if __name__ == "__main__":
    main()
