# Licensed under the Apache License, Version 2.0.
"""A diversity-aware choice of each round's batch (issue 85, item 3, option c; docs/tuning.md).

The GNN-guided evolutionary search measures near-copies of its favourites: the round's batch is
the top of one heap of scores, and the best-scored programs of a round are mostly mutations of
one another. :class:`DiverseSearch` wraps MetaSchedule's ``EvolutionarySearch``: the search
proposes ``widen`` x the batch (its top, and as many random picks as it would measure in a plain
round), the GNN embeds them (the readout before its head), k-means splits the embeddings into as
many clusters as the batch has places, and the batch is the best-scored program of each
cluster (representatives of clusters of the search's top candidates, Chameleon's idea of
adaptive sampling). The round's best-scored program is always measured; its near-copies give
their places to programs unlike it. The proposals left unmeasured are not proposed again
(MetaSchedule's search counts what it hands out as measured).
"""

from __future__ import annotations

import logging

import numpy as np
from tvm.ir.utils import derived_object
from tvm.s_tir import meta_schedule as ms
from tvm.s_tir.meta_schedule.search_strategy import PySearchStrategy

from ..cost_models.scoring import predict_candidates
from ..measure.runner import EPS_GREEDY, SEARCH_POPULATION

logger = logging.getLogger(__name__)

#: proposals per place in the batch: ``tvm-gnn tune --diverse``'s and ``gnn-diverse``'s value
WIDEN = 4


def representatives(scores: np.ndarray, emb: np.ndarray, k: int, seed: int) -> list[int]:
    """Indices of ``k`` of the rows: the best-scored of each of ``k`` k-means clusters of
    ``emb``, best first; rows that could not be embedded (NaN) and places left by empty clusters
    go to the best-scored rows not yet chosen."""
    from scipy.cluster.vq import kmeans2

    n = len(scores)
    k = min(k, n)
    order = np.argsort(-np.nan_to_num(scores, nan=-np.inf), kind="stable")
    ok = np.isfinite(scores) & np.isfinite(emb).all(axis=1)
    chosen: list[int] = []
    if ok.sum() > k:
        rows = emb[ok].astype(np.float64)
        _, label = kmeans2(rows, k, minit="++", seed=seed)
        members = np.full(n, -1)
        members[ok] = label
        seen = set()
        for i in order:  # best first: a cluster's first row is its best-scored
            if ok[i] and members[i] not in seen:
                seen.add(members[i])
                chosen.append(int(i))
    for i in order:  # empty clusters, and a round with no more rows than places
        if len(chosen) == k:
            break
        if i not in chosen:
            chosen.append(int(i))
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    return sorted(chosen, key=lambda i: rank[i])


def gnn_of(cost_model):
    """The GNNModel inside ``cost_model`` (itself, or the ``inner`` of wrappers such as the
    benchmark's ``ScoreLog``); a clear error for a cost model without a GNN to embed with."""
    model = cost_model
    while model is not None and not hasattr(model, "featurizer"):
        model = getattr(model, "inner", None)
    if model is None:
        raise ValueError("a diverse batch clusters the GNN's embeddings: it needs a GNN cost model")
    return model


@derived_object  # TVM's rule: the decorated class is what MetaSchedule calls
class DiverseSearch(PySearchStrategy):
    """``EvolutionarySearch`` whose batch is cluster representatives of ``widen`` x its top.

    Parameters
    ----------
    gnn : GNNModel
        Embeds and scores the proposals (the search's cost model, or its GNN; :func:`gnn_of`).
    widen : int
        Proposals per place in the batch (:data:`WIDEN`); 1 is the plain evolutionary search.
    population, eps_greedy : int, float
        ``EvolutionarySearch``'s; the proposals hold as many random picks as a plain search's
        batch would.
    seed : int
        Seeds the k-means of each round.
    """

    def __init__(
        self,
        gnn,
        *,
        widen: int = WIDEN,
        population: int = SEARCH_POPULATION,
        eps_greedy: float = EPS_GREEDY,
        seed: int = 0,
    ):
        if not (isinstance(widen, int) and widen >= 1):
            raise ValueError(f"widen is a whole number >= 1, got {widen!r}")
        self.gnn, self.widen, self.seed = gnn_of(gnn), widen, seed
        self.population, self.eps_greedy = population, eps_greedy
        self.inner = None  # pre_tuning makes it: its random share depends on the batch
        self.context = None
        self.max_trials = self.per_iter = self.done = self.rounds = 0

    def _initialize_with_tune_context(self, context) -> None:
        self.context = context

    def pre_tuning(self, max_trials, num_trials_per_iter, design_spaces, database, cost_model):
        self.max_trials, self.per_iter, self.done = max_trials, num_trials_per_iter, 0
        wide = num_trials_per_iter * self.widen
        # as many random proposals as the plain search would measure in a round (MetaSchedule
        # takes int(batch x eps_greedy) of them: none of 16 at 0.05), so that the batch differs
        # from the plain search's by the diverse choice alone
        randoms = int(num_trials_per_iter * self.eps_greedy)
        self.inner = ms.search_strategy.EvolutionarySearch(
            population_size=self.population, eps_greedy=(randoms + 0.5) / wide
        )
        self.inner._initialize_with_tune_context(self.context)
        # the search stops at its own max_trials, counted in measured programs: with room for a
        # last full proposal, this wrapper's count is what ends the run
        self.inner.pre_tuning(max_trials + wide, wide, design_spaces, database, cost_model)

    def post_tuning(self) -> None:
        self.inner.post_tuning()

    def generate_measure_candidates(self):
        if self.done >= self.max_trials:
            return None
        proposals = self.inner.generate_measure_candidates()
        if proposals is None:
            return None
        proposals = list(proposals)
        k = min(self.per_iter, self.max_trials - self.done)
        if len(proposals) <= k:
            return proposals
        g = self.gnn
        with ms.Profiler.timeit("DiverseSearch/Embed"):  # the cost model's time (tune.COST_...)
            scores, errors, emb = predict_candidates(
                g.model, proposals, g.featurizer, g.predict_batch_size, embeddings=True
            )
        if errors:
            logger.warning("DiverseSearch: %d proposal(s) not featurized", len(errors))
        self.rounds += 1
        picks = representatives(scores, emb.double().numpy(), k, self.seed * 7919 + self.rounds)
        return [proposals[i] for i in picks]

    def notify_runner_results(self, measure_candidates, results) -> None:
        self.done += len(results)
        self.inner.notify_runner_results(measure_candidates, results)

    def clone(self):
        return DiverseSearch(
            self.gnn,
            widen=self.widen,
            population=self.population,
            eps_greedy=self.eps_greedy,
            seed=self.seed,
        )
