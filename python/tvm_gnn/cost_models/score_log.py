# Licensed under the Apache License, Version 2.0.
"""``ScoreLog``: any cost model passed through, keeping what MetaSchedule breeds from.

MetaSchedule's evolutionary search (``evolutionary_search.cc`` of the pinned wheel) clips every
score at 0, keeps the best-scored candidates in a heap, and draws each generation's parents with
probability proportional to the clipped score. How many parents a search really breeds from is
therefore a property of the scores' scale, not only of their order. For each ``predict`` call of
at least :data:`MIN_CANDIDATES` candidates the log keeps three numbers:

- how many candidates were scored;
- the share of the clipped scores' sum that the top tenth of them holds (:func:`top_share`;
  uniform random scores give about 0.19, equal scores 0.10, one positive score 1.0);
- the share of scores <= 0, which are never drawn as parents.

``tune_tasks.py`` wraps every run's cost model in one and writes the calls into ``run.json``.
"""

from __future__ import annotations

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir.meta_schedule.cost_model import PyCostModel

#: calls scoring fewer candidates (a round's last few) say nothing about a population's weights
MIN_CANDIDATES = 10


def top_share(scores, top: float = 0.1) -> float | None:
    """The share of ``max(score, 0)``'s sum that the best ``top`` fraction of ``scores`` holds
    (MetaSchedule's drawing weights), or None when no score is above 0 (nothing can be drawn)."""
    weights = np.clip(np.asarray(scores, dtype=np.float64), 0.0, None)
    weights = weights[np.isfinite(weights)]
    total = weights.sum()
    if weights.size == 0 or total <= 0:
        return None
    k = max(1, int(round(top * weights.size)))
    return float(np.sort(weights)[-k:].sum() / total)


def summary(scores) -> list | None:
    """``[candidates, top tenth's share or None, share <= 0]`` of one call, or None for a call
    of fewer than :data:`MIN_CANDIDATES`."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.size < MIN_CANDIDATES:
        return None
    share = top_share(scores)
    return [
        int(scores.size),
        None if share is None else round(share, 4),
        round(float(np.mean(~(scores > 0))), 4),
    ]


@derived_object  # TVM's rule: the decorated class is what MetaSchedule calls
class ScoreLog(PyCostModel):
    """``inner``, unchanged, with :attr:`calls`: one :func:`summary` per ``predict`` call."""

    def __init__(self, inner):
        super().__init__()
        self.inner = inner
        self.calls: list[list] = []

    def load(self, path: str) -> None:
        self.inner.load(path)

    def save(self, path: str) -> None:
        self.inner.save(path)

    def update(self, context, candidates, results) -> None:
        self.inner.update(context, candidates, results)

    def predict(self, context, candidates) -> np.ndarray:
        scores = np.asarray(self.inner.predict(context, candidates), dtype=np.float64)
        row = summary(scores)
        if row is not None:
            self.calls.append(row)
        return scores
