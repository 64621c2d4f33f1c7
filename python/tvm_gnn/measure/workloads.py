# Licensed under the Apache License, Version 2.0.
"""Built-in workloads: single tensor programs from common network layers, batch 1, float32.

Each is a function returning an IRModule with one PrimFunc, built with TOPI and
``te.create_prim_func``. They seed the FastText corpus and drive the demo, benchmarks and tests.
"""

from __future__ import annotations

from collections.abc import Callable


def _module(*tensors):
    import tvm
    from tvm import te

    return tvm.IRModule({"main": te.create_prim_func(list(tensors))})


def conv2d(n=1, c=64, h=56, w=56, k=64, r=3, stride=1, pad=1, relu=True):
    """NCHW conv2d (+ ReLU). Default: ResNet-18's 3x3, 64->64 channels, 56x56."""
    from tvm import te, topi

    data = te.placeholder((n, c, h, w), name="data")
    weight = te.placeholder((k, c, r, r), name="weight")
    out = topi.nn.conv2d_nchw(data, weight, stride, pad, 1)
    if relu:
        out = topi.nn.relu(out)
    return _module(data, weight, out)


def depthwise_conv2d(n=1, c=96, h=56, w=56, r=3, stride=1, pad=1):
    """NCHW depthwise conv2d + ReLU, MobileNetV2-style."""
    from tvm import te, topi

    data = te.placeholder((n, c, h, w), name="data")
    weight = te.placeholder((c, 1, r, r), name="weight")
    out = topi.nn.relu(topi.nn.depthwise_conv2d_nchw(data, weight, stride, pad, 1))
    return _module(data, weight, out)


def matmul(m=256, n=256, k=256):
    """Dense matmul C = A @ B."""
    from tvm import te, topi

    a = te.placeholder((m, k), name="A")
    b = te.placeholder((k, n), name="B")
    return _module(a, b, topi.matmul(a, b))


def dense_bias_relu(m=1, n=1000, k=512):
    """Fully connected layer with bias and ReLU (a classifier head)."""
    from tvm import te, topi

    x = te.placeholder((m, k), name="x")
    w = te.placeholder((n, k), name="w")
    bias = te.placeholder((n,), name="bias")
    out = topi.nn.relu(topi.add(topi.nn.dense(x, w), bias))
    return _module(x, w, bias, out)


def batch_matmul(b=12, m=128, n=128, k=64):
    """Batched matmul, transformer attention-style."""
    from tvm import te, topi

    x = te.placeholder((b, m, k), name="x")
    y = te.placeholder((b, n, k), name="y")
    return _module(x, y, topi.nn.batch_matmul(x, y))


def max_pool2d(n=1, c=64, h=112, w=112):
    """3x3 stride-2 max pooling, ResNet stem-style."""
    from tvm import te, topi

    data = te.placeholder((n, c, h, w), name="data")
    out = topi.nn.pool2d(data, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1), "max", layout="NCHW")
    return _module(data, out)


def softmax(m=12, n=128):
    """Row softmax (exp and reductions)."""
    from tvm import te, topi

    x = te.placeholder((m, n), name="x")
    return _module(x, topi.nn.softmax(x))


#: name -> constructor; every entry builds with its defaults.
WORKLOADS: dict[str, Callable] = {
    "resnet18_conv2d": conv2d,
    "conv2d_stride2": lambda: conv2d(c=64, h=56, w=56, k=128, stride=2),
    "conv2d_1x1": lambda: conv2d(c=128, h=28, w=28, k=256, r=1, pad=0, relu=False),
    "depthwise_conv2d": depthwise_conv2d,
    "matmul_256": matmul,
    "matmul_128": lambda: matmul(128, 128, 128),
    "dense_bias_relu": dense_bias_relu,
    "batch_matmul": batch_matmul,
    "max_pool2d": max_pool2d,
    "softmax": softmax,
}


def get(name: str):
    """The IRModule of a built-in workload, by name."""
    if name not in WORKLOADS:
        raise ValueError(f"unknown workload {name!r}; choose one of {sorted(WORKLOADS)}")
    return WORKLOADS[name]()
