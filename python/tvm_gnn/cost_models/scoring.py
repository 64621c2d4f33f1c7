# Licensed under the Apache License, Version 2.0.
"""Scoring many MetaSchedule candidates with a GNN: featurize one chunk while the last runs."""

from __future__ import annotations

import numpy as np
import torch

from ..featurize.graph import featurize_batch
from ..measure.hardware import usable_cores
from ..nn.model import GNN


def predict_candidates(
    model: GNN,
    candidates,
    featurizer,
    chunk: int = 128,
    set_mean=None,
    embeddings=False,
    featurize=featurize_batch,
):
    """Scores of MetaSchedule candidates, featurizing one chunk while the GNN runs on the last.

    torch releases the GIL inside its kernels, so on two or more cores the Python featurizer and
    the forward pass overlap; the forward gets one core fewer than torch would take, the
    featurizer's (torch's threads restored after). The head runs once on every chunk's readouts,
    so a model that compares candidates (``compare``) sees the whole set, or the set
    ``set_mean(readouts)`` returns (:meth:`~tvm_gnn.nn.model.GNN.score`). Returns ``(scores,
    errors)``, and with ``embeddings`` the readouts too (``[len(candidates), 2H]``, NaN rows for
    the failed); failed candidates score NaN. ``featurize(chunk, featurizer)`` turns a chunk of
    candidates into ``(arrays, ok, errors)`` (:func:`~tvm_gnn.featurize.graph.featurize_batch`,
    MetaSchedule's; :func:`~tvm_gnn.featurize.ansor.featurize_states` for Ansor's states).
    """
    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, min(threads, usable_cores() - 1)))
    try:
        out = predict_chunks(model, candidates, featurizer, chunk, set_mean, featurize)
        return out if embeddings else out[:2]
    finally:
        torch.set_num_threads(threads)


@torch.inference_mode()
def predict_chunks(
    model: GNN, candidates, featurizer, chunk: int, set_mean=None, featurize=featurize_batch
):
    from concurrent.futures import ThreadPoolExecutor

    model.eval()
    scores = np.full(len(candidates), np.nan, dtype=np.float64)
    errors: list[str] = []
    readouts, scored = [], []

    def forward(arrays, idx):
        if arrays is None:
            return
        with torch.inference_mode():  # grad mode is per thread
            readouts.append(
                model.readout(
                    arrays["x"],
                    arrays["node_type"],
                    arrays["edge_index"],
                    arrays["batch"],
                    arrays["num_graphs"],
                    arrays["edge_type"],
                )
            )
        scored.append(idx)

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = None
        for start in range(0, len(candidates), chunk):
            arrays, ok, errs = featurize(candidates[start : start + chunk], featurizer)
            errors += [f"{e} (chunk from {start})" for e in errs]
            if pending is not None:
                pending.result()
            idx = np.asarray(ok, dtype=np.int64) + start
            pending = pool.submit(forward, arrays, idx)
        if pending is not None:
            pending.result()
    emb = None
    if readouts:
        readout = torch.cat(readouts)
        mean = set_mean(readout) if set_mean is not None else None
        idx = np.concatenate(scored)
        scores[idx] = model.score(readout, set_mean=mean).numpy()
        emb = torch.full((len(candidates), readout.shape[1]), float("nan"), dtype=readout.dtype)
        emb[torch.from_numpy(idx)] = readout
    return scores, errors, emb


def rescored(model: GNN, measured, set_mean=None, readout=None):
    """``(raw scores, costs)`` of one workload's ``measured`` ``(graphs, costs)`` (None: None)
    under ``model`` as it is now, against the reference ``set_mean(readouts)`` gives a model that
    compares candidates (as :func:`predict_candidates` scores the round's candidates);
    ``readout``: the graphs' embeddings under ``model``, where the caller has them."""
    from ..nn.training import readouts

    if measured is None:
        return None
    graphs, costs = measured
    readout = readouts(model, graphs) if readout is None else readout
    mean = set_mean(readout) if set_mean is not None else None
    with torch.inference_mode():
        return model.score(readout, set_mean=mean).numpy().astype(np.float64), costs


class RoundReference:
    """Per workload, a reference taken from the first set scored since the models last changed.

    MetaSchedule's evolutionary search scores one workload in several ``predict`` calls and keeps
    the best candidates of all of them in one heap; a score that depends on a set (a blend's
    scales, a compared model's mean readout) must take that set from the round's first call for
    the calls to compare.
    """

    def __init__(self):
        self._values: dict[str, object] = {}

    def reset(self) -> None:
        """The models changed: the next set of each workload becomes its reference."""
        self._values.clear()

    def get(self, key: str, make):
        """The reference of workload ``key``, from ``make()`` if this round has none yet."""
        if key not in self._values:
            self._values[key] = make()
        return self._values[key]


def explored(scores: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    """``scores`` plus centred Gumbel noise of ``scale``: the search that keeps the best noisy
    scores draws its picks from a softmax of the scores at temperature ``scale`` (Gumbel-top-k
    sampling without replacement) instead of taking their top; NaN (failed) stays NaN."""
    noise = rng.gumbel(size=len(scores)) - np.euler_gamma
    return scores + scale * noise


def spread(scores: np.ndarray) -> float:
    """The standard deviation of the finite scores (0 without two of them)."""
    finite = scores[np.isfinite(scores)]
    return float(finite.std()) if len(finite) > 1 else 0.0
