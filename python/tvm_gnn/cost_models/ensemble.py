# Licensed under the Apache License, Version 2.0.
"""``GNNModel(ensemble="xgb")``: the GNN's scores blended with those of TVM's XGBModel.

Each model's scores are put on one scale and averaged (:func:`blend`): per model, the median and
the interquartile spread of a *reference* set of its scores map a score to
``(score - median) / spread``; the two are averaged and passed through a sigmoid, so that the
blend lies in (0, 1) as MetaSchedule wants it (its evolutionary search clips scores at 0 and
samples parents in proportion to them).

The reference (:class:`BlendScale`, a :class:`~.scoring.RoundReference`) is, per workload, the
first set scored after the models last changed. Every later set of the same search round is then
mapped by the same function, which matters: the evolutionary search keeps the best candidates of
all its generations in one heap, so it compares scores from different ``predict`` calls. Ranks
within each call would not compare.

Until the partner has learned anything (XGBModel scores at random before it has a booster and
``num_warmup_samples`` measurements), ``GNNModel`` returns the GNN's scores alone. The partner
``"xgb"`` joins after :data:`PARTNER_WARMUP` measurements rather than TVM's 100: TVM waits that
long because XGBModel alone has nothing better than random scores before, whereas in the blend
the GNN ranks the first rounds; with TVM's 100 and 16 candidates a round, the partner would join
only in the last round of a 128-trial tune.
"""

from __future__ import annotations

import logging
import os
import tempfile

import numpy as np

from ..errors import CheckpointError
from ..measure.hardware import usable_cores
from .scoring import RoundReference

logger = logging.getLogger(__name__)

#: Partner models ``GNNModel(ensemble=...)`` builds by name.
ENSEMBLES = ("xgb", "native", "readout")
#: Measurements before the partner ``"xgb"`` scores (two search rounds of 16).
PARTNER_WARMUP = 32


def make_partner(ensemble, seed: int = 0):
    """The partner cost model: ``None``, ``"xgb"`` (TVM's XGBModel from scratch, its defaults but
    a warm-up of :data:`PARTNER_WARMUP` measurements), ``"native"`` (the same learner on
    tvm_gnn's native per-store features, :class:`~.store_xgb.StoreXGBModel`, same warm-up),
    ``"readout"`` (the same learner on the frozen GNN's embeddings,
    :class:`~.readout_xgb.ReadoutXGBModel`, same warm-up; ``GNNModel`` binds its GNN to it), or
    a cost model given as is (for example :func:`~.baselines.pretrained_xgb`'s)."""
    if ensemble is None or not isinstance(ensemble, str):
        return ensemble
    if ensemble == "xgb":
        from tvm.s_tir.meta_schedule.cost_model.xgb_model import XGBConfig, XGBModel

        return XGBModel(
            num_tuning_cores=usable_cores(),
            config=XGBConfig(seed=seed),
            num_warmup_samples=PARTNER_WARMUP,
        )
    if ensemble == "native":
        from .store_xgb import StoreXGBModel

        return StoreXGBModel(seed=seed, num_warmup_samples=PARTNER_WARMUP)
    if ensemble == "readout":
        from .readout_xgb import ReadoutXGBModel

        return ReadoutXGBModel(seed=seed, num_warmup_samples=PARTNER_WARMUP)
    raise ValueError(f"unknown ensemble {ensemble!r}; choose one of {ENSEMBLES} or pass a model")


def partner_ready(partner) -> bool:
    """Whether the partner's scores mean something yet (XGBModel's rule for scoring at random)."""
    if not hasattr(partner, "booster"):
        return True
    return partner.booster is not None and partner.data_size >= partner.num_warmup_samples


def load_partner(partner, path: str):
    """``partner`` loaded from ``path`` in place. It is saved to a temporary file first, and a
    load that fails puts that back: the partner (TVM's XGBModel is a TVM object that
    ``copy.deepcopy`` cannot copy) is left as it was."""
    with tempfile.TemporaryDirectory(prefix="tvm-gnn-partner-") as tmp:
        backup = os.path.join(tmp, "partner")
        try:
            partner.save(backup)
        except Exception:  # nothing to put back (a full disk, say): loaded in place as before
            backup = None
        try:
            partner.load(path)
        except Exception as err:
            if backup is not None:
                partner.load(backup)
            if isinstance(err, CheckpointError):
                raise
            # xgboost's and numpy's own errors name no file
            raise CheckpointError(f"{path}: cannot load the partner model: {err}") from None
    return partner


def scale_of(scores: np.ndarray) -> tuple[float, float]:
    """Median and spread (interquartile range / 1.349, the standard deviation for normal
    scores; the standard deviation if that is 0; else 1) of the finite scores."""
    s = np.asarray(scores, dtype=np.float64)
    s = s[np.isfinite(s)]
    if not len(s):
        return 0.0, 1.0
    q25, med, q75 = np.percentile(s, [25, 50, 75])
    spread = (q75 - q25) / 1.349
    if not spread > 0:
        spread = float(np.std(s))
    return float(med), float(spread) if spread > 0 else 1.0


def blend(a, b, scale_a=None, scale_b=None) -> np.ndarray:
    """sigmoid of the mean of the two models' standardized scores (``scale_*`` from
    :func:`scale_of`, default: of the scores themselves). Non-finite scores of ``a`` stay as
    they are (a candidate the GNN could not featurize keeps its failure score)."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    ma, sa = scale_a or scale_of(a)
    mb, sb = scale_b or scale_of(b)
    z = 0.5 * ((a - ma) / sa + (np.nan_to_num(b, nan=mb) - mb) / sb)
    out = 1.0 / (1.0 + np.exp(-np.clip(z, -50.0, 50.0)))
    return np.where(np.isfinite(a), out, a)


class BlendScale(RoundReference):
    """Per workload, the two models' scales on the first set scored since the last update."""

    def __call__(self, key: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return blend(a, b, *self.get(key, lambda: (scale_of(a), scale_of(b))))


def reorder_top(gnn: np.ndarray, partner_of, k: int) -> np.ndarray:
    """Draft then verify: the GNN's ``k`` best-scored candidates, reordered by the blend of the
    two models' scores standardized over those ``k``; every other score stays the GNN's.

    The ``k`` candidates keep the GNN's ``k`` score values, handed out in the blend's order, so
    the scores stay on the GNN's scale across ``predict`` calls (the search compares them) and
    the partner (``partner_of(indices) -> scores``) runs on ``k`` candidates only.
    """
    gnn = np.asarray(gnn, dtype=np.float64)
    finite = np.nonzero(np.isfinite(gnn))[0]
    if len(finite) < 2 or k < 2:
        return gnn
    top = finite[np.argsort(-gnn[finite], kind="stable")[:k]]
    other = partner_of(top)
    if other is None:
        return gnn
    order = top[np.argsort(-blend(gnn[top], np.asarray(other, dtype=np.float64)), kind="stable")]
    out = gnn.copy()
    out[order] = np.sort(gnn[top])[::-1]
    return out


def with_partner(partner, context, candidates, scores, top, key, scale: BlendScale):
    """The GNN's ``scores`` with a ready partner's: blended over every candidate (``top`` None,
    on the round's fixed ``scale``) or verifying the GNN's ``top`` best (:func:`reorder_top`).
    A partner that fails leaves the GNN's scores, with a warning."""

    def partner_of(idx):
        try:
            chosen = candidates if idx is None else [candidates[i] for i in idx]
            return np.asarray(partner.predict(context, chosen), dtype=np.float64)
        except Exception as err:  # noqa: BLE001 - a cost model never stops a tuning run
            logger.warning("GNNModel.predict: the ensemble partner failed, GNN alone: %r", err)
            return None

    if top is not None:
        return reorder_top(scores, partner_of, top)
    other = partner_of(None)
    return scores if other is None else scale(key, scores, other)
