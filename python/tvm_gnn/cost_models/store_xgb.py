# Licensed under the Apache License, Version 2.0.
"""StoreXGBModel: XGBoost on tvm_gnn's own per-store features, at the walk's speed.

TVM's XGBModel spends almost all of its ``predict`` in ``PerStoreFeature`` (lowering every
candidate first, about 100 candidates/s on 2 cores). This model learns with the same booster
settings (``XGBConfig``'s defaults: depth 10, eta 0.2, gamma 0.001, min child weight 0; early
stopping after 50 rounds without a better training RMSE, as XGBModel's callback does) on the
program-level summary of :mod:`tvm_gnn.featurize.stores` (mean and max of the per-store rows,
their count), computed from the scheduled TIR without lowering. Labels are XGBModel's:
``min cost / cost`` within each workload.

It can be pretrained on records (:meth:`fit_groups`) and learns online through ``update`` as
XGBModel does (a retrain on everything once the data grew by a fifth).
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel
from tvm.s_tir.meta_schedule.utils import shash2hex

from ..costs import FAILED_SCORE, label_cost, relative_labels
from ..featurize.stores import store_summaries
from ..measure.hardware import usable_cores

logger = logging.getLogger(__name__)

#: XGBModel's booster settings (``XGBConfig()``), seed aside
BOOSTER = {"max_depth": 10, "gamma": 0.001, "min_child_weight": 0, "eta": 0.2}
#: XGBModel's rounds: at most this many, stopping after EARLY_STOP without a better fit
MAX_ROUNDS = 10000
EARLY_STOP = 50


@derived_object
class StoreXGBModel(PyCostModel):
    """XGBoost on native per-store features (see the module docstring).

    Parameters
    ----------
    seed : int
        The booster's seed and the random scores before any training.
    num_threads : int or None
        Booster threads (default: every usable core).
    num_warmup_samples : int
        Random scores until this many measurements, when not pretrained (XGBModel's 100).
    """

    def __init__(self, *, seed: int = 0, num_threads: int | None = None, num_warmup_samples=100):
        super().__init__()
        self.seed = seed
        self.num_threads = num_threads or usable_cores()
        self.num_warmup_samples = num_warmup_samples
        self.data: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # workload -> (rows, costs)
        self.data_size = 0
        self.last_train_size = 0
        self.booster = None
        self.rounds = 0
        self._rng = np.random.default_rng(seed)

    # -- training ------------------------------------------------------------------------------
    def fit_groups(self, groups) -> StoreXGBModel:
        """Pretrain on measured groups (:class:`tvm_gnn.dataset.groups.Group`), then train."""
        for g in groups:
            self._add(shash2hex(g.context.mod), g.candidates, np.asarray(g.latencies, float))
        self._train()
        return self

    def _rows(self, candidates):
        """``(rows or None, ok, errors)`` of candidates, as :func:`store_summaries` gives them:
        what the booster reads (a subclass may read something else)."""
        return store_summaries(candidates)

    def _add(self, key: str, candidates, costs: np.ndarray) -> None:
        rows, ok, errors = self._rows(candidates)
        if errors:
            logger.warning(
                "StoreXGBModel: %d candidate(s) without features, skipped: %s",
                len(errors),
                errors[0],
            )
        if rows is None:
            return
        old_rows, old_costs = self.data.get(key, (np.zeros((0, rows.shape[1])), np.zeros(0)))
        self.data[key] = (np.vstack([old_rows, rows]), np.concatenate([old_costs, costs[ok]]))
        self.data_size += len(ok)

    def _train(self) -> None:
        import xgboost as xgb

        if not self.data:
            return
        x = np.vstack([r for r, _ in self.data.values()])
        y = np.concatenate([relative_labels(c) for _, c in self.data.values()])
        d = xgb.DMatrix(x, y)
        params = dict(BOOSTER, seed=self.seed, nthread=self.num_threads, eval_metric="rmse")
        self.booster = xgb.train(
            params,
            d,
            num_boost_round=MAX_ROUNDS,
            evals=[(d, "tr")],
            early_stopping_rounds=EARLY_STOP,
            verbose_eval=False,
        )
        self.rounds = self.booster.best_iteration + 1
        self.last_train_size = self.data_size
        logger.info("StoreXGBModel trained on %d programs (%d rounds)", len(y), self.rounds)

    # -- MetaSchedule interface ----------------------------------------------------------------
    def update(self, context, candidates, results) -> None:
        """Add measured candidates; retrain once the data grew by a fifth (as XGBModel)."""
        if not candidates:
            return
        costs = np.asarray([label_cost(r) for r in results], float)
        self._add(shash2hex(context.mod), candidates, costs)
        if self.booster is None and self.data_size < self.num_warmup_samples:
            return
        if self.booster is not None and self.data_size - self.last_train_size < (
            self.last_train_size / 5
        ):
            return
        self._train()

    def predict(self, context, candidates) -> np.ndarray:
        """Score candidates: higher means predicted faster."""
        import xgboost as xgb

        n = len(candidates)
        if n == 0:
            return np.zeros(0, dtype="float64")
        if self.booster is None:
            return self._rng.uniform(0.0, 1.0, size=n).astype("float64")
        rows, ok, errors = self._rows(candidates)
        out = np.full(n, FAILED_SCORE, dtype="float64")
        if errors:
            logger.warning(
                "StoreXGBModel.predict: %d candidate(s) without features, scored %g: %s",
                len(errors),
                FAILED_SCORE,
                errors[0],
            )
        if rows is not None:
            pred = self.booster.predict(
                xgb.DMatrix(rows), iteration_range=(0, self.rounds), validate_features=False
            )
            out[ok] = pred
        return out

    def save(self, path: str) -> None:
        """The booster (XGBoost's JSON model; an empty file before any training) and the
        measured data beside it (``path + ".data.npz"``)."""
        if self.booster is not None:
            self.booster.save_model(path)
        else:
            Path(path).write_bytes(b"")
        keys = sorted(self.data)
        np.savez(
            path + ".data.npz",
            keys=np.array(keys),
            rounds=self.rounds,
            **{f"x{i}": self.data[k][0] for i, k in enumerate(keys)},
            **{f"c{i}": self.data[k][1] for i, k in enumerate(keys)},
        )

    def load(self, path: str) -> None:
        import xgboost as xgb

        self.booster = xgb.Booster(model_file=path) if Path(path).stat().st_size else None
        with np.load(path + ".data.npz") as z:
            keys = [str(k) for k in z["keys"]]
            self.rounds = int(z["rounds"])
            self.data = {k: (z[f"x{i}"], z[f"c{i}"]) for i, k in enumerate(keys)}
        self.data_size = self.last_train_size = sum(len(c) for _, c in self.data.values())
