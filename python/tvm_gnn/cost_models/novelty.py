# Licensed under the Apache License, Version 2.0.
"""Exploration directed by what has been measured (issue 85, item 3; docs/tuning.md).

The GNN-guided search measures near-copies of its favourites. :class:`Novelty` adds to each
candidate's raw score a bonus that grows with its distance, in the GNN's own embedding space
(the readout before the head), to the nearest program of its workload measured so far:

    bonus_i = w * spread * d_i / median(d)

where ``d_i`` is that distance, ``spread`` the standard deviation of the scores and the median
is over the round's first scored set (so the several ``predict`` calls of one search round score
alike, :class:`~tvm_gnn.cost_models.scoring.RoundReference`), and ``w`` is the weight: a
candidate as far from everything measured as the round's median one gains ``w`` standard
deviations of score. Option (b) keeps ``w`` fixed.

Option (d), ``adaptive``: the weight follows how well the model ranked the last batch it was
given to learn from, an out-of-sample check that each round gets for free. Before the model
learns from a batch, it scores the batch; ``w_t = w * (1 - max(tau, 0))`` with ``tau`` Kendall's
rank correlation of those scores with the measured throughputs: a model that ranked the last
batch perfectly exploits, one that ranked it no better than chance explores with the full
weight (AdaTune's idea of exploration set by the surrogate's accuracy).
"""

from __future__ import annotations

import numpy as np
import torch

from ..costs import FAILED_COST
from .online import measured_readouts
from .scoring import RoundReference, rescored, spread


class Novelty:
    """The novelty bonus of one ``GNNModel`` (see the module docstring)."""

    def __init__(self, weight: float, adaptive: bool = False):
        if not (weight >= 0 and np.isfinite(weight)):
            raise ValueError(f"novelty weight must be a finite number >= 0, got {weight!r}")
        self.weight, self.adaptive = float(weight), adaptive
        self.tau: float | None = None  # the last batch's rank correlation (adaptive)
        self._reference = RoundReference()

    @classmethod
    def of(cls, weight: float, adaptive: bool = False):
        """``GNNModel``'s options: a Novelty, or None for weight 0."""
        if adaptive and not weight:
            raise ValueError("adaptive sets the novelty weight: give novelty > 0 with it")
        return cls(weight, adaptive) if weight else None

    @property
    def current(self) -> float:
        """The weight this round scores with."""
        if not self.adaptive or self.tau is None:
            return self.weight
        return self.weight * (1.0 - max(self.tau, 0.0))

    def reset(self) -> None:
        """The models changed (an ``update``): the next scored set is the round's reference."""
        self._reference.reset()

    def observe(self, scores: np.ndarray, costs: np.ndarray) -> None:
        """The scores the model gave a batch before learning from it, and the batch's measured
        costs (``FAILED_COST``: failed); sets :attr:`tau` where at least two of it ran."""
        from scipy.stats import kendalltau

        ok = np.isfinite(scores) & (costs > 0) & (costs < FAILED_COST)
        if ok.sum() < 2:
            return
        tau = kendalltau(scores[ok], -np.log(costs[ok])).statistic
        self.tau = float(tau) if np.isfinite(tau) else 0.0

    def learn(self, model, graphs: list, costs: list) -> None:
        """Before ``model`` learns a new batch (``graphs``, ``costs``): how well it ranks it
        (``adaptive``; against the batch's own mean, not the round's, for a model that compares)."""
        if not self.adaptive:
            return
        own = (lambda r: r.mean(dim=0)) if model.config.compare else None
        self.observe(*rescored(model, (graphs, np.asarray(costs, dtype=float)), own))

    def bonus(self, model, key: str, scores, emb, measured, cache: dict) -> np.ndarray:
        """:meth:`scored` with the embeddings of workload ``key``'s ``measured`` ``(graphs,
        costs)`` under ``model`` (kept in ``cache``, :func:`.online.measured_readouts`)."""
        if emb is None or measured is None:
            return scores
        return self.scored(key, scores, emb, measured_readouts(model, key, measured[0], cache))

    def scored(self, key: str, scores: np.ndarray, emb: torch.Tensor, measured) -> np.ndarray:
        """``scores`` plus the bonus; ``emb`` the candidates' embeddings (rows of failed ones
        NaN, their scores stay NaN), ``measured`` those of the workload's measured programs."""
        w = self.current
        if w == 0.0 or measured is None or len(measured) == 0:
            return scores
        ok = np.isfinite(scores)
        if not ok.any():
            return scores
        d = np.full(len(scores), np.nan)
        with torch.inference_mode():
            rows = emb[torch.from_numpy(ok)].to(measured.dtype)
            # exact differences: the matrix-product form cdist takes for many rows cancels to
            # ~1e-3 where two embeddings are equal, a bonus for a program already measured
            near = torch.cdist(rows, measured, compute_mode="donot_use_mm_for_euclid_dist")
            d[ok] = near.min(dim=1).values.double().numpy()
        ref_d, ref_s = self._reference.get(key, lambda: (float(np.median(d[ok])), spread(scores)))
        if not ref_d > 0 or not ref_s > 0:
            return scores
        return scores + w * ref_s * d / ref_d
