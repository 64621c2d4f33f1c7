# Licensed under the Apache License, Version 2.0.
"""Checkpoints: everything needed to rebuild a model, written atomically.

A checkpoint is a ``torch.save`` file of plain data (loaded with ``weights_only=True``; no pickled
modules): the format tag and version, the :class:`~tvm_gnn.nn.model.GNNConfig`, the featurizer
config, the node-type vocabulary it was trained with, the ``state_dict``, and optional ``extra``
(the online training data of a :class:`~tvm_gnn.cost_models.GNNModel`).
"""

from __future__ import annotations

import re
from pathlib import Path

import torch

from .. import atomic
from ..errors import CheckpointError
from .model import GNN, GNNConfig
from .schema import NUM_BASE_FEATURES, FeaturizerConfig
from .vocab import NODE_TYPES, VOCAB_VERSION

__all__ = ["CheckpointError", "load", "read_info", "save"]

FORMAT = "tvm_gnn-checkpoint"
FORMAT_VERSION = 1


def save(path, model: GNN, featurizer: FeaturizerConfig, extra: dict | None = None) -> None:
    """Write a checkpoint atomically: a crash mid-write leaves any previous file intact."""
    path = Path(path)
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "gnn_config": model.config.to_dict(),
        "featurizer": {
            "lowering": featurizer.lowering,
            "max_nodes": featurizer.max_nodes,
            "reuse": featurizer.reuse,
        },
        "vocab": list(NODE_TYPES),
        "vocab_version": VOCAB_VERSION,
        "state_dict": model.state_dict(),
        "extra": extra or {},
    }
    with atomic.atomic_open(path, "wb") as f:
        torch.save(payload, f)


def _read(path, mmap: bool = False) -> dict:
    """The checked payload of a checkpoint file (``mmap``: tensors mapped, not read)."""
    path = Path(path)
    if path.is_dir():
        raise CheckpointError(f"checkpoint {path} is a folder; give the .pt file in it")
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True, mmap=mmap)
    except Exception as err:  # noqa: BLE001 - any unpickling failure means a corrupt file
        raise CheckpointError(f"checkpoint {path} is corrupt or not a torch file: {err}") from err
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(f"{path} is not a tvm_gnn checkpoint")
    if payload.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {path} has format version {payload.get('format_version')}, "
            f"this tvm_gnn reads {FORMAT_VERSION}"
        )
    if payload.get("vocab") != list(NODE_TYPES):
        raise CheckpointError(
            f"checkpoint {path} was trained with node-type vocabulary version "
            f"{payload.get('vocab_version')}; this tvm_gnn has version {VOCAB_VERSION}"
        )
    if not isinstance(payload.get("extra", {}), dict):
        raise CheckpointError(f"checkpoint {path}: its 'extra' is not a dict")
    return payload


def read_info(path) -> dict:
    """What a checkpoint records beside its weights (``extra``: hardware, training networks and
    records, history, online data), without building the model: its tensors are memory-mapped,
    not read.

    Raises
    ------
    CheckpointError
        As :func:`load`.
    """
    return _read(path, mmap=True).get("extra", {})


def load(path) -> tuple[GNN, FeaturizerConfig, dict]:
    """Read a checkpoint; return ``(model, featurizer_config, extra)``.

    Raises
    ------
    CheckpointError
        Naming the file, if it is missing, unreadable, not a tvm_gnn checkpoint, or was written
        with another node-type vocabulary.
    """
    path = Path(path)
    payload = _read(path)
    try:
        config = GNNConfig.from_dict(payload["gnn_config"])
        model = GNN(config)
        model.load_state_dict(payload["state_dict"])
        featurizer = FeaturizerConfig(**payload["featurizer"])
        if config.num_features > NUM_BASE_FEATURES and not featurizer.reuse:
            raise ValueError(
                "its model reads the footprint and reuse columns, and its featurizer "
                "does not fill them"
            )
    except (KeyError, TypeError, ValueError, RuntimeError) as err:
        raise CheckpointError(f"checkpoint {path} is inconsistent: {_first_line(err)}") from None
    model.eval()
    return model, featurizer, payload.get("extra", {})


def _first_line(err: Exception) -> str:
    """What a failed load says in one line: torch's dump of every tensor whose shape differs
    from the architecture the file's config describes becomes a count and the first one."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    shapes = [ln for ln in lines if ln.startswith("size mismatch for")]
    keys = [ln for ln in lines if ln.startswith(("Missing key", "Unexpected key"))]
    if not shapes and not keys:
        return lines[0] if lines else type(err).__name__
    first = (shapes or keys)[0].rstrip(".")
    sizes = re.findall(r"torch\.Size\((\[[^\]]*\])\)", first)
    if shapes and len(sizes) == 2:  # "size mismatch for NAME: copying ... Size([a]) ..."
        name = first[len("size mismatch for ") :].split(":")[0]
        first = f"{name} is {sizes[0]} in the file, {sizes[1]} in that architecture"
    return (
        f"its weights do not fit the architecture its config describes ({len(shapes)} tensors "
        f"of other shapes, {len(keys)} key lists that differ; {first}): it was written by "
        "another tvm_gnn or edited; retrain it (`tvm-gnn train`) or load it with the tvm_gnn "
        "that wrote it"
    )
