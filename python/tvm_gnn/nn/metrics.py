# Licensed under the Apache License, Version 2.0.
"""Ranking metrics, computed within workloads (groups). Pure numpy; no tvm, no torch."""

from __future__ import annotations

import numpy as np


def _by_group(groups: np.ndarray):
    groups = np.asarray(groups)
    for g in np.unique(groups):
        yield g, np.nonzero(groups == g)[0]


def pairwise_accuracy(scores, labels, groups) -> float:
    """Fraction of candidate pairs with different labels that ``scores`` order like ``labels``.

    Computed within each group (workload) and averaged over groups that have at least one such
    pair. Ties in ``scores`` count as half right. Returns NaN when no group has a pair.
    """
    scores, labels = np.asarray(scores, np.float64), np.asarray(labels, np.float64)
    accs = []
    for _, idx in _by_group(groups):
        s, y = scores[idx], labels[idx]
        dy = np.sign(y[:, None] - y[None, :])
        ds = np.sign(s[:, None] - s[None, :])
        mask = dy > 0  # each unordered pair with distinct labels, once
        n = mask.sum()
        if n == 0:
            continue
        agree = (ds[mask] > 0).sum() + 0.5 * (ds[mask] == 0).sum()
        accs.append(agree / n)
    return float(np.mean(accs)) if accs else float("nan")


def mean_top1(scores, labels, groups) -> float:
    """The label of each group's highest-scored candidate over the group's best label, averaged
    over groups (ties go to the first candidate).

    With labels that are throughputs (``1 / latency``) this is, per workload, the best latency
    over the latency of the model's pick: :func:`topk_score` at k = 1 for a single task, averaged
    over workloads without task weights. Groups whose best label is not positive are skipped;
    NaN when none is left.
    """
    scores, labels = np.asarray(scores, np.float64), np.asarray(labels, np.float64)
    ratios = []
    for _, idx in _by_group(groups):
        best = labels[idx].max()
        if best > 0:
            ratios.append(labels[idx][np.argmax(scores[idx])] / best)
    return float(np.mean(ratios)) if ratios else float("nan")


def topk_score(scores, costs, groups, weights=None, k: int = 1) -> float:
    """TenSet's top-k score for one network.

    ``sum_g w_g * best_cost_g / sum_g w_g * best cost among the k candidates of group g that
    ``scores`` ranks highest``. 1.0 means the model's top-k always contains the best program.

    Parameters
    ----------
    scores : array
        Model scores, higher is better.
    costs : array
        Measured latencies (seconds), lower is better.
    groups : array
        Group (task) id per candidate.
    weights : dict, optional
        Task weight (how often the network runs the task) by group id; 1 when missing.
    k : int
        How many of the model's picks to measure.
    """
    scores, costs = np.asarray(scores, np.float64), np.asarray(costs, np.float64)
    num = den = 0.0
    for g, idx in _by_group(groups):
        w = 1.0 if weights is None else float(weights.get(g, 1.0))
        picks = idx[np.argsort(-scores[idx], kind="stable")[:k]]
        num += w * costs[idx].min()
        den += w * costs[picks].min()
    return num / den if den > 0 else float("nan")
