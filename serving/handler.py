"""The user's handler, with the SageMaker inference toolkit's names, run on batches.

Conventions kept from aws/sagemaker-inference-toolkit (`transformer.py`) and aws/sagemaker-pytorch-inference-toolkit:
the module is `$SAGEMAKER_PROGRAM` (default `inference.py`) in `<model dir>/code`; `model_fn(model_dir)` loads the
model; `input_fn(body, content_type)` gets the body as `str` for JSON and CSV and as `bytes` otherwise;
`output_fn(prediction, accept)` returns the body or `(body, content_type)`; `accept` is the request's Accept header,
or `$SAGEMAKER_DEFAULT_INVOCATIONS_ACCEPT` when it is missing or `*/*`; each function may take one more argument,
the context, which is always None here. An exception with a `status_code` attribute (the toolkit's
`BaseInferenceToolkitError`) sets the response status.

What batching changes: `input_fn` returns the request's inputs as a sequence (a list, or an array or tensor with the
inputs on the first axis), one item per input. The server concatenates the sequences of the requests in a batch
(list concatenation, `numpy.concatenate` or `torch.cat`) and calls `predict_fn(batch, model)` once; `predict_fn`
must return one output per input, in order, as a sequence the server can slice; each request's slice goes to its own
`output_fn`. Padding a partial batch to the compiled shape is `predict_fn`'s job: only the handler knows how its
inputs are encoded (token ids, pixels) and what a neutral filler is. `transform_fn` handles one request at a time and
cannot be batched: a module that defines it is refused at load.
"""
import importlib
import inspect
import itertools
import json
import os
import sys
from typing import Optional

UTF8_TYPES = ("application/json", "text/csv")


class HandlerError(Exception):
    """The handler broke the batching contract; the message says how."""


class Handler:
    def __init__(self, module):
        self.module = module
        if getattr(module, "transform_fn", None) is not None:
            raise HandlerError(
                f"{module.__file__} defines transform_fn, which handles one request at a time; this server batches "
                "requests: define input_fn, predict_fn and output_fn instead (serving/README.md)"
            )
        if getattr(module, "model_fn", None) is None:
            raise HandlerError(f"{module.__file__} has no model_fn(model_dir); define it to load the model")
        self._model_fn = _with_context(module.model_fn, 1)
        self._input_fn = _with_context(getattr(module, "input_fn", None) or default_input_fn, 2)
        self._predict_fn = _with_context(getattr(module, "predict_fn", None) or default_predict_fn, 2)
        self._output_fn = _with_context(getattr(module, "output_fn", None) or default_output_fn, 2)

    @classmethod
    def load(cls, model_dir: str, program: str, code_dir: Optional[str] = None) -> "Handler":
        # SageMaker's place for the handler is <model dir>/code; an image that carries it names its own directory.
        code_dir = code_dir or os.path.join(model_dir, "code")
        name = program[:-3] if program.endswith(".py") else program
        if not os.path.isfile(os.path.join(code_dir, f"{name}.py")):
            raise HandlerError(
                f"{os.path.join(code_dir, name + '.py')} is missing; put the handler there or set SAGEMAKER_PROGRAM "
                "to its file name"
            )
        if os.path.isfile(os.path.join(code_dir, "requirements.txt")):
            print(
                f"model-server: {code_dir}/requirements.txt is not installed by this server (the stock SageMaker "
                "toolkit pip-installs it at start); install the handler's dependencies in the image",
                file=sys.stderr,
                flush=True,
            )
        sys.path.insert(0, code_dir)
        return cls(importlib.import_module(name))

    def model_fn(self, model_dir):
        return self._model_fn(model_dir)

    def input_fn(self, body: bytes, content_type: str):
        """The request's inputs, a sequence with one item per input."""
        base = content_type.split(";")[0].strip().lower()
        data = self._input_fn(body.decode("utf-8") if base in UTF8_TYPES else body, content_type)
        try:
            len(data)
        except TypeError:
            raise HandlerError(
                f"input_fn returned {type(data).__name__}; return the request's inputs as a sequence (a list, or an "
                "array or tensor with the inputs on the first axis) so the server can batch requests"
            ) from None
        return data

    def predict_fn(self, batch, model):
        return self._predict_fn(batch, model)

    def output_fn(self, prediction, accept: str):
        """(body bytes, content type) of one request's slice of a prediction."""
        result = self._output_fn(prediction, accept)
        body, content_type = result if isinstance(result, tuple) else (result, accept)
        content_type = content_type or accept
        if isinstance(body, str):
            body = body.encode("utf-8")
        return bytes(body), content_type


def concat(parts):
    """One batch from the requests' input sequences, along the first axis."""
    if len(parts) == 1:
        return parts[0]
    module = type(parts[0]).__module__
    if module == "numpy":
        import numpy

        return numpy.concatenate(parts)
    if module.startswith("torch"):
        import torch

        return torch.cat(parts)
    return list(itertools.chain.from_iterable(parts))


def default_input_fn(body, content_type):
    """JSON `{"inputs": [...]}` or a bare JSON list: one item per input."""
    if not content_type.startswith("application/json"):
        raise UnsupportedMedia(f"content type {content_type} is not supported; send application/json")
    value = json.loads(body)
    inputs = value.get("inputs") if isinstance(value, dict) else value
    if not isinstance(inputs, list):
        raise BadRequest('send {"inputs": [...]} or a JSON list, one item per input')
    return inputs


def default_predict_fn(batch, model):
    return model(batch)


def default_output_fn(prediction, accept):
    rows = prediction.tolist() if hasattr(prediction, "tolist") else list(prediction)
    return json.dumps({"outputs": rows}), "application/json"


class BadRequest(ValueError):
    status_code = 400


class UnsupportedMedia(ValueError):
    status_code = 415


def _with_context(fn, arity):
    """Calls fn with or without the toolkit's trailing context argument (always None here), as its signature asks."""
    try:
        parameters = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return fn
    positional = [p for p in parameters if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) == arity + 1 and positional[-1].default is inspect.Parameter.empty:
        return lambda *args: fn(*args, None)
    return fn
