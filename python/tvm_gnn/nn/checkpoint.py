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
    if not path.exists():
        raise CheckpointError(f"checkpoint {path} does not exist")
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} is not a regular file; give the .pt file")
    what = _not_a_torch_zip(path)
    if what:
        raise CheckpointError(f"{path} is not a tvm_gnn checkpoint: it is {what}")
    try:
        payload = torch.load(path, map_location="cpu", weights_only=True, mmap=mmap)
    except Exception as err:  # noqa: BLE001 - any unpickling failure means a corrupt file
        why = "is cut short or damaged" if "zip" in str(err).lower() else "holds Python objects"
        msg = f"{path} is not a tvm_gnn checkpoint: a torch file that {why}"
        raise CheckpointError(msg) from err
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise CheckpointError(
            f"{path} is not a tvm_gnn checkpoint: a torch file of something else (no "
            f"{FORMAT!r} tag; `tvm-gnn train` writes checkpoints)"
        )
    if payload.get("format_version") != FORMAT_VERSION:
        raise CheckpointError(
            f"checkpoint {path} has format version {payload.get('format_version')}, "
            f"this tvm_gnn reads {FORMAT_VERSION}"
        )
    vocab = payload.get("vocab")
    if vocab != list(NODE_TYPES):
        raise CheckpointError(f"checkpoint {path} {_vocab_differs(vocab)}; train it again")
    if not isinstance(payload.get("extra", {}), dict):
        raise CheckpointError(f"checkpoint {path}: its 'extra' is not a dict")
    return payload


def _not_a_torch_zip(path: Path) -> str | None:
    """What ``path`` is, where it is not the zip file ``torch.save`` writes (None where it is)."""
    with open(path, "rb") as f:
        head = f.read(512)
    if head.startswith(b"PK\x03\x04"):
        return None
    if not head:
        return "empty"
    if head.startswith(b"\x1f\x8b"):
        return "a gzip file"
    if head.startswith(b"\x80") and len(head) > 1 and head[1] <= 5:
        return "a pickle or a torch file of the old format, which tvm_gnn never writes"
    try:
        text = head.decode()
    except UnicodeDecodeError:
        text = None
    if text is None or any(ord(c) < 32 and c not in "\t\n\r\f" for c in text):
        return "binary data of another kind (a checkpoint is the zip file torch.save writes)"
    return "JSON text" if text.lstrip()[:1] in ("{", "[") else "text"


def _vocab_differs(vocab) -> str:
    """How a checkpoint's node-type vocabulary differs from this tvm_gnn's, in words."""
    if not isinstance(vocab, list):
        return "records no node-type vocabulary"
    ours = list(NODE_TYPES)
    pairs = enumerate(zip(vocab, ours))
    first = next((i for i, (a, b) in pairs if a != b), min(len(vocab), len(ours)))
    theirs = vocab[first] if first < len(vocab) else "(its end)"
    mine = ours[first] if first < len(ours) else "(our end)"
    return (
        f"was trained on another node-type vocabulary ({len(vocab)} types against this "
        f"tvm_gnn's {len(ours)}; type {first} is {theirs!r} there and {mine!r} here)"
    )


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
