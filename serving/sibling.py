"""A front end other than 0 (MODEL_SERVER_FRONT_ENDS > 1), as its own process: a whole front end (frontend.Server) with
its link to front end 0 (siblings.Link).

Front end 0 starts it as `python3 -m serving.sibling --fd N --index I` (siblings.py); it exits when front end 0 goes.
Its own module, as front end 0's is `__main__.py`, so that siblings.py, which frontend.py imports, need not import
frontend.py back for it.
"""
import asyncio
import signal
import socket
import sys

from .config import load_or_exit
from .frontend import Server
from .siblings import Link


async def _run(sock, config, index):
    reader, writer = await asyncio.open_unix_connection(sock=sock, limit=1 << 20)
    await Server(config, index, Link(reader, writer)).run()


def main():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # front end 0 decides when front ends stop (SIGTERM)
    sock = socket.socket(fileno=int(sys.argv[sys.argv.index("--fd") + 1]))
    index = int(sys.argv[sys.argv.index("--index") + 1])
    asyncio.run(_run(sock, load_or_exit(), index))


if __name__ == "__main__":
    main()
