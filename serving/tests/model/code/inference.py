"""A tiny numpy model with the SageMaker handler names, standing in for a compiled Neuron model in the tests.

The model multiplies each input by 2 after padding the batch to the compiled size, as a Neuron model needs, and
records every device call. Test knobs come from the environment the test gives the server:
TEST_CALL_LOG (file: one JSON line per predict_fn call), TEST_LOAD_LOG (file: one JSON line per model_fn),
TEST_DEVICE_MS (the call's duration), TEST_LOAD_GATE (file model_fn waits for before it returns), TEST_RELOAD_GATE
(the same, for a worker's reloads only), TEST_RELOAD_FAIL (a worker's reloads raise), TEST_ATTEMPT_LOG (file: one
JSON line per predict_fn call, before it runs, so calls that fail, hang or kill are there too), TEST_DECODE_MS (how
long input_fn takes per request, a sleep like the call's), TEST_DECODE_LOG (file: one JSON line per input_fn, with
its start and end on the host's monotonic clock; the call log has the same for each call).
An input of -1 kills the worker (a device or runtime crash), -2 makes predict_fn raise (an input the model cannot
take), -3 makes predict_fn hang (a stuck device call), and one of 1000 or more makes the call take 3 x TEST_DEVICE_MS.
"""
import json
import os
import signal
import time

import numpy

# Read at import, as the Neuron runtime does when the framework loads: what the worker was started with.
CORES_AT_IMPORT = os.environ.get("NEURON_RT_VISIBLE_CORES")
NUM_CORES_AT_IMPORT = os.environ.get("NEURON_RT_NUM_CORES")
COMPILED_BATCH = int(os.environ["MODEL_BATCH_SIZE"])


def model_fn(model_dir):
    gate = os.environ.get("TEST_LOAD_GATE")
    while gate and not os.path.exists(gate):
        time.sleep(0.02)
    if _loaded_before():
        if os.environ.get("TEST_RELOAD_FAIL"):
            raise RuntimeError("the device of this worker is gone (TEST_RELOAD_FAIL)")
        gate = os.environ.get("TEST_RELOAD_GATE")
        while gate and not os.path.exists(gate):
            time.sleep(0.02)
    _append("TEST_LOAD_LOG", {
        "worker": os.environ.get("MODEL_SERVER_WORKER_INDEX"), "cores": CORES_AT_IMPORT, "numCores": NUM_CORES_AT_IMPORT,
        "pid": os.getpid(),
    })
    return {"weight": numpy.float32(2.0), "device_s": float(os.environ.get("TEST_DEVICE_MS", "0")) / 1000.0}


def input_fn(body, content_type):
    start = time.monotonic()
    time.sleep(float(os.environ.get("TEST_DECODE_MS", "0")) / 1000.0)
    inputs = json.loads(body)["inputs"]
    _append("TEST_DECODE_LOG", {"inputs": inputs, "start": start, "end": time.monotonic()})
    return numpy.asarray(inputs, dtype=numpy.float32).reshape(len(inputs))


def predict_fn(batch, model):
    _append("TEST_ATTEMPT_LOG", {"inputs": batch.tolist(), "pid": os.getpid()})
    if (batch == -1).any():
        os.kill(os.getpid(), signal.SIGKILL)
    if (batch == -2).any():
        time.sleep(model["device_s"])  # a failing call takes as long as any other
        raise ValueError("the model cannot take -2")
    if (batch == -3).any():
        time.sleep(3600)
    start = time.monotonic()
    padded = numpy.zeros(COMPILED_BATCH, dtype=numpy.float32)
    padded[: len(batch)] = batch
    time.sleep(model["device_s"] * (3 if (batch >= 1000).any() else 1))
    _append("TEST_CALL_LOG", {
        "size": len(batch), "inputs": batch.tolist(), "pid": os.getpid(), "cores": CORES_AT_IMPORT, "start": start,
        "end": time.monotonic(),
    })
    return (padded * model["weight"])[: len(batch)]


def output_fn(prediction, accept):
    body = {"outputs": prediction.tolist(), "pid": os.getpid(), "cores": CORES_AT_IMPORT}
    return json.dumps(body), "application/json"


def _loaded_before():
    """True when this worker index has loaded the model before: this load is a restart."""
    path = os.environ.get("TEST_LOAD_LOG")
    if not path or not os.path.exists(path):
        return False
    with open(path) as log:
        return any(json.loads(line)["worker"] == os.environ.get("MODEL_SERVER_WORKER_INDEX") for line in log if line.strip())


def _append(variable, record):
    path = os.environ.get(variable)
    if path:
        with open(path, "a") as log:
            log.write(json.dumps(record) + "\n")
