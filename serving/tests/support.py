"""Runs the real server (`python3 -m serving`) on 127.0.0.1 with the numpy stand-in model, for the tests."""
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import aiohttp

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL_DIR = os.path.join(REPO, "serving", "tests", "model")

BASE_ENV = {
    "MODEL_SERVER_MAX_BATCH_SIZE": "8",
    "MODEL_BATCH_SIZE": "8",
    "MODEL_SERVER_MAX_DELAY_MS": "20",
    "MODEL_SERVER_VISIBLE_CORES": "0",
    "MODEL_SERVER_MAX_QUEUED_REQUESTS": "64",
    "MODEL_SERVER_REQUEST_TIMEOUT_MS": "30000",
    "MODEL_SERVER_METRICS_NAMESPACE": "CdkInferentia/ModelServer",
    "MODEL_SERVER_METRICS_SERVICE": "test",
    "MODEL_SERVER_METRICS_INTERVAL_MS": "60000",
    "MODEL_SERVER_MODEL_DIR": MODEL_DIR,
}


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def clean_environ():
    """The test process's environment without any server variable a developer may have exported."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("MODEL_SERVER_", "MODEL_BATCH", "NEURON_RT_", "TEST_"))}


def run_python(args, env, timeout=30):
    return subprocess.run(
        [sys.executable, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, stdin=subprocess.DEVNULL
    )


class ServerProcess:
    """One server with its own port, logs and test knobs; `await start()` returns once it listens."""

    def __init__(self, **overrides):
        self.dir = tempfile.TemporaryDirectory(prefix="model-server-test-")
        self.port = free_port()
        self.call_log = os.path.join(self.dir.name, "calls.jsonl")
        self.load_log = os.path.join(self.dir.name, "loads.jsonl")
        self.attempt_log = os.path.join(self.dir.name, "attempts.jsonl")
        self.stdout_pipe = None  # the read end, when stdout is a pipe the test reads (or not) itself
        self.stdout_fd = None  # or a descriptor the test opened (a FIFO), given to the server as its stdout
        self.gate = os.path.join(self.dir.name, "gate")
        self.stdout_path = os.path.join(self.dir.name, "stdout")
        self.stderr_path = os.path.join(self.dir.name, "stderr")
        self.env = {
            **clean_environ(),
            **BASE_ENV,
            "SAGEMAKER_BIND_TO_PORT": str(self.port),
            "TEST_CALL_LOG": self.call_log,
            "TEST_LOAD_LOG": self.load_log,
            "TEST_ATTEMPT_LOG": self.attempt_log,
            **{k: str(v) for k, v in overrides.items()},
        }
        self.process = None
        self.url = f"http://127.0.0.1:{self.port}"

    def gated(self):
        """model_fn waits until open_gate() is called."""
        self.env["TEST_LOAD_GATE"] = self.gate
        return self

    def open_gate(self):
        open(self.gate, "w").close()

    def piped(self):
        """stdout is a pipe nobody reads until the test does (os.read(server.stdout_pipe, ...)): a stalled log reader."""
        self.stdout_pipe = True
        return self

    async def start(self, session, wait_healthy=True):
        write_end = None
        if self.stdout_pipe:
            self.stdout_pipe, write_end = os.pipe()
        with open(self.stdout_path, "wb") as stdout, open(self.stderr_path, "wb") as stderr:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "serving"], cwd=REPO, env=self.env, stdin=subprocess.DEVNULL,
                stdout=write_end if write_end is not None else (self.stdout_fd if self.stdout_fd is not None else stdout),
                stderr=stderr,
            )
        if write_end is not None:
            os.close(write_end)
        await self.wait_for(session, lambda status, _: status is not None, "the server to listen")
        if wait_healthy:
            await self.wait_healthy(session)

    async def ping(self, session):
        try:
            async with session.get(f"{self.url}/ping") as response:
                return response.status, await response.json()
        except aiohttp.ClientConnectionError:
            return None, None

    async def wait_healthy(self, session):
        await self.wait_for(session, lambda status, _: status == 200, "every worker to load")

    async def wait_for(self, session, predicate, what, timeout=20):
        limit = time.monotonic() + timeout
        while time.monotonic() < limit:
            if self.process.poll() is not None:
                raise AssertionError(f"the server exited with {self.process.returncode} waiting for {what}:\n{self.stderr()}")
            status, body = await self.ping(session)
            if predicate(status, body):
                return body
            await asyncio.sleep(0.02)
        raise AssertionError(f"timed out waiting for {what}:\n{self.stderr()}")

    async def invoke(self, session, inputs, headers=None):
        """(status, JSON body, headers) of one /invocations call."""
        async with session.post(
            f"{self.url}/invocations", data=json.dumps({"inputs": inputs}), headers={"Content-Type": "application/json", **(headers or {})}
        ) as response:
            return response.status, await response.json(content_type=None), response.headers

    def calls(self):
        return _read_jsonl(self.call_log)

    def loads(self):
        return _read_jsonl(self.load_log)

    def attempts(self):
        """Every predict_fn call, including those that raised, hung or killed their worker."""
        return _read_jsonl(self.attempt_log)

    def stdout(self):
        with open(self.stdout_path) as out:
            return out.read()

    def stderr(self):
        with open(self.stderr_path) as err:
            return err.read()

    def stop(self):
        if isinstance(self.stdout_pipe, int):
            os.close(self.stdout_pipe)  # a stopping server must not wait on a pipe nobody reads
            self.stdout_pipe = None
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.dir.cleanup()


def _read_jsonl(path):
    if not os.path.exists(path):
        return []
    with open(path) as log:
        return [json.loads(line) for line in log if line.strip()]


class ServerTestCase(unittest.IsolatedAsyncioTestCase):
    """Starts servers per test and stops them afterwards, whatever happened."""

    async def asyncSetUp(self):
        # A generous client timeout: a hang fails the test instead of blocking the suite.
        self.session = aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=20))
        self.servers = []

    async def asyncTearDown(self):
        await self.session.close()
        for server in self.servers:
            await asyncio.to_thread(server.stop)

    async def server(self, gated=False, wait_healthy=True, piped=False, reload_gated=False, **overrides):
        server = ServerProcess(**overrides)
        self.servers.append(server)
        if gated:
            server.gated()
        if reload_gated:
            server.env["TEST_RELOAD_GATE"] = server.gate  # a worker's restarts wait for open_gate()
        if piped:
            server.piped()
        await server.start(self.session, wait_healthy=wait_healthy and not gated)
        return server
