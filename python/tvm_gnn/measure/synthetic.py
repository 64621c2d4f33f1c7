# Licensed under the Apache License, Version 2.0.
"""Synthetic operator families: Relax modules of independent operators, one tuning task per shape,
collected beside the real networks (:mod:`tvm_gnn.measure.networks`) for breadth of shapes."""

from __future__ import annotations

#: Synthetic operator shapes, beside the networks' own: each family is collected as one "network"
#: whose tasks are independent operators, one per shape (float32, batch as given).
#: ``matmul``: (M, N, K); ``batch_matmul``: (B, M, N, K); ``conv2d``: (C_in, H = W, C_out, kernel,
#: stride), NCHW, padding kernel // 2; ``depthwise_conv2d``: (C, H = W, kernel, stride).
#: The ``_int8`` families are quantized inference's form of the same operators: int8 inputs,
#: int32 accumulation, then requantized to int8 (scaled, rounded, clipped), all in one task.
SYNTHETIC: dict[str, tuple[tuple[int, ...], ...]] = {
    "synthetic_matmul": (
        (1, 1000, 512),
        (1, 4096, 1024),
        (16, 512, 256),
        (32, 1000, 2048),
        (64, 64, 64),
        (128, 128, 128),
        (128, 768, 768),
        (128, 3072, 768),
        (128, 768, 3072),
        (256, 64, 1024),
        (256, 256, 256),
        (384, 384, 64),
        (512, 512, 512),
    ),
    "synthetic_batch_matmul": (
        (2, 512, 512, 128),
        (4, 256, 256, 64),
        (8, 64, 64, 64),
        (8, 128, 512, 32),
        (12, 128, 128, 64),
        (12, 128, 64, 128),
        (16, 32, 32, 256),
        (32, 16, 16, 64),
        (16, 197, 197, 64),
        (16, 197, 64, 197),
    ),
    "synthetic_conv2d": (
        (3, 224, 64, 7, 2),
        (16, 64, 48, 5, 1),
        (32, 112, 32, 3, 1),
        (64, 56, 64, 3, 1),
        (64, 56, 128, 1, 2),
        (96, 35, 96, 3, 1),
        (128, 28, 128, 3, 1),
        (192, 28, 32, 1, 1),
        (256, 14, 256, 3, 1),
        (256, 14, 512, 1, 1),
        (512, 7, 512, 3, 1),
        (480, 14, 192, 1, 1),
    ),
    "synthetic_depthwise_conv2d": (
        (24, 112, 7, 1),
        (32, 112, 3, 1),
        (64, 56, 3, 2),
        (96, 112, 3, 2),
        (144, 56, 3, 1),
        (240, 28, 5, 1),
        (480, 14, 3, 1),
        (512, 14, 3, 1),
        (672, 14, 5, 2),
        (1152, 7, 5, 1),
    ),
}
SYNTHETIC["synthetic_matmul_int8"] = SYNTHETIC["synthetic_matmul"]
SYNTHETIC["synthetic_conv2d_int8"] = SYNTHETIC["synthetic_conv2d"]

#: The scale an int8 family's int32 result is requantized by (any constant: latency does not
#: depend on it).
_REQUANT_SCALE = 1.0 / 256


def synthetic_module(name: str):
    """The Relax module of a synthetic family: ``main`` applies each shape's operator to its own
    inputs, so that MetaSchedule extracts one task per shape."""
    from functools import partial

    from tvm import relax

    if name not in SYNTHETIC:
        raise ValueError(f"unknown synthetic family {name!r}; choose one of {sorted(SYNTHETIC)}")
    op = name.removeprefix("synthetic_")
    quantized = op.endswith("_int8")
    op = op.removesuffix("_int8")
    dtype = "int8" if quantized else "float32"
    params, ops = [], []
    for i, shape in enumerate(SYNTHETIC[name]):
        if op == "matmul":
            m, n, k = shape
            shapes, make = [(m, k), (k, n)], relax.op.matmul
        elif op == "batch_matmul":
            b, m, n, k = shape
            shapes, make = [(b, m, k), (b, k, n)], relax.op.matmul
        elif op == "conv2d":
            c, h, o, k, st = shape
            shapes = [(1, c, h, h), (o, c, k, k)]
            make = partial(relax.op.nn.conv2d, strides=st, padding=k // 2)
        else:
            c, h, k, st = shape
            shapes = [(1, c, h, h), (c, 1, k, k)]
            make = partial(relax.op.nn.conv2d, strides=st, padding=k // 2, groups=c)
        if quantized:
            make = partial(_requantized, partial(make, out_dtype="int32"))
        args = [
            relax.Var(f"{op}{i}_{j}", relax.TensorType(sh, dtype)) for j, sh in enumerate(shapes)
        ]
        params += args
        ops.append((make, args))
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(relax.Tuple([bb.emit(make(*args)) for make, args in ops]))
        bb.emit_func_output(out)
    return relax.get_pipeline("zero")(bb.get())


def _requantized(make, *args):
    """``make(*args)`` (int32) scaled back to int8, as a quantized layer ends: FuseOps puts the
    whole chain into the operator's task."""
    from tvm import relax

    acc = relax.op.astype(make(*args), "float32")
    scaled = relax.op.round(relax.op.multiply(acc, relax.const(_REQUANT_SCALE, "float32")))
    return relax.op.astype(relax.op.clip(scaled, -128, 127), "int8")
