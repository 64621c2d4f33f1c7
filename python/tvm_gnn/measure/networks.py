# Licensed under the Apache License, Version 2.0.
"""Real networks, from their standard PyTorch definitions, imported through TVM's Relax frontend.

Batch 1, float32, random weights (latency does not depend on weight values). The path is the one
TVM documents: ``torch.export`` -> ``from_exported_program`` -> Relax; MetaSchedule then extracts
one tuning task per distinct fused operator.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass

from . import handwritten
from .synthetic import SYNTHETIC, synthetic_module

__all__ = [
    "NETWORKS",
    "SYNTHETIC",
    "NetworkSpec",
    "extract_tasks",
    "get_torch",
    "synthetic_module",
    "to_relax",
]


@dataclass(frozen=True)
class NetworkSpec:
    """How to build one network."""

    build: Callable  # () -> torch.nn.Module
    input_shape: tuple[int, ...]  # batch 1, NCHW (or token ids for text models)


def _tv(name: str, module: str = "", **kwargs):
    """A torchvision model by name (``module="video"`` for the video models)."""

    def build():
        import importlib

        models = importlib.import_module("torchvision.models" + (f".{module}" if module else ""))
        return getattr(models, name)(weights=None, **kwargs)

    return build


def _segmentation(name: str):
    """A torchvision segmentation model, returning its ``"out"`` map (they return a dict)."""

    def build():
        import torch
        import torchvision

        class MainOutput(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.model = getattr(torchvision.models.segmentation, name)(
                    weights=None, weights_backbone=None
                )

            def forward(self, x):
                return self.model(x)["out"]

        return MainOutput()

    return build


NETWORKS: dict[str, NetworkSpec] = {
    # small, for tests and demos (not part of the dataset)
    "tiny_cnn": NetworkSpec(handwritten.tiny_cnn, (1, 3, 16, 16)),
    # held out
    "resnet18": NetworkSpec(_tv("resnet18"), (1, 3, 224, 224)),
    "mobilenet_v2": NetworkSpec(_tv("mobilenet_v2"), (1, 3, 224, 224)),
    "inception_v3": NetworkSpec(
        _tv("inception_v3", aux_logits=False, init_weights=False), (1, 3, 299, 299)
    ),
    # training
    "resnet50": NetworkSpec(_tv("resnet50"), (1, 3, 224, 224)),
    "resnext50": NetworkSpec(_tv("resnext50_32x4d"), (1, 3, 224, 224)),
    "vgg16": NetworkSpec(_tv("vgg16"), (1, 3, 224, 224)),
    "densenet121": NetworkSpec(_tv("densenet121"), (1, 3, 224, 224)),
    "squeezenet": NetworkSpec(_tv("squeezenet1_1"), (1, 3, 224, 224)),
    "shufflenet_v2": NetworkSpec(_tv("shufflenet_v2_x1_0"), (1, 3, 224, 224)),
    "mnasnet": NetworkSpec(_tv("mnasnet1_0"), (1, 3, 224, 224)),
    "efficientnet_b0": NetworkSpec(_tv("efficientnet_b0"), (1, 3, 224, 224)),
    "googlenet": NetworkSpec(
        _tv("googlenet", aux_logits=False, init_weights=False), (1, 3, 224, 224)
    ),
    "bert_block": NetworkSpec(handwritten.transformer_block(), (1, 128, 768)),
    # training, added for breadth (docs/dataset.md): attention and MLP models of several widths,
    # lengths and norms, recurrent cells, 3-D, dilated, grouped and large-kernel convolutions
    "vit_b_16": NetworkSpec(_tv("vit_b_16"), (1, 3, 224, 224)),
    "convnext_tiny": NetworkSpec(_tv("convnext_tiny"), (1, 3, 224, 224)),
    "mobilenet_v3_large": NetworkSpec(_tv("mobilenet_v3_large"), (1, 3, 224, 224)),
    "regnet_y_800mf": NetworkSpec(_tv("regnet_y_800mf"), (1, 3, 224, 224)),
    "lstm": NetworkSpec(handwritten.lstm, (1, 8, 512)),
    "mlp_mixer": NetworkSpec(handwritten.mlp_mixer, (1, 3, 224, 224)),
    "r3d_18": NetworkSpec(_tv("r3d_18", "video"), (1, 3, 8, 112, 112)),
    "deeplabv3_mobilenet": NetworkSpec(
        _segmentation("deeplabv3_mobilenet_v3_large"), (1, 3, 224, 224)
    ),
    "swin_t": NetworkSpec(_tv("swin_t"), (1, 3, 224, 224)),
    "transformer_512_s256": NetworkSpec(
        handwritten.transformer_block(512, 8, norm_first=True, activation="gelu"), (1, 256, 512)
    ),
    "transformer_256_s64_b4": NetworkSpec(handwritten.transformer_block(256, 4), (4, 64, 256)),
    "dilated_grouped_cnn": NetworkSpec(handwritten.dilated_grouped_cnn, (1, 3, 112, 112)),
    "alexnet": NetworkSpec(_tv("alexnet"), (1, 3, 224, 224)),
    "efficientnet_v2_s": NetworkSpec(_tv("efficientnet_v2_s"), (1, 3, 224, 224)),
    "mnasnet0_5": NetworkSpec(_tv("mnasnet0_5"), (1, 3, 224, 224)),
    "shufflenet_v2_x2_0": NetworkSpec(_tv("shufflenet_v2_x2_0"), (1, 3, 224, 224)),
    "wide_resnet50_2": NetworkSpec(_tv("wide_resnet50_2"), (1, 3, 224, 224)),
    "regnet_x_400mf": NetworkSpec(_tv("regnet_x_400mf"), (1, 3, 224, 224)),
    "mobilenet_v3_small": NetworkSpec(_tv("mobilenet_v3_small"), (1, 3, 224, 224)),
    "resnet50_b4": NetworkSpec(_tv("resnet50"), (4, 3, 224, 224)),
    # added 2026-11-28 for the workload target: each brings workloads no earlier network has (a new
    # resolution, width, depth of concatenation, sequence length or batch size)
    "efficientnet_b3": NetworkSpec(_tv("efficientnet_b3"), (1, 3, 300, 300)),
    "regnet_y_400mf": NetworkSpec(_tv("regnet_y_400mf"), (1, 3, 224, 224)),
    "vit_b_32": NetworkSpec(_tv("vit_b_32"), (1, 3, 224, 224)),
    "bert_block_s32": NetworkSpec(handwritten.transformer_block(), (1, 32, 768)),
    "mobilenet_v3_large_b4": NetworkSpec(_tv("mobilenet_v3_large"), (4, 3, 224, 224)),
    "convnext_tiny_b4": NetworkSpec(_tv("convnext_tiny"), (4, 3, 224, 224)),
    "regnet_x_1_6gf": NetworkSpec(_tv("regnet_x_1_6gf"), (1, 3, 224, 224)),
    "squeezenet1_0": NetworkSpec(_tv("squeezenet1_0"), (1, 3, 224, 224)),
    "densenet169": NetworkSpec(_tv("densenet169"), (1, 3, 224, 224)),
    # added 2026-11-28 for the record target, chosen with `dataset-stats --would-add` for new
    # workloads and operators: (2+1)-D and mixed 3-D convolutions, a dilated ResNet-50 backbone
    "r2plus1d_18": NetworkSpec(_tv("r2plus1d_18", "video"), (1, 3, 8, 112, 112)),
    "mc3_18": NetworkSpec(_tv("mc3_18", "video"), (1, 3, 8, 112, 112)),
    "fcn_resnet50": NetworkSpec(_segmentation("fcn_resnet50"), (1, 3, 224, 224)),
    "regnet_y_1_6gf": NetworkSpec(_tv("regnet_y_1_6gf"), (1, 3, 224, 224)),
    "shufflenet_v2_x0_5": NetworkSpec(_tv("shufflenet_v2_x0_5"), (1, 3, 224, 224)),
    "tcn_conv1d": NetworkSpec(handwritten.tcn_conv1d, (1, 80, 400)),
    "unet_small": NetworkSpec(handwritten.unet_small, (1, 3, 128, 128)),
    "maxvit_t": NetworkSpec(_tv("maxvit_t"), (1, 3, 224, 224)),
    "swin_v2_t": NetworkSpec(_tv("swin_v2_t"), (1, 3, 256, 256)),
    # added 2026-11-29 for breadth, chosen with `dataset-stats --would-add` (docs/dataset.md) and
    # collected with --skip-shared: new batch sizes, widths, resolutions and depths of
    # concatenation; the LR-ASPP head (4 new workloads) is cheap only that way
    "efficientnet_b0_b8": NetworkSpec(_tv("efficientnet_b0"), (8, 3, 224, 224)),
    "vit_b_16_b4": NetworkSpec(_tv("vit_b_16"), (4, 3, 224, 224)),
    "vit_l_16": NetworkSpec(_tv("vit_l_16"), (1, 3, 224, 224)),
    "efficientnet_b1": NetworkSpec(_tv("efficientnet_b1"), (1, 3, 240, 240)),
    "regnet_y_3_2gf": NetworkSpec(_tv("regnet_y_3_2gf"), (1, 3, 224, 224)),
    "regnet_x_3_2gf": NetworkSpec(_tv("regnet_x_3_2gf"), (1, 3, 224, 224)),
    "mnasnet1_3": NetworkSpec(_tv("mnasnet1_3"), (1, 3, 224, 224)),
    "shufflenet_v2_x1_5": NetworkSpec(_tv("shufflenet_v2_x1_5"), (1, 3, 224, 224)),
    "densenet201": NetworkSpec(_tv("densenet201"), (1, 3, 224, 224)),
    "lraspp_mobilenet": NetworkSpec(_segmentation("lraspp_mobilenet_v3_large"), (1, 3, 224, 224)),
}


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

    with torch.no_grad(), _fake_tensor_errors_unlogged():
        exported = torch.export.export(model, (example,))
    mod = from_exported_program(exported, keep_params_as_input=False)
    # Inference form: batch norms become elementwise ops that fuse into the convolutions.
    mod = relax.transform.DecomposeOpsForInference()(mod)
    return relax.get_pipeline("zero")(mod)


@contextmanager
def _fake_tensor_errors_unlogged():
    """Keep torch's fake-tensor logger from printing the traceback of an operator that fails
    during export (an input too small for a kernel): export raises that same error, and whoever
    catches it decides whether to show it, once."""
    fake_tensor_log = logging.getLogger("torch._subclasses.fake_tensor")
    level = fake_tensor_log.level
    fake_tensor_log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        fake_tensor_log.setLevel(level)


def extract_tasks(name: str, target):
    """MetaSchedule tuning tasks of a network or synthetic family for ``target`` (one per distinct
    fused operator)."""
    from tvm.s_tir import meta_schedule as ms

    if name in SYNTHETIC:
        return ms.relax_integration.extract_tasks(synthetic_module(name), target)
    model, example = get_torch(name)
    return ms.relax_integration.extract_tasks(to_relax(model, example), target)
