"""The machine's own floor for `npm run bench:serving`: a trivial HTTP server on the same loopback, answering every
POST /invocations at once with a small JSON body (GET /ping: 200).

Why: the bench's client p99 includes the machine's own tail (scheduling, the load generator, the loopback); on a small
or shared VM that alone was 14-48 ms at 300 requests/s. Driven by the same load generator at the same rates, this
server's p99 is what the machine adds to any server's, so the model server is judged against its target plus it.
Same framework as the model server's front end (aiohttp, one asyncio process), none of its work.

Run as `python3 bench/serving-floor.py --port N`; stops on SIGTERM.
"""
import argparse
import asyncio
import signal

from aiohttp import web

ANSWER = b'{"outputs":[3.0]}'


async def invocations(request):
    await request.read()
    return web.Response(body=ANSWER, content_type="application/json")


async def ping(_request):
    return web.Response(body=b'{"healthy":true}', content_type="application/json")


async def serve(port):
    app = web.Application()
    app.router.add_post("/invocations", invocations)
    app.router.add_get("/ping", ping)
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
    await stop.wait()
    await runner.cleanup()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    asyncio.run(serve(parser.parse_args().port))


if __name__ == "__main__":
    main()
