# Licensed under the Apache License, Version 2.0.
"""The GNN cost model with no tuner: weights, online data, online learning, save and load.

A tuner's door (:mod:`.ansor` for Ansor's ``PythonBasedModel``) turns its own candidates into
graphs and its measurements into costs, and calls this core:

- :meth:`GNNCore.scores`: raw scores of a workload's candidates (higher is predicted faster;
  NaN where a candidate could not be featurized), against the round's reference set for a model
  that compares candidates (:class:`.scoring.RoundReference`);
- :meth:`GNNCore.add`: measured graphs and their costs (``FAILED_COST`` for a failed run), which
  retrain the GNN as XGBModel retrains, once the data grew by a fifth (:data:`MIN_NEW_SAMPLES` at
  least), with :data:`~.online.ONLINE_TRAIN`;
- :meth:`GNNCore.measured`: a workload's measured programs rescored by the model as it is now,
  which the calibration (:mod:`.calibration`) fits;
- :meth:`GNNCore.save` / :meth:`GNNCore.load`: everything above, in one checkpoint
  (:mod:`tvm_gnn.nn.checkpoint`); a load that fails leaves the core as it was.
"""

from __future__ import annotations

import dataclasses
import logging
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from ..errors import CheckpointError
from ..nn import checkpoint as ckpt
from ..nn.batch import pack_graphs
from ..nn.model import default_gnn
from ..nn.schema import FeaturizerConfig
from ..nn.training import TrainConfig, fit
from ..resources import PRETRAINED
from .calibration import prior_of
from .online import (
    MIN_NEW_SAMPLES,
    ONLINE_TRAIN,
    append_online,
    measured_scores,
    online_data,
    training_graphs,
)
from .scoring import RoundReference, predict_candidates

logger = logging.getLogger(__name__)

#: readouts kept per workload for :meth:`GNNCore.scores`' ``ids`` (2H floats each: 256 bytes
#: for the shipped GNN), past which the workload's are dropped
MAX_CACHED_PROGRAMS = 65536


class GNNCore:
    """The GNN, its online data and its online retraining (see the module docstring).

    Parameters
    ----------
    checkpoint : str or Path, optional
        Start from these weights instead of the shipped ones.
    pretrained : bool
        Without ``checkpoint``: the shipped weights (default), or a new GNN (``False``), whose
        scores are not used until ``num_warmup_samples`` measurements (:attr:`trained`).
    num_warmup_samples : int
        Measurements before a new GNN first trains (XGBModel's default, 100).
    train_config : TrainConfig, optional
        Online retraining; default :data:`~.online.ONLINE_TRAIN`.
    seed : int
        Seeds a new GNN's weights and every retrain.
    predict_batch_size : int
        Candidates featurized per chunk while the GNN scores the previous one.
    """

    def __init__(
        self,
        *,
        checkpoint: str | Path | None = None,
        pretrained: bool = True,
        num_warmup_samples: int = 100,
        train_config: TrainConfig | None = None,
        seed: int = 0,
        predict_batch_size: int = 128,
    ):
        if predict_batch_size < 1:
            raise ValueError(f"predict_batch_size is at least 1, not {predict_batch_size}")
        self.num_warmup_samples = num_warmup_samples
        self.train_config = train_config or ONLINE_TRAIN
        self.seed = seed
        self.predict_batch_size = predict_batch_size
        self.data: dict[str, tuple[list, np.ndarray]] = {}  # workload -> (graphs, costs)
        self.data_size = 0
        self.last_train_size = 0
        self.trained = False
        self.prior_slope: float | None = None
        self.reference = RoundReference()  # the mean readout a compare model scores against
        self._readouts: dict[str, torch.Tensor] = {}  # workload -> measured graphs' embeddings
        self._programs: dict[str, dict] = {}  # workload -> program id -> its readout
        if checkpoint is None and pretrained:
            checkpoint = PRETRAINED
        if checkpoint is not None:
            self.load(str(checkpoint))
        else:
            torch.manual_seed(seed)
            self.model = default_gnn()
            self.featurizer = FeaturizerConfig()

    # -- persistence ---------------------------------------------------------------------------
    def load(self, path: str) -> None:
        """Weights, featurizer, online data and calibration prior from a checkpoint; a
        :class:`~tvm_gnn.errors.CheckpointError` naming the file, and no change, if it fails."""
        saved = read_saved(path)
        self.model, self.featurizer, self.trained = saved.model, saved.featurizer, saved.trained
        self.data, self.data_size = saved.data, saved.data_size
        self.last_train_size, self.prior_slope = saved.last_train_size, saved.prior_slope
        self.changed()

    def save(self, path: str) -> None:
        """Weights, featurizer, vocabulary, online data and calibration prior, atomically."""
        write_saved(
            path,
            self.model,
            self.featurizer,
            self.trained,
            self.data,
            self.last_train_size,
            self.prior_slope,
        )

    # -- learning ------------------------------------------------------------------------------
    def changed(self) -> None:
        """New measurements or weights: every reference and cached embedding is stale."""
        self.reference.reset()
        self._readouts = {}
        self._programs = {}

    def add(self, key: str, graphs: list, costs) -> bool:
        """Add workload ``key``'s measured ``graphs`` and ``costs``; retrain when due. Returns
        whether the GNN retrained."""
        if len(graphs) != len(costs):
            raise ValueError(f"{len(graphs)} graphs and {len(costs)} costs: one cost a graph")
        self.reference.reset()
        if not graphs:
            return False
        append_online(self.data, key, graphs, costs)
        self.data_size += len(graphs)
        if not retrain_due(
            self.trained, self.data_size, self.last_train_size, self.num_warmup_samples
        ):
            return False
        return self.retrain()

    def retrain(self) -> bool:
        """Train the GNN on every measurement so far (:data:`~.online.ONLINE_TRAIN`)."""
        train = training_graphs(self.data)
        if not train:
            return False
        hist = fit(self.model, train, None, dataclasses.replace(self.train_config, seed=self.seed))
        self.changed()
        self.last_train_size = self.data_size
        self.trained = True
        logger.info(
            "GNN retrained on %d graphs in %.1fs (loss %.4f)",
            len(train),
            hist.seconds,
            hist.train_loss[-1],
        )
        return True

    # -- scoring -------------------------------------------------------------------------------
    def _set_mean(self, key: str):
        if not self.model.config.compare:
            return None
        return lambda readout: self.reference.get(key, lambda: readout.mean(dim=0))

    def scores(self, key: str, candidates, featurize, ids: list) -> tuple[np.ndarray, list[str]]:
        """Raw scores of workload ``key``'s ``candidates`` (NaN where ``featurize``, as in
        :func:`.scoring.predict_candidates`, failed) and the failures' messages.

        ``ids``: one hashable per candidate, equal for equal programs. Each program's readout is
        kept until the weights change, and a program scored again (Ansor's search scores its
        first population twice a round, and draws some programs again) is not featurized
        again: only the head runs on it."""
        if len(ids) != len(candidates):
            raise ValueError(f"{len(ids)} ids for {len(candidates)} candidates: one each")
        cache = self._programs.setdefault(key, {})
        if len(cache) + len(candidates) > MAX_CACHED_PROGRAMS:
            cache.clear()
        todo = list(dict.fromkeys(i for i in ids if i not in cache))
        errors: list[str] = []
        if todo:
            where = {i: n for n, i in enumerate(ids)}
            fresh = [candidates[where[i]] for i in todo]
            _, errors, emb = predict_candidates(
                self.model,
                fresh,
                self.featurizer,
                self.predict_batch_size,
                None,
                embeddings=True,
                featurize=featurize,
            )
            rows = [None] * len(todo) if emb is None else list(emb)
            cache.update(
                (i, None if r is None or torch.isnan(r[0]) else r) for i, r in zip(todo, rows)
            )
        ok = np.array([cache[i] is not None for i in ids])
        scores = np.full(len(ids), np.nan, dtype=np.float64)
        if ok.any():
            readout = torch.stack([cache[i] for i, good in zip(ids, ok) if good])  # [N_ok, 2H]
            set_mean = self._set_mean(key)
            mean = set_mean(readout) if set_mean is not None else None
            with torch.inference_mode():
                scores[ok] = self.model.score(readout, set_mean=mean).numpy()
        if not errors and not ok.all():
            errors = [f"{int((~ok).sum())} candidate(s) that failed before"]
        return scores, errors

    def measured(self, key: str):
        """``(raw scores, costs)`` of workload ``key``'s measured programs under the model as
        it is now (None before any): what a calibration fits."""
        return measured_scores(
            self.model, key, self.data.get(key), self._readouts, self._set_mean(key)
        )


def retrain_due(trained: bool, data_size: int, last_train_size: int, warmup: int) -> bool:
    """Whether the online data calls for a retrain: a new GNN after ``warmup`` measurements, a
    trained one once the data grew by a fifth (and by :data:`MIN_NEW_SAMPLES`), as XGBModel."""
    if not trained:
        return data_size >= warmup
    return data_size - last_train_size >= max(last_train_size / 5, MIN_NEW_SAMPLES)


@dataclass(frozen=True)
class Saved:
    """What a GNN cost model's checkpoint holds, read and checked (:func:`read_saved`)."""

    model: torch.nn.Module
    featurizer: FeaturizerConfig
    trained: bool
    data: dict
    data_size: int
    last_train_size: int
    prior_slope: float | None


def read_saved(path: str, calibrated: bool = True) -> Saved:
    """Read and check a checkpoint whole, sidecar included, before anything is swapped in:
    :class:`~tvm_gnn.errors.CheckpointError` naming the file where any part is wrong.

    A calibration sidecar is used only by calibrated scores: with ``calibrated=False`` a bad one
    is a warning naming it, and the checkpoint loads without a prior slope."""
    model, featurizer, extra = ckpt.load(path)
    if model.config.store_dim:
        raise CheckpointError(
            f"{path}: its head reads TVM's per-store features (an offline upper bound, "
            "docs/validation.md); the GNN cost model scores candidates from their graphs alone"
        )
    data = online_data(extra.get("online_data", {}), path, model)
    data_size = sum(len(g) for g, _ in data.values())
    try:
        last_train_size = int(extra.get("last_train_size", data_size))
    except (TypeError, ValueError):
        raise CheckpointError(f"{path}: its last_train_size is not a count") from None
    trained = bool(extra.get("trained", True))
    try:
        prior = prior_of(extra, path)
    except CheckpointError as err:
        if calibrated:
            raise
        logger.warning("%s; ignored, as only calibrated scores read it", err)
        prior = None
    return Saved(model, featurizer, trained, data, data_size, last_train_size, prior)


def write_saved(path, model, featurizer, trained, data, last_train_size, prior_slope) -> None:
    """Write what :func:`read_saved` reads, atomically."""
    online = {
        key: {"graphs": pack_graphs(graphs), "costs": torch.from_numpy(costs)}
        for key, (graphs, costs) in data.items()
    }
    extra = {
        "trained": trained,
        "online_data": online,
        "last_train_size": last_train_size,
        "calibration": {"slope": prior_slope} if prior_slope else None,
    }
    ckpt.save(path, model, featurizer, extra)
