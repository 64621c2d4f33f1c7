# Licensed under the Apache License, Version 2.0.
"""What TVM 0.26's MLPModel needs to train here: two fixes for the pinned torch, and MKL arithmetic
that repeats on every x86 CPU.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

#: MKL's conditional numerical reproducibility mode that ``tvm-gnn eval`` runs under.
MKL_CBWR = "COMPATIBLE"


def reproducible_arithmetic() -> str:
    """Ask MKL for the same float results on every x86 CPU; call before torch's first product.

    TVM's MLPModel trains for 50 epochs, and the last bits of MKL's matrix products, which
    differ with the CPU's instruction set (AVX-512 or AVX2) and thread count, grow into different
    weights: the same seed gave its rows different numbers on two CPUs. MKL's ``COMPATIBLE`` mode
    takes one code path on every x86 CPU (MKL reads ``MKL_CBWR`` at its first call), and
    MLPModel trains on one thread. GNN inference is as fast either way (featurization
    dominates). A mode the user set is kept; returns the one asked for.
    """
    return os.environ.setdefault("MKL_CBWR", MKL_CBWR)


#: MKL's codes for its reproducibility modes (mkl.h), as ``MKL_CBWR`` names them.
_CBWR_NAMES = {1: "OFF", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 9: "AVX", 10: "AVX2", 12: "AVX512"}


def mkl_mode() -> str | None:
    """The reproducibility mode MKL runs in, read from the MKL inside torch (``None``: unknown)."""
    import ctypes

    import torch

    try:
        lib = ctypes.CDLL(str(Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"))
        code = lib.mkl_serv_cbwr_get(1)  # MKL_CBWR_BRANCH
    except (OSError, AttributeError):  # another torch build, or no MKL
        return None
    return _CBWR_NAMES.get(code, str(code))


@contextlib.contextmanager
def mlp_compat():
    """Two fixes that let TVM 0.26's MLPModel run with the pinned torch, for the duration.

    - ``SegmentSumMLPTrainer.train_full`` passes ``verbose=True`` to ``StepLR``, an argument torch
      removed (TypeError): it is dropped.
    - ``SegmentSumMLP.forward`` ends in ``.squeeze()``, so a batch of one candidate gives a 0-d
      tensor and both its loss and ``predict`` crash: the output is kept 1-d.

    Everything else about MLPModel's training and prediction is TVM's own. Patch 0004 of
    ``patches/`` fixes both upstream.
    """
    import torch
    from tvm.s_tir.meta_schedule.cost_model import mlp_model

    original_steplr = torch.optim.lr_scheduler.StepLR
    original_forward = mlp_model.SegmentSumMLP.forward

    class StepLR(original_steplr):
        def __init__(self, *args, verbose=None, **kwargs):
            super().__init__(*args, **kwargs)

    def forward(self, segment_sizes, features):
        return original_forward(self, segment_sizes, features).reshape(-1)

    torch.optim.lr_scheduler.StepLR = StepLR
    mlp_model.SegmentSumMLP.forward = forward
    try:
        yield
    finally:
        torch.optim.lr_scheduler.StepLR = original_steplr
        mlp_model.SegmentSumMLP.forward = original_forward
