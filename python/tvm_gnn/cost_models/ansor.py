# Licensed under the Apache License, Version 2.0.
"""The GNN as Ansor's cost model (TVM 0.19's ``tvm.auto_scheduler``): the door onto
:class:`~.core.GNNCore` for Ansor's contract.

Ansor's contract (``PythonBasedModel``, ``XGBModel`` in TVM v0.19.0), and how it is met:

- ``predict(task, states)`` returns one score per state, higher is better. The evolutionary
  search draws mutation parents in proportion to ``max(score, 0)``, so the scores are in
  XGBModel's currency: predicted normalized throughput (``min_cost / cost``), positive, in the
  GNN's order (:mod:`.calibration`: per workload, ``exp(slope * raw + offset)``, the slope the
  weights' prior refitted on the workload's measurements). A state that cannot be lowered or
  featurized scores ``-inf`` (Ansor drops it), with one logged warning per call.
- ``update(inputs, results)`` keeps every measured state's graph and cost (the mean of its run
  times, ``1e10`` for a failed run: :func:`tvm_gnn.costs.ansor_cost`, as XGBModel labels them) by
  workload key, and retrains the GNN as XGBModel does, once the data grew by a fifth.
- The shipped weights score from the first round; ``pretrained=False`` scores at random until
  ``num_warmup_sample`` measurements, as XGBModel does (without lowering the states).
- ``save`` / ``load`` round-trip exactly; a failed load leaves the model as it was.

:class:`AnsorGNN` is the plain-Python model that TVM's ``auto_scheduler.GNNModel`` (the v0.19.0
series, ``patches/v0.19.0``) and :class:`GNNModel` here both wrap: one ``PythonBasedModel`` for
a TVM with the series applied, one for a TVM without it.
"""

from __future__ import annotations

import logging
from functools import partial
from pathlib import Path

import numpy as np

from ..costs import ansor_cost
from ..featurize.ansor import featurize_states, state_graphs
from ..tvm_compat import require_ansor
from .calibration import Calibration
from .core import GNNCore

require_ansor()

from tvm.auto_scheduler.cost_model.cost_model import PythonBasedModel  # noqa: E402

logger = logging.getLogger(__name__)

#: what a state that cannot be lowered or featurized scores: Ansor drops it (<= -1e10)
INVALID_SCORE = float("-inf")
#: scores are clipped into float32's normal range: Ansor reads them as float32, and a score
#: that underflows to 0 would never be drawn as a parent, one that overflows would always be
TINY, HUGE = 1e-30, 1e30


class AnsorGNN:
    """The GNN cost model for Ansor, as plain Python (see the module docstring).

    Parameters
    ----------
    checkpoint : str or Path, optional
        Start from these weights instead of the shipped ones.
    pretrained : bool
        Without ``checkpoint``: the shipped weights (default) or a new GNN (``False``).
    num_warmup_sample : int
        Measurements before a new GNN's scores are used (XGBModel's name and default).
    seed : int
        Seeds a new GNN, its training and the warm-up's random scores.
    threads : int, optional
        Threads that lower states (TVM releases the GIL while lowering); default: the usable
        cores.
    predict_batch_size : int
        States featurized per chunk while the GNN scores the previous chunk.
    """

    def __init__(
        self,
        *,
        checkpoint: str | Path | None = None,
        pretrained: bool = True,
        num_warmup_sample: int = 100,
        seed: int = 0,
        threads: int | None = None,
        predict_batch_size: int = 128,
    ):
        if threads is not None and threads < 1:
            raise ValueError(f"threads is at least 1, not {threads}")
        self.core = GNNCore(
            checkpoint=checkpoint,
            pretrained=pretrained,
            num_warmup_samples=num_warmup_sample,
            seed=seed,
            predict_batch_size=predict_batch_size,
        )
        self.threads = threads
        self._rng = np.random.default_rng(seed)
        self.calibration = self._calibration()

    def _calibration(self) -> Calibration:
        # the weights' own prior slope; weights trained without one get slope 1 on their raw
        # scores (the order is kept either way; only the draw's sharpness differs)
        return Calibration(self.core.prior_slope or 1.0)

    # -- Ansor's interface ---------------------------------------------------------------------
    def update(self, inputs, results) -> None:
        """Learn from measured states: ``MeasureInput`` and ``MeasureResult`` lists."""
        inputs, results = list(inputs), list(results)
        if len(inputs) != len(results):
            raise ValueError(
                f"update got {len(inputs)} inputs and {len(results)} results: one result each"
            )
        by_key: dict[str, tuple] = {}
        for inp, res in zip(inputs, results):
            key = str(inp.task.workload_key)
            task, states, costs = by_key.setdefault(key, (inp.task, [], []))
            states.append(inp.state)
            costs.append(ansor_cost(res.error_no, res.costs))
        for key, (task, states, costs) in by_key.items():
            graphs, errors = state_graphs(task, states, self.core.featurizer, self.threads)
            if errors:
                logger.warning(
                    "GNNModel.update: %d measured state(s) not featurized, skipped: %s",
                    len(errors),
                    errors[0],
                )
            keep = [i for i, g in enumerate(graphs) if g is not None]
            self.core.add(key, [graphs[i] for i in keep], [costs[i] for i in keep])
        self.calibration.reset()

    def predict(self, task, states) -> np.ndarray:
        """One score per state (float64): predicted normalized throughput, ``-inf`` for a
        state that cannot be lowered or featurized."""
        states = list(states)
        n = len(states)
        if n == 0:
            return np.zeros(0, dtype=np.float64)
        if not self.core.trained:
            return self._rng.uniform(0.0, 1.0, size=n)
        key = str(task.workload_key)
        featurize = partial(featurize_states, task, threads=self.threads)
        # a state's printed steps identify its program: 0.2 ms, against ~10 to lower and featurize
        raw, errors = self.core.scores(key, states, featurize, ids=[str(s) for s in states])
        if errors:
            logger.warning(
                "GNNModel.predict: %d state(s) not lowered or featurized, scored -inf: %s",
                len(errors),
                errors[0],
            )
        scores = self.calibration.scores(key, raw, partial(self.core.measured, key))
        scores = np.clip(scores, TINY, HUGE)
        return np.where(np.isnan(raw), INVALID_SCORE, scores)

    # -- persistence ---------------------------------------------------------------------------
    def save(self, path: str) -> None:
        """Weights, online data and calibration prior in one checkpoint, atomically."""
        self.core.save(str(path))
        logger.info("saved GNNModel to %s", path)

    def load(self, path: str) -> None:
        """Load a checkpoint (:class:`~tvm_gnn.errors.CheckpointError`, and no change, if it
        fails)."""
        self.core.load(str(path))
        self.calibration = self._calibration()


class GNNModel(PythonBasedModel):
    """``auto_scheduler``'s cost model interface onto :class:`AnsorGNN` (same parameters), for
    a TVM 0.19 without the v0.19.0 series; with it, ``tvm.auto_scheduler.GNNModel`` is the same.

    >>> from tvm import auto_scheduler
    >>> from tvm_gnn.cost_models.ansor import GNNModel
    >>> policy = auto_scheduler.SketchPolicy(task, program_cost_model=GNNModel())
    """

    def __init__(self, **kwargs):
        self.impl = AnsorGNN(**kwargs)
        super().__init__()

    def update(self, inputs, results):  # noqa: D102 - PythonBasedModel's
        self.impl.update(inputs, results)

    def predict(self, task, states):  # noqa: D102 - PythonBasedModel's
        return self.impl.predict(task, states)

    def save(self, file_name: str):
        """Save to a checkpoint file."""
        self.impl.save(file_name)

    def load(self, file_name: str):
        """Load a checkpoint file."""
        self.impl.load(file_name)
