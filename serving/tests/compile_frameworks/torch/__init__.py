"""numpy stand-in for the torch calls serving/compile/compile.py makes (see ../README.md)."""
import contextlib
import pickle

import numpy

__version__ = "2.9.0+fake"
int64 = numpy.int64
_rng = numpy.random.default_rng(0)


def manual_seed(seed):
    global _rng
    _rng = numpy.random.default_rng(seed)


def rand(shape):
    return _rng.random(shape, dtype=numpy.float32)


def zeros(shape, dtype=numpy.float32):
    return numpy.zeros(shape, dtype=dtype)


def ones(shape, dtype=numpy.float32):
    return numpy.ones(shape, dtype=dtype)


def no_grad():
    return contextlib.nullcontext()


class jit:  # noqa: N801  the torch spelling
    @staticmethod
    def save(model, path):
        with open(path, "wb") as f:
            pickle.dump({"traced": repr(model)}, f)

    @staticmethod
    def load(path):
        raise NotImplementedError("the stand-in loads no TorchScript")
