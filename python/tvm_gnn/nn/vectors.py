# Licensed under the Apache License, Version 2.0.
"""The FastText node-type vectors on disk: read and write them. No ``tvm``, no ``fasttext``.

They are trained by :mod:`tvm_gnn.featurize.embeddings` (``tvm-gnn embeddings``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..resources import NODE_TYPE_VECTORS
from .vocab import NODE_TYPES, VOCAB_VERSION

VECTORS_PATH = NODE_TYPE_VECTORS
DEFAULT_DIM = 32


def save_vectors(vectors: np.ndarray, path=VECTORS_PATH) -> None:
    """Write vectors as text: a header line, then ``type v1 v2 ...`` per node type."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [f"# tvm_gnn node-type vectors: vocab_version={VOCAB_VERSION} dim={vectors.shape[1]}"]
    for name, vec in zip(NODE_TYPES, vectors):
        lines.append(name + " " + " ".join(f"{v:.6f}" for v in vec))
    path.write_text("\n".join(lines) + "\n")


def load_vectors(path=VECTORS_PATH) -> np.ndarray:
    """Read vectors written by :func:`save_vectors`, checking them against the vocabulary."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"node-type vectors {path} not found; create them with `tvm-gnn embeddings`"
        )
    lines = path.read_text().splitlines()
    header, rows = lines[0], lines[1:]
    if f"vocab_version={VOCAB_VERSION}" not in header:
        raise ValueError(f"{path} was made for another vocabulary version: {header!r}")
    names = [r.split(" ", 1)[0] for r in rows]
    if names != list(NODE_TYPES):
        raise ValueError(f"{path} does not list this vocabulary's node types in order")
    return np.array([[float(v) for v in r.split(" ")[1:]] for r in rows], dtype=np.float32)


def fasttext_vectors(corpus_path: str, dim: int, epoch: int, out_path: str) -> None:
    """FastText skip-gram vectors of the node types from a corpus file, saved with ``np.save``.

    Run in a fresh process that has loaded neither TVM nor torch
    (:func:`tvm_gnn.featurize.embeddings.train_vectors` does): trainings inside one process do
    not repeat, and beside TVM's libraries FastText returned garbage in a few vectors.
    """
    import fasttext

    ft = fasttext.train_unsupervised(
        corpus_path,
        model="skipgram",
        dim=dim,
        epoch=epoch,
        lr=0.05,
        minCount=1,
        ws=5,
        minn=2,
        maxn=5,
        bucket=50000,
        thread=1,
        verbose=0,
    )
    np.save(out_path, np.stack([ft.get_word_vector(t) for t in NODE_TYPES]).astype(np.float32))
