"""Adds the NeuronCores this copy saw at start to the engine's `/metrics`, for the token proof's report.

The launcher (serving/vllm/launch.py) counts the cores a copy sees before the engine loads and passes the count in
the environment; it adds `--middleware=serving.vllm.cores_seen.CoresSeenMiddleware` to `vllm serve`, whose API
server installs an ASGI class given by import path (vLLM `vllm/entrypoints/openai/api_server.py`, `args.middleware`:
"if inspect.isclass(imported): app.add_middleware(imported)"). On `GET .../metrics` the middleware appends two gauges
to the engine's Prometheus text, labelled with the copy (its host name) and how the cores were counted:

    cdk_inferentia:neuron_cores_seen{copy="ip-10-0-1-5",source="NEURON_RT_VISIBLE_CORES"} 8
    cdk_inferentia:neuron_cores_needed{copy="ip-10-0-1-5",source="NEURON_RT_VISIBLE_CORES"} 8

Every other request passes through untouched. The request's Accept-Encoding is dropped on /metrics so the body is
plain text to append to (prometheus_client gzips when asked).
"""
import os
import socket

SEEN_ENV = "CDK_INFERENTIA_CORES_SEEN"
NEEDED_ENV = "CDK_INFERENTIA_CORES_NEEDED"
SOURCE_ENV = "CDK_INFERENTIA_CORES_SOURCE"
COPY_ENV = "CDK_INFERENTIA_COPY"

SEEN_METRIC = "cdk_inferentia:neuron_cores_seen"
NEEDED_METRIC = "cdk_inferentia:neuron_cores_needed"
MIDDLEWARE = "serving.vllm.cores_seen.CoresSeenMiddleware"


def _label(value):
    return str(value).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ")


def exposition(environ):
    """The two gauges as Prometheus text, or b"" when the launcher counted nothing."""
    seen = environ.get(SEEN_ENV, "")
    needed = environ.get(NEEDED_ENV, "")
    if not seen.isdigit() or not needed.isdigit():
        return b""
    labels = f'copy="{_label(environ.get(COPY_ENV) or socket.gethostname())}",source="{_label(environ.get(SOURCE_ENV, ""))}"'
    lines = [
        f"# HELP {SEEN_METRIC} NeuronCores this copy saw before the engine loaded (cdk-inferentia launcher).",
        f"# TYPE {SEEN_METRIC} gauge",
        f"{SEEN_METRIC}{{{labels}}} {int(seen)}",
        f"# HELP {NEEDED_METRIC} NeuronCores its --tensor-parallel-size needs.",
        f"# TYPE {NEEDED_METRIC} gauge",
        f"{NEEDED_METRIC}{{{labels}}} {int(needed)}",
    ]
    return ("\n".join(lines) + "\n").encode()


class CoresSeenMiddleware:
    """ASGI middleware: the engine's /metrics with the launcher's core count appended."""

    def __init__(self, app, environ=None):
        self.app = app
        self.extra = exposition(os.environ if environ is None else environ)

    async def __call__(self, scope, receive, send):
        if (scope.get("type") != "http" or scope.get("method") != "GET" or not scope.get("path", "").endswith("/metrics")
                or not self.extra):
            await self.app(scope, receive, send)
            return
        scope = dict(scope, headers=[(k, v) for k, v in scope.get("headers", []) if k.lower() != b"accept-encoding"])
        start = {}
        body = []

        async def capture(message):
            if message["type"] == "http.response.start":
                start.update(message)
                return
            if message["type"] != "http.response.body":
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            content = b"".join(body)
            if start.get("status") == 200:
                content = content + (b"" if content.endswith(b"\n") or not content else b"\n") + self.extra
            headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            headers.append((b"content-length", str(len(content)).encode()))
            await send(dict(start, headers=headers))
            await send({"type": "http.response.body", "body": content, "more_body": False})

        await self.app(scope, receive, capture)
