"""Fixtures of the Ansor tests (TVM 0.19): real search tasks, their sampled states, and states
measured on this machine. ``conftest.py`` makes them every test's under TVM 0.19."""

import pytest
from tvm import auto_scheduler, te, topi


@auto_scheduler.register_workload
def tvm_gnn_test_conv2d(n, c, hw, k):
    data = te.placeholder((n, c, hw, hw), name="data")
    kernel = te.placeholder((c, c, k, k), name="kernel")
    out = topi.nn.conv2d_nchw(data, kernel, 1, k // 2, dilation=1, out_dtype="float32")
    return [data, kernel, topi.nn.relu(out)]


@auto_scheduler.register_workload
def tvm_gnn_test_matmul_exp(n):
    a = te.placeholder((n, n), name="A")
    b = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    c = te.compute((n, n), lambda i, j: te.sum(a[i, k] * b[k, j], axis=[k]), name="C")
    return [a, b, te.compute((n, n), lambda i, j: te.exp(c[i, j]) * 0.5, name="D")]


def conv_task(channels=32):
    return auto_scheduler.SearchTask(
        func=tvm_gnn_test_conv2d, args=(1, channels, 14, 3), target="llvm -num-cores=2"
    )


def matmul_task(n=64):
    return auto_scheduler.SearchTask(
        func=tvm_gnn_test_matmul_exp, args=(n,), target="llvm -num-cores=2"
    )


def sample_states(task, n, seed=0):
    policy = auto_scheduler.SketchPolicy(task, params={}, seed=seed, verbose=0)
    return list(policy.sample_initial_population())[:n]


def measure(task, states):
    """Real measurements of ``states`` on this machine: ``(inputs, results)``."""
    inputs = [auto_scheduler.MeasureInput(task, s) for s in states]
    builder = auto_scheduler.LocalBuilder(timeout=60, n_parallel=2)
    runner = auto_scheduler.LocalRunner(timeout=20, number=1, repeat=1, min_repeat_ms=1)
    return inputs, runner.run(inputs, builder.build(inputs))


@pytest.fixture(scope="session")
def ansor_conv():
    """ResNet-like 3x3 conv2d + relu (32 channels, 14x14) and 24 of its sampled states."""
    task = conv_task()
    return task, sample_states(task, 24)


@pytest.fixture(scope="session")
def ansor_matmul():
    """A 64x64 matmul followed by exp, and 16 of its sampled states."""
    task = matmul_task()
    return task, sample_states(task, 16)


@pytest.fixture(scope="session")
def ansor_measured(ansor_matmul):
    """8 of the matmul's states, measured: ``(task, inputs, results)``."""
    task, states = ansor_matmul
    return (task, *measure(task, states[:8]))
