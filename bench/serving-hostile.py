"""Capacity kept by well-behaved clients under hostile traffic: the hostile-traffic step of `npm run bench:serving`.

Starts the real server (`python3 -m serving`) with the environment it is given (bench/serving.ts renders it from the
batching plan with `modelServerEnvironment` and the device stand-in), then measures twice, for `--seconds` each:

1. alone: `--clients` well-behaved closed-loop clients (keep-alive, one single-input request at a time each);
2. the same clients while hostile clients run: `--idle` connections that open and send nothing (reopened when the
   server closes them), `--slow` clients that announce a 1 MiB body and send it a byte every 100 ms, and `--large`
   clients that announce and send 50 MB bodies as fast as they can, reconnecting each time they are cut off.

Prints both rates, the well-behaved p99s, what the hostile clients got, and as its last line
`capacity kept under hostile traffic: X.XX` (with / alone). Goal (issue 23): >= 0.80 with 1,000 open connections.
Run alone: `/usr/bin/python3 bench/serving-hostile.py` (a default environment: 2 workers, batch 8, 5 ms calls).
"""
import argparse
import asyncio
import json
import os
import resource
import socket
import subprocess
import sys
import time

import aiohttp

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STANDIN = os.path.join(REPO, "bench", "serving-standin")
DEFAULT_ENV = {
    "MODEL_SERVER_MAX_BATCH_SIZE": "8", "MODEL_BATCH_SIZE": "8", "MODEL_SERVER_MAX_DELAY_MS": "2",
    "MODEL_SERVER_VISIBLE_CORES": "0;1", "MODEL_SERVER_MAX_QUEUED_REQUESTS": "256",
    "MODEL_SERVER_REQUEST_TIMEOUT_MS": "55000", "MODEL_SERVER_METRICS_NAMESPACE": "CdkInferentia/ModelServer",
    "MODEL_SERVER_METRICS_SERVICE": "bench-hostile", "MODEL_SERVER_METRICS_INTERVAL_MS": "10000",
    "BENCH_DEVICE_MEDIAN_MS": "5", "BENCH_DEVICE_SIGMA": "0.05",
}
BODY = json.dumps({"inputs": [1.5]}).encode()


def percentile(values, q):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def well_behaved(url, clients, seconds):
    """(answers per second, p99 ms, failures) of `clients` closed-loop keep-alive clients."""
    latencies, failures = [], 0
    limit = time.monotonic() + seconds
    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=30)) as session:

        async def client():
            nonlocal failures
            while time.monotonic() < limit:
                started = time.monotonic()
                try:
                    async with session.post(f"{url}/invocations", data=BODY, headers={"Content-Type": "application/json"}) as r:
                        await r.read()
                        ok = r.status == 200
                except (aiohttp.ClientError, asyncio.TimeoutError):
                    ok = False
                if ok:
                    latencies.append((time.monotonic() - started) * 1000)
                else:
                    failures += 1
                    await asyncio.sleep(0.01)

        started = time.monotonic()
        await asyncio.gather(*(client() for _ in range(clients)))
        elapsed = time.monotonic() - started
    return len(latencies) / elapsed, percentile(latencies, 0.99), failures


class Hostile:
    """Idle, slow-body and large-body clients, each reconnecting whenever the server closes it, until stopped."""

    def __init__(self, port):
        self.port = port
        self.stopping = False
        self.connections = {"idle": 0, "slow": 0, "large": 0}
        self.refused = {"idle": 0, "slow": 0, "large": 0}  # connections the server closed or refused

    async def connect(self):
        return await asyncio.open_connection("127.0.0.1", self.port)

    async def run(self, kind, body):
        while not self.stopping:
            try:
                reader, writer = await self.connect()
            except OSError:
                await asyncio.sleep(0.1)
                continue
            self.connections[kind] += 1
            try:
                await body(reader, writer)
            except (OSError, asyncio.IncompleteReadError):
                pass
            finally:
                writer.close()
            self.refused[kind] += 1
            await asyncio.sleep(0.05)

    async def idle(self, reader, writer):
        while not self.stopping and await reader.read(1024):
            pass  # until the server closes it

    async def slow(self, reader, writer):
        writer.write(b"POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1048576\r\n\r\n")
        eof = asyncio.ensure_future(reader.read())
        try:
            while not self.stopping and not eof.done():
                writer.write(b" ")
                await writer.drain()
                await asyncio.sleep(0.1)
        finally:
            eof.cancel()

    async def large(self, reader, writer):
        writer.write(b"POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50000000\r\n\r\n")
        chunk = b" " * 65536
        eof = asyncio.ensure_future(reader.read())
        try:
            for _ in range(50_000_000 // len(chunk)):
                if self.stopping or eof.done():
                    break
                writer.write(chunk)
                await writer.drain()
        finally:
            eof.cancel()

    def start(self, idle, slow, large):
        return [asyncio.ensure_future(self.run(kind, getattr(self, kind))) for kind, n in (("idle", idle), ("slow", slow), ("large", large)) for _ in range(n)]


async def measure(args, url, port):
    # Warm-up: the first requests import numpy paths and fill the connection pool.
    await well_behaved(url, args.clients, 1.0)
    alone_rate, alone_p99, alone_failed = await well_behaved(url, args.clients, args.seconds)
    hostile = Hostile(port)
    tasks = hostile.start(args.idle, args.slow, args.large)
    await asyncio.sleep(2.0)  # let every hostile connection open
    with_rate, with_p99, with_failed = await well_behaved(url, args.clients, args.seconds)
    open_at_end = dict(hostile.connections)
    hostile.stopping = True
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    return alone_rate, alone_p99, alone_failed, with_rate, with_p99, with_failed, open_at_end, hostile.refused


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=6)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--idle", type=int, default=1000)
    parser.add_argument("--slow", type=int, default=100)
    parser.add_argument("--large", type=int, default=4)
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the hostile clients alone hold 1,100 sockets
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    given = {k: v for k, v in os.environ.items() if k.startswith(("MODEL_SERVER_", "MODEL_BATCH", "BENCH_DEVICE_"))}
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **(given or DEFAULT_ENV),
        "SAGEMAKER_BIND_TO_PORT": str(port), "MODEL_SERVER_MODEL_DIR": STANDIN,
    }
    server = subprocess.Popen([sys.executable, "-m", "serving"], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        asyncio.run(wait_healthy(url, server))
        (alone, alone_p99, alone_failed, with_, with_p99, with_failed, opened, cut) = asyncio.run(measure(args, url, port))
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
    print(f"hostile traffic: {args.idle} idle connections, {args.slow} slow-body clients (1 byte / 100 ms), "
          f"{args.large} clients sending 50 MB bodies; {args.clients} well-behaved closed-loop clients, {args.seconds:g} s each")
    print(f"  alone:        {alone:8.1f} answers/s, p99 {alone_p99:7.1f} ms, {alone_failed} failed")
    print(f"  with hostile: {with_:8.1f} answers/s, p99 {with_p99:7.1f} ms, {with_failed} failed")
    print("  hostile connections opened (closed by the server): " + ", ".join(f"{k} {opened[k]} ({cut[k]})" for k in opened))
    print(f"capacity kept under hostile traffic: {with_ / alone:.2f}")


async def wait_healthy(url, server):
    limit = time.monotonic() + 60
    async with aiohttp.ClientSession() as session:
        while time.monotonic() < limit:
            if server.poll() is not None:
                raise SystemExit(f"the server exited with {server.returncode}:\n{server.stderr.read().decode()[-4000:]}")
            try:
                async with session.get(f"{url}/ping") as r:
                    if r.status == 200:
                        return
            except aiohttp.ClientError:
                pass
            await asyncio.sleep(0.1)
    raise SystemExit("the server did not become healthy within 60 s")


if __name__ == "__main__":
    main()
