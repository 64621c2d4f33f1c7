# Licensed under the Apache License, Version 2.0.
"""Which torch device a run trains on: checked where a config is made, before any work."""

from __future__ import annotations

import torch


def check_device(device: str) -> torch.device:
    """``device`` as a torch device; ValueError when it is unknown or not on this machine."""
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"unknown device {device!r} (e.g. cpu, cuda, cuda:1)") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device {device!r}: this PyTorch sees no CUDA GPU "
            f"(torch {torch.__version__}, CUDA build: {torch.version.cuda or 'no'})"
        )
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ValueError(
            f"device {device!r}: this machine has {torch.cuda.device_count()} CUDA device(s)"
        )
    if dev.type not in ("cpu", "cuda"):
        raise ValueError(f"device {device!r}: training runs on cpu or cuda")
    return dev
