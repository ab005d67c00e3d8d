"""Names the SageMaker instance pool that answered, in every response of the engine.

On an endpoint with instance pools each pool's model carries its priority in CDK_INFERENTIA_POOL (the contract in
lib/serving/pool.ts). The launcher (serving/vllm/launch.py) then adds `--middleware=serving.vllm.pool_header.
PoolHeaderMiddleware` to `vllm serve`, whose API server installs an ASGI class given by import path (vLLM
`vllm/entrypoints/openai/api_server.py`, `args.middleware`; the flag may be given more than once). The middleware
adds `pool=<priority>` to the `X-Amzn-SageMaker-Custom-Attributes` response header, which InvokeEndpoint and
InvokeEndpointWithResponseStream return to the caller as `CustomAttributes`: the token proof reads it to tell which
pool's copies answered. The body, streamed or not, passes through untouched.
"""
import os
import re

POOL_ENV = "CDK_INFERENTIA_POOL"
HEADER = b"x-amzn-sagemaker-custom-attributes"
MIDDLEWARE = "serving.vllm.pool_header.PoolHeaderMiddleware"


def pool_of(environ):
    """The pool's priority from the environment ("1" to "5"), or None outside pools."""
    value = environ.get(POOL_ENV, "").strip()
    return value if re.fullmatch(r"[1-5]", value) else None


def with_pool(headers, pool):
    """The response headers with `pool=<pool>` in the custom attributes, after any attributes the engine set."""
    out = []
    found = False
    for key, value in headers:
        if key.lower() == HEADER:
            found = True
            value = value + b"," + f"pool={pool}".encode() if value else f"pool={pool}".encode()
        out.append((key, value))
    if not found:
        out.append((HEADER, f"pool={pool}".encode()))
    return out


class PoolHeaderMiddleware:
    """ASGI middleware: every HTTP response start gains the pool's custom attribute."""

    def __init__(self, app, environ=None):
        self.app = app
        self.pool = pool_of(os.environ if environ is None else environ)

    async def __call__(self, scope, receive, send):
        if scope.get("type") != "http" or self.pool is None:
            await self.app(scope, receive, send)
            return

        async def send_with_pool(message):
            if message["type"] == "http.response.start":
                message = dict(message, headers=with_pool(list(message.get("headers", [])), self.pool))
            await send(message)

        await self.app(scope, receive, send_with_pool)
