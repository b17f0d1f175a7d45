"""A stand-in for PyTorch, enough for bench/pytorch_conv.py to run without a GPU (its test,
tests/bench_scripts_test.sh): time is a counter that each conv2d advances by a cost per layer, a
CUDA graph replays the calls it captured, and events read the counter."""
import contextlib
import types

__version__ = "0.0-fake"
float16, bfloat16, float32 = "float16", "bfloat16", "float32"
channels_last, contiguous_format = "channels_last", "contiguous_format"
clock = {"ms": 0.0, "capturing": None}


class Tensor:
    def __init__(self, shape):
        self.shape = shape

    def to(self, memory_format=None):
        return self


def randn(*shape, device=None, dtype=None):
    return Tensor(shape)


def _conv2d(x, w, stride=1, padding=0):
    cost = 1e-6 * x.shape[0] * x.shape[1] * w.shape[0]  # a fake cost that differs per layer
    if clock["capturing"] is not None:
        clock["capturing"].append(cost)
    else:
        clock["ms"] += cost
    return Tensor((x.shape[0], w.shape[0]))


nn = types.SimpleNamespace(functional=types.SimpleNamespace(conv2d=_conv2d))
backends = types.SimpleNamespace(cudnn=types.SimpleNamespace(benchmark=False, allow_tf32=True, version=lambda: 91900),
                                 cuda=types.SimpleNamespace(matmul=types.SimpleNamespace(allow_tf32=True)))


class _Event:
    def __init__(self, enable_timing=False):
        self.at = None

    def record(self):
        self.at = clock["ms"]

    def synchronize(self):
        pass

    def elapsed_time(self, end):
        return end.at - self.at


class _Stream:
    def wait_stream(self, other):
        pass


class _Graph:
    def __init__(self):
        self.costs = []

    def replay(self):
        clock["ms"] += sum(self.costs)


@contextlib.contextmanager
def _graph(g):
    clock["capturing"] = g.costs
    try:
        yield
    finally:
        clock["capturing"] = None


cuda = types.SimpleNamespace(Event=_Event, Stream=_Stream, current_stream=_Stream, stream=lambda s: contextlib.nullcontext(),
                             CUDAGraph=_Graph, graph=_graph, synchronize=lambda: None, empty_cache=lambda: None,
                             get_device_name=lambda i: "Fake GPU")
