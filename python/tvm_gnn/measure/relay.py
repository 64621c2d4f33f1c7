# Licensed under the Apache License, Version 2.0.
"""Networks for Ansor (TVM 0.19): the same PyTorch definitions as the MetaSchedule line
(:data:`~.networks.NETWORKS`), through Relay's PyTorch frontend, and Ansor's tasks of them.

``torch.jit.trace`` of the model on a random input, then ``relay.frontend.from_pytorch``, then
``auto_scheduler.extract_tasks`` (one task per distinct fused subgraph, with its weight: how
often the network runs it). Relay's frontend takes most of torchvision's convolutional networks;
a network it cannot take raises :class:`RelayImportError` naming it (docs/ansor.md lists which
work). TVM's task extraction first tries to download TopHub's schedules: ``TOPHUB_LOCATION`` is
set to ``NONE`` (unless the user set it), as these machines have no network.
"""

from __future__ import annotations

import logging
import os
import warnings

from .networks import NETWORKS

logger = logging.getLogger(__name__)

#: Relay's name of the network's one input
INPUT = "input0"


class RelayImportError(RuntimeError):
    """Relay's PyTorch frontend cannot take this network."""


def relay_module(name: str, seed: int = 0):
    """``(mod, params, input_shape)`` of network ``name`` in Relay (random weights, batch 1)."""
    import torch
    from tvm import relay

    spec = NETWORKS.get(name)
    if spec is None:
        raise ValueError(f"unknown network {name!r}; choose one of {', '.join(NETWORKS)}")
    torch.manual_seed(seed)
    model = spec.build().eval()
    x = torch.randn(spec.input_shape)
    try:
        with torch.no_grad(), warnings.catch_warnings():
            # torch's own deprecation notice of jit.trace, which Relay's frontend needs
            warnings.filterwarnings("ignore", message=".*torch.jit.trace.*deprecated")
            traced = torch.jit.trace(model, x).eval()
        mod, params = relay.frontend.from_pytorch(traced, [(INPUT, tuple(spec.input_shape))])
    except Exception as err:  # noqa: BLE001 - the frontend's errors are many kinds; one line
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        msg = f"{name}: Relay's PyTorch frontend cannot take it ({first})"
        raise RelayImportError(msg) from err
    return mod, params, tuple(spec.input_shape)


def extract_tasks(mod, params, target):
    """Ansor's tasks of a Relay module and their weights (TopHub's download turned off)."""
    from tvm import auto_scheduler

    os.environ.setdefault("TOPHUB_LOCATION", "NONE")
    return auto_scheduler.extract_tasks(mod["main"], params, target)
