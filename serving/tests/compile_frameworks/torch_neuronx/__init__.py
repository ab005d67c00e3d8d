"""Stand-in for torch_neuronx.trace (see ../README.md): the CPU model plus an offset, or the tracer's failures."""
import os

calls = []


class _Traced:
    def __init__(self, model, offset, compiler_args):
        self.model = model
        self.offset = offset
        self.compiler_args = compiler_args

    def __call__(self, *inputs):
        return tuple(o + self.offset for o in self.model(*inputs))

    def __repr__(self):
        return f"traced(compiler_args={self.compiler_args})"


def trace(model, example, compiler_args=None):
    failure = os.environ.get("FAKE_NEURON_FAIL", "")
    if failure == "oom":
        raise RuntimeError("neuronx-cc failed with returncode -9")
    if failure == "unsupported":
        raise RuntimeError("ERROR: Unsupported operators: aten::fft_rfft, aten::stft are not supported")
    calls.append({"batch": example[0].shape[0], "compiler_args": list(compiler_args or [])})
    return _Traced(model, float(os.environ.get("FAKE_NEURON_OFFSET", "0.001")), compiler_args)
