"""The front end under abuse: too-large bodies refused from Content-Length before reading, slow and idle clients cut
off, a cap on open connections, and a queue bound in bytes. Raw sockets, so the tests control every byte."""
import asyncio
import json
import os
import signal
import time

import aiohttp

from .support import ServerTestCase


async def exchange(port, data, read_timeout=3.0):
    """Sends data, then reads until the server closes or read_timeout passes; (bytes read, closed by the server)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        if data:
            writer.write(data)
            await writer.drain()
        chunks = []
        limit = time.monotonic() + read_timeout
        while time.monotonic() < limit:
            try:
                chunk = await asyncio.wait_for(reader.read(65536), max(0.01, limit - time.monotonic()))
            except asyncio.TimeoutError:
                break
            if not chunk:
                return b"".join(chunks), True
            chunks.append(chunk)
        return b"".join(chunks), False
    finally:
        writer.close()


def post_head(length, extra=b""):
    return (b"POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n" % length) + extra + b"\r\n"


def status_of(response):
    return int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/1.1 ") else None


class BodyLimit(ServerTestCase):
    async def test_a_body_over_the_limit_is_refused_from_its_content_length_before_a_byte_of_it_is_sent(self):
        # GIVEN a 1000-byte body limit
        server = await self.server(MODEL_SERVER_MAX_BODY_BYTES=1000, MODEL_SERVER_MAX_QUEUED_BYTES=4000)
        # WHEN a client announces a 50 MB body and sends only the headers
        started = time.monotonic()
        response, closed = await exchange(server.port, post_head(50_000_000), read_timeout=3)
        # THEN it gets 413 naming the limit at once, and the connection is closed
        self.assertEqual(status_of(response), 413, response)
        self.assertIn(b"MODEL_SERVER_MAX_BODY_BYTES", response)
        self.assertTrue(closed)
        self.assertLess(time.monotonic() - started, 2)
        # AND a body within the limit is served
        self.assertEqual((await server.invoke(self.session, [1]))[0], 200)

    async def test_a_chunked_body_without_content_length_is_cut_off_at_the_limit(self):
        server = await self.server(MODEL_SERVER_MAX_BODY_BYTES=1000, MODEL_SERVER_MAX_QUEUED_BYTES=4000)
        chunk = b"x" * 800
        request = (b"POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                   b"Transfer-Encoding: chunked\r\n\r\n" + (b"320\r\n" + chunk + b"\r\n") * 2 + b"0\r\n\r\n")
        response, _ = await exchange(server.port, request)
        self.assertEqual(status_of(response), 413, response)
        self.assertIn(b"MODEL_SERVER_MAX_BODY_BYTES", response)


class SlowAndIdleClients(ServerTestCase):
    async def test_a_connection_that_sends_nothing_or_headers_too_slowly_is_closed_after_the_read_timeout(self):
        server = await self.server(MODEL_SERVER_READ_TIMEOUT_MS=300)
        # WHEN one client sends nothing and another dribbles its headers
        idle = asyncio.create_task(exchange(server.port, b"", read_timeout=3))
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        eof = asyncio.create_task(reader.read())  # b"" once the server closes
        started = time.monotonic()
        for byte in post_head(10):  # about 90 bytes, one per 50 ms: 4.5 s if nobody stops it
            if eof.done():
                break
            try:
                writer.write(bytes([byte]))
                await writer.drain()
            except ConnectionError:
                break
            await asyncio.sleep(0.05)
        closed_at = time.monotonic() if eof.done() else None
        writer.close()
        # THEN both are closed by the server within about the timeout
        self.assertEqual(await idle, (b"", True))
        self.assertIsNotNone(closed_at, "the slow-header connection was still open")
        self.assertLess(closed_at - started, 2)
        # AND well-behaved clients are still served
        self.assertEqual((await server.invoke(self.session, [2]))[0], 200)

    async def test_a_body_that_stops_arriving_gets_408_after_the_read_timeout(self):
        server = await self.server(MODEL_SERVER_READ_TIMEOUT_MS=300)
        started = time.monotonic()
        response, closed = await exchange(server.port, post_head(100) + b'{"inputs": [1', read_timeout=3)
        self.assertEqual(status_of(response), 408, response)
        self.assertIn(b"MODEL_SERVER_READ_TIMEOUT_MS", response)
        self.assertTrue(closed)
        self.assertLess(time.monotonic() - started, 2)


    async def test_a_kept_alive_connection_left_idle_is_closed_after_the_idle_timeout(self):
        # GIVEN an idle timeout far below the read timeout, so only the idle timer can close the connection
        server = await self.server(MODEL_SERVER_IDLE_TIMEOUT_MS=400, MODEL_SERVER_READ_TIMEOUT_MS=30_000)
        reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
        try:
            # WHEN a client sends one request on a kept-alive connection, reads the answer and then sends nothing
            body = json.dumps({"inputs": [3]}).encode()
            writer.write(post_head(len(body)) + body)
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            self.assertEqual(status_of(head), 200, head)
            length = int(next(line.split(b":", 1)[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")))
            await asyncio.wait_for(reader.readexactly(length), 5)
            answered = time.monotonic()
            # THEN the server closes it after about the idle timeout (aiohttp's own keep-alive default is 75 s)
            self.assertEqual(await asyncio.wait_for(reader.read(), 5), b"")
            self.assertLess(time.monotonic() - answered, 3)
        finally:
            writer.close()
        # AND new connections are served
        self.assertEqual((await server.invoke(self.session, [4]))[0], 200)


class ConnectionLimit(ServerTestCase):
    async def test_a_connection_over_the_limit_gets_503_and_is_closed_and_the_limit_frees_as_connections_close(self):
        # GIVEN a cap of 4 connections, all taken by idle clients
        server = await self.server(MODEL_SERVER_MAX_CONNECTIONS=4)
        idle = [await asyncio.open_connection("127.0.0.1", server.port) for _ in range(4)]
        await asyncio.sleep(0.1)
        # WHEN a fifth client connects (the refusal does not wait for its request: a request sent before it is read
        # makes the close a reset, which the client sees instead of the 503)
        response, closed = await exchange(server.port, b"")
        # THEN it is refused with 503 and Retry-After, and closed
        self.assertEqual(status_of(response), 503, response)
        self.assertIn(b"Retry-After: 1", response)
        self.assertIn(b"MODEL_SERVER_MAX_CONNECTIONS", response)
        self.assertTrue(closed)
        # AND once the idle clients go, requests are served again
        for _, writer in idle:
            writer.close()
        await asyncio.sleep(0.1)
        self.assertEqual((await server.invoke(self.session, [1]))[0], 200)


class QueueBoundInBytes(ServerTestCase):
    async def test_requests_beyond_the_bytes_bound_are_refused_with_503_even_when_few_are_queued(self):
        # GIVEN room for 3000 body bytes and a worker not loaded yet, so nothing leaves the queue
        server = await self.server(gated=True, MODEL_SERVER_MAX_BODY_BYTES=2000, MODEL_SERVER_MAX_QUEUED_BYTES=3000)

        async def post(size, value):
            body = json.dumps({"inputs": [value], "padding": "x" * (size - 30)}).encode()
            async with self.session.post(f"{server.url}/invocations", data=body, headers={"Content-Type": "application/json"}) as response:
                return response.status, await response.json(content_type=None)

        first = asyncio.create_task(post(1500, 1))
        await server.wait_for(self.session, lambda _, body: body and body["queued"] == 1, "the first request to queue")
        # WHEN a second request would take the held bytes over the bound (2 requests, far below the request bound)
        status, body = await post(1600, 2)
        # THEN it is refused at once, naming the bytes bound
        self.assertEqual(status, 503)
        self.assertIn("MODEL_SERVER_MAX_QUEUED_BYTES", body["error"])
        server.open_gate()
        self.assertEqual((await first)[0], 200)


class SeveralFrontEnds(ServerTestCase):
    async def test_front_ends_share_the_port_each_with_its_workers_and_queue_and_come_back_when_killed(self):
        # GIVEN three front ends over three workers: each owns one worker and its own queue
        server = await self.server(MODEL_SERVER_FRONT_ENDS=3, MODEL_SERVER_VISIBLE_CORES="0;1;2", MODEL_SERVER_MAX_DELAY_MS=0)
        body = await server.wait_for(self.session, lambda status, body: status == 200 and body["frontEnds"] == 3, "three front ends")
        # THEN /ping, from any of them, answers for the instance: every worker, every queue, the bounds summed
        self.assertEqual([w["worker"] for w in body["workers"]], [0, 1, 2])
        self.assertEqual([q["frontEnd"] for q in body["queues"]], [0, 1, 2])
        self.assertEqual((body["servingWorkers"], body["queueLimit"], body["plannedFrontEnds"]), (3, 3 * -(-64 // 3), 3))
        # WHEN clients open fresh connections
        fresh = aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True), timeout=aiohttp.ClientTimeout(total=20))
        try:
            pids = {(await server.ping(fresh))[1]["frontEnd"] for _ in range(40)}
            replies = await asyncio.gather(*(server.invoke(fresh, [i]) for i in range(24)))
        finally:
            await fresh.close()
        # THEN the kernel spread them over several processes, every request got its own answer, and the device calls
        # ran on workers of more than one front end (each front end feeds only its own workers)
        self.assertGreater(len(pids), 1, pids)
        self.assertEqual([(s, b["outputs"]) for s, b, _ in replies], [(200, [2.0 * i]) for i in range(24)])
        self.assertGreater(len({call["cores"] for call in server.calls()}), 1)
        # AND a front end that dies is started again, with its workers, and the instance stays healthy meanwhile
        other = next(pid for pid in pids if pid != server.process.pid)
        os.kill(other, signal.SIGKILL)
        await server.wait_for(self.session, lambda _, body: body["frontEnds"] == 2, "the front end to be gone")
        await server.wait_for(self.session, lambda status, body: status == 200 and body["frontEnds"] == 3 and body["servingWorkers"] == 3, "the front end to come back")
        self.assertEqual((await server.invoke(self.session, [5]))[0], 200)
