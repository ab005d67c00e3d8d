"""What the model server costs per request on the host: latency over a direct handler call, and CPU per request.

Runs the real server (`python3 -m serving`, one worker) with the tests' numpy stand-in model (a device call of 0 ms)
and drives it from one aiohttp client on 127.0.0.1, closed loop:
- batch 1: one request in flight, `MODEL_SERVER_MAX_BATCH_SIZE=1`;
- batch 8: eight requests in flight, `MODEL_SERVER_MAX_BATCH_SIZE=8`, no batching delay (full batches form from the
  backlog, so the figure is the overhead at full batches, not the delay).
Both with the worker that runs one stage after the other (`MODEL_SERVER_OVERLAP=0`, a plan made for a Neuron DLC's
stock toolkit) and the one that overlaps them (`1`; with no batching delay, as here, the chained worker of
serving/chained.py, a stock plan's). Compared against the same handler called in-process (input_fn -> predict_fn -> output_fn).
CPU is read from /proc per process (the front end apart from its workers), so a loaded machine stretches the wall
times far more than the CPU figures; the front end's CPU at batch 1 and at batch 8 splits into the planner's part per
request and part per device call (`FRONT_END_MS_PER_REQUEST`, `FRONT_END_MS_PER_CALL`). Prints figures only;
the client shares the host's cores with the server, so read them as upper bounds. Usage: npm run bench:serving-overhead
"""
import asyncio
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import aiohttp  # noqa: E402

from serving.handler import Handler, concat  # noqa: E402
from serving.tests.support import MODEL_DIR, ServerProcess  # noqa: E402

REQUESTS = int(os.environ.get("BENCH_REQUESTS", "3000"))
TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu_seconds(pid):
    """User + system CPU of one process, from /proc: CPU time, which other processes on the cores do not inflate as
    they inflate wall time."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def cpu_seconds(pid):
    """(front end, workers): the CPU of the server's process and of its live children (the workers)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as children:
            workers = [int(child) for child in children.read().split()]
    except FileNotFoundError:
        workers = []
    return process_cpu_seconds(pid), sum(process_cpu_seconds(w) for w in workers)


def direct_call_ms(batch):
    os.environ["MODEL_BATCH_SIZE"] = str(batch)
    sys.modules.pop("inference", None)  # the stand-in reads the compiled batch at import
    handler = Handler.load(MODEL_DIR, "inference.py")
    model = handler.model_fn(MODEL_DIR)
    body = json.dumps({"inputs": [1.0]}).encode()
    started = time.perf_counter()
    for _ in range(REQUESTS // batch):
        parts = [handler.input_fn(body, "application/json") for _ in range(batch)]
        prediction = handler.predict_fn(concat(parts), model)
        for i in range(batch):
            handler.output_fn(prediction[i : i + 1], "application/json")
    return (time.perf_counter() - started) * 1000 / REQUESTS


async def drive(batch, overlap):
    server = ServerProcess(
        MODEL_SERVER_MAX_BATCH_SIZE=batch, MODEL_BATCH_SIZE=batch, MODEL_SERVER_MAX_DELAY_MS=0, MODEL_SERVER_OVERLAP=overlap,
        TEST_CALL_LOG="", TEST_LOAD_LOG=""
    )
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=batch)) as session:
        await server.start(session)
        try:
            latencies = []

            async def client(count):
                for _ in range(count):
                    started = time.perf_counter()
                    status, _, _ = await server.invoke(session, [1.0])
                    latencies.append((time.perf_counter() - started) * 1000)
                    assert status == 200, status

            await client(200)  # warm-up: connections, first calls
            latencies.clear()
            front_before, workers_before = cpu_seconds(server.process.pid)
            started = time.perf_counter()
            await asyncio.gather(*(client(REQUESTS // batch) for _ in range(batch)))
            elapsed = time.perf_counter() - started
            front_after, workers_after = cpu_seconds(server.process.pid)
        finally:
            server.stop()
    latencies.sort()
    return {
        "rps": len(latencies) / elapsed,
        "p50": statistics.median(latencies),
        "p99": latencies[int(len(latencies) * 0.99) - 1],
        "front_ms": (front_after - front_before) * 1000 / len(latencies),
        "worker_ms": (workers_after - workers_before) * 1000 / len(latencies),
    }


def main():
    print(f"model server overhead, {REQUESTS} single-input requests per row, one worker, device call 0 ms, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}")
    print(f"{'worker':>14}  {'batch':>5}  {'requests/s':>10}  {'p50 ms':>7}  {'p99 ms':>7}  {'front-end CPU ms/req':>20}  "
          f"{'worker CPU ms/req':>17}  {'direct call ms/request':>22}")
    for overlap, mode in ((0, "one by one"), (1, "chained")):
        front = {}
        for batch in (1, 8):
            result = asyncio.run(drive(batch, overlap))
            direct = direct_call_ms(batch)
            front[batch] = result["front_ms"]
            print(
                f"{mode:>14}  {batch:>5}  {result['rps']:>10.0f}  {result['p50']:>7.2f}  {result['p99']:>7.2f}  "
                f"{result['front_ms']:>20.3f}  {result['worker_ms']:>17.3f}  {direct:>22.4f}"
            )
        # The planner's front-end model (lib/planner/serving.ts): CPU per request = a part per request + a part per
        # device call / requests per call. Batch 1 is one request per call and batch 8 eight (full batches from the
        # backlog): two equations, two unknowns.
        per_call = (front[1] - front[8]) * 8 / 7
        print(f"{mode:>14}  front-end CPU: {front[1] - per_call:.3f} ms per request + {per_call:.3f} ms per device call "
              f"(load average {os.getloadavg()[0]:.2f})")


if __name__ == "__main__":
    main()
