# Licensed under the Apache License, Version 2.0.
"""``GNNModel``: the GNN as a MetaSchedule cost model (the thin TVM adapter).

It follows the contract of TVM's ``XGBModel``:

- ``predict`` returns one float64 score per candidate; higher is better;
- random scores until ``num_warmup_samples`` measurements arrived (unless the model starts from
  trained weights);
- a failed run costs ``1e10``; a measurement's cost is the median of its run times
  (:mod:`tvm_gnn.costs`); labels are ``min_cost / cost`` within one workload
  (``shash2hex(context.mod)``);
- ``update`` retrains online as measurements arrive (``online="full"``: the whole GNN, a few
  epochs once the data grew by a fifth; ``online="head"``: only the MLP head, on the frozen
  layers' embeddings of every measured candidate, at each update; ``online="refit"``: the whole
  GNN anew from its starting weights on every measurement);
- ``save`` -> ``load`` -> ``predict`` gives the same scores.

A candidate that cannot be featurized gets :data:`FAILED_SCORE` and a logged warning: a cost model
never stops a tuning run.
"""

from __future__ import annotations

import copy
import dataclasses
import logging
from functools import partial
from pathlib import Path

import numpy as np
import torch
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel
from tvm.s_tir.meta_schedule.utils import shash2hex

from ..costs import FAILED_SCORE, label_cost
from ..featurize.graph import featurize_candidates
from ..nn.model import default_gnn
from ..nn.schema import FeaturizerConfig
from ..nn.training import TrainConfig, fit, fit_head
from ..resources import PRETRAINED
from .calibration import calibration_of
from .core import read_saved, retrain_due, write_saved
from .ensemble import BlendScale, load_partner, make_partner, partner_ready, with_partner
from .gp import GPExplorer, measured_rows
from .novelty import Novelty
from .online import (  # noqa: F401 - the recipes are GNNModel's API, defined with the update
    HEAD_STEPS,
    MIN_NEW_SAMPLES,
    ONLINE_MODES,
    ONLINE_TRAIN,
    REFIT_TRAIN,
    append_online,
    head_rows,
    held_back,
    measured_scores,
    online_data,
    training_graphs,
)
from .scoring import RoundReference, explored, predict_candidates, spread

logger = logging.getLogger(__name__)


@derived_object
class GNNModel(PyCostModel):
    """Graph-neural-network cost model over the TIR of each candidate.

    Parameters
    ----------
    checkpoint : str or Path, optional
        Start from these trained weights (:mod:`tvm_gnn.nn.checkpoint`) instead of the shipped ones.
    pretrained : bool
        Without ``checkpoint``: start from the shipped weights (:data:`PRETRAINED`, default), or
        from scratch (``False``), scoring randomly until ``num_warmup_samples`` measurements.
    embedding : {"fasttext", "learned"}
        Node-type embedding of a model started from scratch (``pretrained=False``).
    featurizer : FeaturizerConfig, optional
        How candidates become graphs (for a model started from scratch; a checkpoint brings its
        own).
    num_warmup_samples : int
        Measurements before a from-scratch model's scores are used (XGBModel's default, 100).
    train_config : TrainConfig, optional
        Online retraining settings; defaults to :data:`ONLINE_TRAIN`.
    seed : int
        Seeds initialization, online training and the warm-up's random scores.
    predict_batch_size : int
        Candidates per chunk in ``predict``: one chunk is featurized while the GNN scores the
        previous one (128 is faster than 256 on 2 cores: docs/benchmarks.md, "Featurize + predict
        throughput").
    online : {"full", "head", "refit"}
        What ``update`` retrains (:data:`ONLINE_MODES`): the whole GNN with ``train_config``
        once the data grew by a fifth (default), or, once the model is trained, only its head
        for :data:`HEAD_STEPS` steps at every update, on the embeddings of all measured
        candidates (opt-in), or (``"refit"``, opt-in) the whole GNN once the data grew by a
        fifth, each time from the weights it started from (or loaded) on all measurements with
        :data:`REFIT_TRAIN` (``train_config`` if given), early-stopping on a held-back fifth.
    ensemble : "xgb", "native", "readout" or a cost model, optional
        Blend the scores with this partner's (:func:`.ensemble.make_partner` names them), which
        learns from the same ``update`` calls; ``save(path)`` writes it to ``path + ".partner"``.
    ensemble_top : int, optional
        Draft then verify: the partner reorders only the GNN's ``ensemble_top`` best of each
        ``predict`` call (:func:`.ensemble.reorder_top`); default: it blends every candidate.
    explore : float
        Exploration: each score gets Gumbel noise of ``explore`` x the standard deviation of the
        round's first scored set (:func:`.scoring.explored`); 0 (default): the search takes the
        GNN's top.
    calibrated : bool
        Return predicted normalized throughput (:mod:`.calibration`) instead of the raw ranking
        score (default). Needs weights with a calibration; not with ``ensemble``.
    novelty, adaptive, gp : float, bool, float
        A bonus for candidates far, in the GNN's embedding space, from the workload's measured
        programs, of weight ``novelty`` (0, default: none), with ``adaptive`` set each round by
        how well the model ranked the last batch (:mod:`.novelty`); or, ``gp`` > 0, the upper
        confidence bound (``gp`` standard deviations) of a GP on those embeddings (:mod:`.gp`).
    """

    def __init__(
        self,
        *,
        checkpoint: str | Path | None = None,
        pretrained: bool = True,
        embedding: str = "fasttext",
        featurizer: FeaturizerConfig | None = None,
        num_warmup_samples: int = 100,
        train_config: TrainConfig | None = None,
        seed: int = 0,
        predict_batch_size: int = 128,
        online: str = "full",
        ensemble=None,
        ensemble_top: int | None = None,
        explore: float = 0.0,
        calibrated: bool = False,
        novelty: float = 0.0,
        adaptive: bool = False,
        gp: float = 0.0,
    ):
        super().__init__()
        if online not in ONLINE_MODES:
            raise ValueError(f"unknown online update {online!r}; choose one of {ONLINE_MODES}")
        self.novelty = Novelty.of(novelty, adaptive)
        self.online = online
        self._readouts: dict[str, torch.Tensor] = {}  # workload -> its graphs' embeddings
        self.partner = make_partner(ensemble, seed)
        self.ensemble_top = ensemble_top
        self.explore = explore
        self.calibrated, self.prior_slope = calibrated, None  # load reads the weights' slope
        self._blend = BlendScale()
        self._reference = RoundReference()  # the mean readout a compare model scores against
        self.num_warmup_samples = num_warmup_samples
        self.train_config = train_config or (REFIT_TRAIN if online == "refit" else ONLINE_TRAIN)
        self.seed = seed
        if not isinstance(predict_batch_size, int) or predict_batch_size < 1:
            raise ValueError(f"predict_batch_size is {predict_batch_size!r}; a count >= 1")
        self.predict_batch_size = predict_batch_size
        self._rng = np.random.default_rng(seed)
        self.data: dict[str, tuple[list, np.ndarray]] = {}  # workload hash -> (graphs, costs)
        self.data_size = 0
        self.last_train_size = 0
        self.trained = False
        self._anchor = None  # the weights a refit starts from (load resets it)
        if checkpoint is None and pretrained:
            checkpoint = PRETRAINED
        if checkpoint is not None:
            self.load(str(checkpoint))
        else:
            torch.manual_seed(seed)
            self.model = default_gnn(embedding)
            self.featurizer = featurizer or FeaturizerConfig()
        self.calibration = calibration_of(self.prior_slope, calibrated, ensemble)
        self.gp = GPExplorer.of(gp, calibrated, seed)
        if getattr(self.partner, "gnn", False) is None:  # ensemble="readout": the start's GNN
            self.partner.bind(self.model, self.featurizer)

    # -- persistence ---------------------------------------------------------------------------
    def load(self, path: str) -> None:
        """Load weights, featurizer config and online data from a checkpoint.

        Raises :class:`tvm_gnn.errors.CheckpointError` naming the file if it is missing or
        corrupt.
        """
        # everything is read and checked first, then swapped in: a load that fails leaves the
        # model exactly as it was (weights, online data, partner)
        saved = read_saved(path, calibrated=self.calibrated)
        partner = self.partner
        if partner is not None and Path(path + ".partner").exists():
            partner = load_partner(partner, path + ".partner")
        self.model, self.featurizer, self.trained = saved.model, saved.featurizer, saved.trained
        self.partner = partner
        self.data, self.data_size = saved.data, saved.data_size
        self.last_train_size, self.prior_slope = saved.last_train_size, saved.prior_slope
        self.calibration = calibration_of(self.prior_slope, self.calibrated)
        self._blend.reset()
        self._reference.reset()
        self._readouts = {}
        self._anchor = None  # the weights a refit starts from: these, as loaded

    def save(self, path: str) -> None:
        """Save weights, config, vocabulary and online data, atomically."""
        write_saved(
            path,
            self.model,
            self.featurizer,
            self.trained,
            self.data,
            self.last_train_size,
            self.prior_slope,
        )
        if self.partner is not None:
            self.partner.save(path + ".partner")
        logger.info("saved GNNModel to %s", path)

    # -- MetaSchedule interface ----------------------------------------------------------------
    def update(self, context, candidates, results) -> None:
        """Add measured candidates to the online data and retrain when enough is new."""
        if len(candidates) != len(results):
            raise ValueError(
                f"GNNModel.update: {len(candidates)} candidates and {len(results)} results; "
                "give one result a candidate"
            )
        if not candidates:
            return
        self._reference.reset()
        for part in (self.calibration, self.novelty, self.gp):
            if part is not None:  # each refits or re-references at the round's first call
                part.reset()
        if self.partner is not None:
            self.partner.update(context, candidates, results)
            self._blend.reset()
        graphs, errors = featurize_candidates(candidates, self.featurizer)
        if errors:
            logger.warning(
                "GNNModel.update: %d candidate(s) not featurized, skipped: %s",
                len(errors),
                errors[0],
            )
        costs = [label_cost(r) for r in results]
        keep = [i for i, g in enumerate(graphs) if g is not None]
        if not keep:
            return
        key = shash2hex(context.mod)
        if self.novelty is not None and self.trained:  # before it learns them
            self.novelty.learn(self.model, [graphs[i] for i in keep], [costs[i] for i in keep])
        append_online(self.data, key, [graphs[i] for i in keep], [costs[i] for i in keep])
        self.data_size += len(keep)
        if not self.trained and self.data_size < self.num_warmup_samples:
            return
        if self.trained and self.online == "head":
            self._retrain_head()
            return
        if retrain_due(self.trained, self.data_size, self.last_train_size, self.num_warmup_samples):
            self._retrain()

    def _retrain(self) -> None:
        train = training_graphs(self.data)
        if not train:
            return
        cfg = dataclasses.replace(self.train_config, seed=self.seed)
        val = None
        if self.online == "refit":
            if self._anchor is None:
                self._anchor = copy.deepcopy(self.model.state_dict())
            self.model.load_state_dict(self._anchor)
            train, val = held_back(train, self.seed + self.data_size)
        hist = fit(self.model, train, val or None, cfg)
        self._readouts = {}  # the layers changed
        self.last_train_size = self.data_size
        self.trained = True
        logger.info(
            "GNNModel retrained on %d graphs in %.1fs (loss %.4f)",
            len(train),
            hist.seconds,
            hist.train_loss[-1],
        )

    def _retrain_head(self) -> None:
        """Train the head alone on the embeddings of every measured candidate."""
        rows = head_rows(self.model, self.data, self._readouts)
        if rows is None:
            return
        cfg = dataclasses.replace(self.train_config, seed=self.seed)
        loss = fit_head(self.model, *rows, HEAD_STEPS, cfg)
        self.last_train_size = self.data_size
        logger.info("GNNModel head retrained on %d graphs (loss %.4f)", self.data_size, loss)

    def predict(self, context, candidates) -> np.ndarray:
        """Score candidates: higher means predicted faster."""
        n = len(candidates)
        if n == 0:
            return np.zeros(0, dtype="float64")
        if not self.trained:
            return self._rng.uniform(0.0, 1.0, size=n).astype("float64")
        key = shash2hex(context.mod)
        scores, errors, *emb = predict_candidates(
            self.model,
            candidates,
            self.featurizer,
            self.predict_batch_size,
            self._set_mean(key),
            embeddings=self.novelty is not None or self.gp is not None,
        )
        if errors:
            logger.warning(
                "GNNModel.predict: %d candidate(s) not featurized, scored %g: %s",
                len(errors),
                FAILED_SCORE,
                errors[0],
            )
        if self.partner is not None and partner_ready(self.partner):
            scores = with_partner(
                self.partner, context, candidates, scores, self.ensemble_top, key, self._blend
            )
        if self.explore:  # the spread of the round's first set: its calls get one temperature
            std = self._reference.get(key + "/std", lambda: spread(scores))
            scores = explored(scores, self.explore * std, self._rng)
        if self.novelty is not None:
            measured = self.data.get(key)
            scores = self.novelty.bonus(self.model, key, scores, emb[0], measured, self._readouts)
        if self.calibration is not None:
            rows = (self.model, key, self.data.get(key), self._readouts, self._set_mean(key))
            measured = partial(measured_scores, *rows)
            scores = self.calibration.scores(key, scores, measured)
        if self.gp is not None:  # its rows: the cached embeddings, rescored and calibrated
            calibrate = partial(self.calibration.scores, key, measured=measured)
            scores = self.gp.scores(key, scores, emb[0], partial(measured_rows, *rows, calibrate))
        return np.where(np.isnan(scores), FAILED_SCORE, scores)

    def _set_mean(self, key: str):
        """What a model that compares candidates compares a workload's set with: the first set
        scored since the last ``update``, so that the several ``predict`` calls of one search
        round (whose heap keeps the best across generations) give comparable scores."""
        if not self.model.config.compare:
            return None
        return lambda readout: self._reference.get(key, lambda: readout.mean(dim=0))


def _own(name: str):
    def call(self, *args, **kwargs):
        return getattr(self._inst, name)(*args, **kwargs)

    call.__name__ = name
    call.__doc__ = getattr(GNNModel._cls, name).__doc__
    return call


# Python callers reach the model's own methods, so their errors keep their types and words (an
# empty ``predict`` would otherwise stop in TVM's wrapper on a NULL buffer, and an OSError of
# ``save`` would come back as a RuntimeError); TVM's C++ calls the same methods through the FFI.
for _name in ("load", "save", "update", "predict"):
    setattr(GNNModel, _name, _own(_name))
