"""Device stand-in for `npm run bench:serving`: the SageMaker handler names around a tiny numpy model and a sleep.

What it stands for, and why each part is here:
- the device call: `predict_fn` SLEEPS for a time drawn from the profile row's measured latency of one call at the
  compiled batch (log-normal with the row's median and spread, as `lib/planner/simulate.ts` draws it). A sleep, not a
  busy wait: a NeuronCore computes while the worker's host thread waits, so the call costs no host CPU;
- the host work a real handler always does: pad the batch to the compiled shape (a Neuron model runs only that shape),
  run the "model" (multiply by 2), and slice the padding's outputs off, in numpy, so the server's batching and
  splitting run for real and each request gets its own answer;
- optionally, a handler's heavier host work (a tokenizer, an image decoder): `input_fn` SPINS on the CPU for a set CPU
  time per request (the host-bound plan of the bench). A busy loop measured on the thread's CPU clock, not a sleep:
  host work holds a CPU and the interpreter lock, and a fixed amount of work takes longer on a contended core.

Parameters come from the environment bench/serving.ts gives the server (the bench computes them from the row; this
file holds no sizing logic): BENCH_DEVICE_MEDIAN_MS (median call time), BENCH_DEVICE_SIGMA (sigma of ln(call time)),
MODEL_BATCH_SIZE (the compiled batch, also what the server reads) and BENCH_HOST_MS_PER_REQUEST (CPU milliseconds
`input_fn` burns per request; 0 or unset: none).
"""
import ctypes
import json
import math
import os
import random
import time

import numpy

COMPILED_BATCH = int(os.environ["MODEL_BATCH_SIZE"])
HOST_NS_PER_REQUEST = int(float(os.environ.get("BENCH_HOST_MS_PER_REQUEST", "0")) * 1e6)
PR_SET_TIMERSLACK = 29  # linux/prctl.h


def _tighten_timer_slack():
    """Linux wakes a sleeping thread up to its timer slack (50 us by default) late, to batch wake-ups; a device call
    completing does not wait for a timer, so the stand-in asks for 1 ns. What is left of a sleep's overshoot is the
    scheduler's wake-up latency, which a worker waiting for a real device pays as well. Best effort: not on Linux, the
    default slack stays."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


# How fast the stand-in learns how late its sleeps end (see predict_fn): 5 % of each call's error, each error clipped
# to half the call, so that a rare stall of the machine (a few ms on a shared VM) moves what it sleeps less by at most
# 2.5 % of a call, while the mean call still comes to the drawn mean (the row's throughput).
LATE_GAIN = 0.05
LATE_CLIP = 0.5


def model_fn(model_dir):
    _tighten_timer_slack()  # the worker's one thread runs model_fn and every predict_fn
    # Each worker draws its own stream (seeded by its index) so two workers do not sleep in lockstep.
    draws = random.Random(int(os.environ.get("MODEL_SERVER_WORKER_INDEX", "0")) + 1)
    median_s = float(os.environ["BENCH_DEVICE_MEDIAN_MS"]) / 1000.0
    sigma = float(os.environ["BENCH_DEVICE_SIGMA"])
    return {
        "weight": numpy.float32(2.0),
        "call_s": lambda: median_s * math.exp(sigma * draws.gauss(0.0, 1.0)),
        "late_s": [0.0],  # how much later than asked this worker's sleeps end, learnt call by call
    }


def _burn_host_cpu(ns):
    """Spins until this thread has used `ns` of CPU time (CLOCK_THREAD_CPUTIME_ID): the same work however busy the
    machine is, as a handler's decoding would be."""
    until = time.thread_time_ns() + ns
    while time.thread_time_ns() < until:
        pass


def input_fn(body, content_type):
    if HOST_NS_PER_REQUEST > 0:
        _burn_host_cpu(HOST_NS_PER_REQUEST)
    inputs = json.loads(body)["inputs"]
    return numpy.asarray(inputs, dtype=numpy.float32).reshape(len(inputs))


def predict_fn(batch, model):
    """Lasts the drawn call time, from its start to its return: a device row's call time is what its caller saw, the
    wake-up when the call completed included, so the stand-in sleeps less by what it has learnt its sleeps overrun
    (on the 2-core VM this project runs on, 0.04-0.09 ms past the time asked, with the timer slack at 1 ns)."""
    started = time.perf_counter()
    call_s = model["call_s"]()
    padded = numpy.zeros(COMPILED_BATCH, dtype=numpy.float32)
    padded[: len(batch)] = batch
    late = model["late_s"]
    sleep_s = call_s - late[0] - (time.perf_counter() - started)
    if sleep_s > 0:
        time.sleep(sleep_s)
    outputs = (padded * model["weight"])[: len(batch)]
    error = time.perf_counter() - started - call_s
    late[0] = min(max(late[0] + LATE_GAIN * min(max(error, -LATE_CLIP * call_s), LATE_CLIP * call_s), 0.0), call_s / 2)
    return outputs


def output_fn(prediction, accept):
    return json.dumps({"outputs": prediction.tolist()}), "application/json"
