# Licensed under the Apache License, Version 2.0.
"""Real networks, from their standard PyTorch definitions, imported through TVM's Relax frontend.

Batch 1, float32, random weights (latency does not depend on weight values). The path is the one
TVM documents: ``torch.export`` -> ``from_exported_program`` -> Relax; MetaSchedule then extracts
one tuning task per distinct fused operator.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: The held-out networks: never trained on; the GNN is evaluated on them.
HELD_OUT = ("resnet18", "mobilenet_v2", "inception_v3")


@dataclass(frozen=True)
class NetworkSpec:
    """How to build one network."""

    build: Callable  # () -> torch.nn.Module
    input_shape: tuple[int, ...]  # batch 1, NCHW (or token ids for text models)


def _tv(name: str, **kwargs):
    def build():
        import torchvision

        return getattr(torchvision.models, name)(weights=None, **kwargs)

    return build


def _transformer_block():
    """One BERT-base encoder layer (768 wide, 12 heads, sequence 128) from torch.nn."""
    import torch

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.layer = torch.nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.0,
                                                          batch_first=True)  # fmt: skip

        def forward(self, x):
            return self.layer(x)

    return Block()


def _tiny_cnn():
    """Two small conv layers and a classifier: a network that tunes in minutes (tests, demos)."""
    import torch
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 8, 3, stride=2, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(8, 10),
    )  # fmt: skip


NETWORKS: dict[str, NetworkSpec] = {
    # small, for tests and demos (not part of the dataset)
    "tiny_cnn": NetworkSpec(_tiny_cnn, (1, 3, 16, 16)),
    # held out
    "resnet18": NetworkSpec(_tv("resnet18"), (1, 3, 224, 224)),
    "mobilenet_v2": NetworkSpec(_tv("mobilenet_v2"), (1, 3, 224, 224)),
    "inception_v3": NetworkSpec(_tv("inception_v3", aux_logits=False, init_weights=False),
                                (1, 3, 299, 299)),  # fmt: skip
    # training
    "resnet50": NetworkSpec(_tv("resnet50"), (1, 3, 224, 224)),
    "resnext50": NetworkSpec(_tv("resnext50_32x4d"), (1, 3, 224, 224)),
    "vgg16": NetworkSpec(_tv("vgg16"), (1, 3, 224, 224)),
    "densenet121": NetworkSpec(_tv("densenet121"), (1, 3, 224, 224)),
    "squeezenet": NetworkSpec(_tv("squeezenet1_1"), (1, 3, 224, 224)),
    "shufflenet_v2": NetworkSpec(_tv("shufflenet_v2_x1_0"), (1, 3, 224, 224)),
    "mnasnet": NetworkSpec(_tv("mnasnet1_0"), (1, 3, 224, 224)),
    "efficientnet_b0": NetworkSpec(_tv("efficientnet_b0"), (1, 3, 224, 224)),
    "googlenet": NetworkSpec(_tv("googlenet", aux_logits=False, init_weights=False),
                             (1, 3, 224, 224)),  # fmt: skip
    "bert_block": NetworkSpec(_transformer_block, (1, 128, 768)),
}


#: Synthetic operator shapes, beside the networks' own: each family is collected as one "network"
#: whose tasks are independent operators, one per shape (float32, batch as given).
#: ``matmul``: (M, N, K); ``batch_matmul``: (B, M, N, K); ``conv2d``: (C_in, H = W, C_out, kernel,
#: stride), NCHW, padding kernel // 2; ``depthwise_conv2d``: (C, H = W, kernel, stride).
SYNTHETIC: dict[str, tuple[tuple[int, ...], ...]] = {
    "synthetic_matmul": (
        (1, 1000, 512), (1, 4096, 1024), (16, 512, 256), (32, 1000, 2048), (64, 64, 64),
        (128, 128, 128), (128, 768, 768), (128, 3072, 768), (128, 768, 3072), (256, 64, 1024),
        (256, 256, 256), (384, 384, 64), (512, 512, 512),
    ),
    "synthetic_batch_matmul": (
        (2, 512, 512, 128), (4, 256, 256, 64), (8, 64, 64, 64), (8, 128, 512, 32),
        (12, 128, 128, 64), (12, 128, 64, 128), (16, 32, 32, 256), (32, 16, 16, 64),
        (16, 197, 197, 64), (16, 197, 64, 197),
    ),
    "synthetic_conv2d": (
        (3, 224, 64, 7, 2), (16, 64, 48, 5, 1), (32, 112, 32, 3, 1), (64, 56, 64, 3, 1),
        (64, 56, 128, 1, 2), (96, 35, 96, 3, 1), (128, 28, 128, 3, 1), (192, 28, 32, 1, 1),
        (256, 14, 256, 3, 1), (256, 14, 512, 1, 1), (512, 7, 512, 3, 1), (480, 14, 192, 1, 1),
    ),
    "synthetic_depthwise_conv2d": (
        (24, 112, 7, 1), (32, 112, 3, 1), (64, 56, 3, 2), (96, 112, 3, 2), (144, 56, 3, 1),
        (240, 28, 5, 1), (480, 14, 3, 1), (512, 14, 3, 1), (672, 14, 5, 2), (1152, 7, 5, 1),
    ),
}


def synthetic_module(name: str):
    """The Relax module of a synthetic family: ``main`` applies each shape's operator to its own
    inputs, so that MetaSchedule extracts one task per shape."""
    from functools import partial

    from tvm import relax

    if name not in SYNTHETIC:
        raise ValueError(f"unknown synthetic family {name!r}; choose one of {sorted(SYNTHETIC)}")
    op = name.removeprefix("synthetic_")
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
        args = [relax.Var(f"{op}{i}_{j}", relax.TensorType(sh, "float32"))
                for j, sh in enumerate(shapes)]  # fmt: skip
        params += args
        ops.append((make, args))
    bb = relax.BlockBuilder()
    with bb.function("main", params):
        with bb.dataflow():
            out = bb.emit_output(relax.Tuple([bb.emit(make(*args)) for make, args in ops]))
        bb.emit_func_output(out)
    return relax.get_pipeline("zero")(bb.get())


def get_torch(name: str, seed: int = 0):
    """``(model, example_input)``: the PyTorch network in eval mode and a random input."""
    import torch

    if name not in NETWORKS:
        raise ValueError(f"unknown network {name!r}; choose one of {sorted(NETWORKS)}")
    spec = NETWORKS[name]
    torch.manual_seed(seed)
    model = spec.build().eval()
    return model, torch.randn(*spec.input_shape)


def to_relax(model, example):
    """Import a PyTorch module into a Relax IRModule, with weights bound as constants."""
    import torch
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    with torch.no_grad():
        exported = torch.export.export(model, (example,))
    mod = from_exported_program(exported, keep_params_as_input=False)
    # Inference form: batch norms become elementwise ops that fuse into the convolutions.
    mod = relax.transform.DecomposeOpsForInference()(mod)
    return relax.get_pipeline("zero")(mod)


def extract_tasks(name: str, target):
    """MetaSchedule tuning tasks of a network or synthetic family for ``target`` (one per distinct
    fused operator)."""
    from tvm.s_tir import meta_schedule as ms

    if name in SYNTHETIC:
        return ms.relax_integration.extract_tasks(synthetic_module(name), target)
    model, example = get_torch(name)
    return ms.relax_integration.extract_tasks(to_relax(model, example), target)
