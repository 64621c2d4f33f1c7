# Licensed under the Apache License, Version 2.0.
"""Ranking metrics, computed within workloads (groups). Pure numpy; no tvm, no torch."""

from __future__ import annotations

import numpy as np


def _by_group(groups: np.ndarray):
    groups = np.asarray(groups)
    for g in np.unique(groups):
        yield g, np.nonzero(groups == g)[0]


def pairwise_by_group(scores, labels, groups) -> np.ndarray:
    """Per group (in ``np.unique(groups)`` order), the fraction of candidate pairs with different
    labels that ``scores`` order like ``labels``; NaN for a group without such a pair. Ties in
    ``scores`` count as half right."""
    scores, labels = np.asarray(scores, np.float64), np.asarray(labels, np.float64)
    accs = []
    for _, idx in _by_group(groups):
        s, y = scores[idx], labels[idx]
        dy = np.sign(y[:, None] - y[None, :])
        ds = np.sign(s[:, None] - s[None, :])
        mask = dy > 0  # each unordered pair with distinct labels, once
        n = mask.sum()
        agree = (ds[mask] > 0).sum() + 0.5 * (ds[mask] == 0).sum()
        accs.append(agree / n if n else np.nan)
    return np.asarray(accs, np.float64)


def pairwise_accuracy(scores, labels, groups) -> float:
    """:func:`pairwise_by_group` averaged over the groups that have a pair; NaN when none has."""
    accs = pairwise_by_group(scores, labels, groups)
    accs = accs[~np.isnan(accs)]
    return float(accs.mean()) if len(accs) else float("nan")


def error_ratio(acc_a, acc_b, strata) -> float:
    """Pairwise error of model a over model b, each averaged over runs, workloads, then strata.

    ``acc_a`` (runs x workloads) and ``acc_b`` (runs x workloads, maybe another number of runs)
    hold per-workload pairwise accuracies (NaN: no pair); ``strata`` names each workload's
    network. A network's accuracy is the mean over its workloads, the average is the mean over
    networks, the error is 1 minus that, averaged over runs.
    """
    strata = np.asarray(strata)
    return _stratified_error(np.atleast_2d(acc_a), strata) / _stratified_error(
        np.atleast_2d(acc_b), strata
    )


def _stratified_error(acc: np.ndarray, strata: np.ndarray) -> float:
    per = [np.nanmean(acc[:, strata == s], axis=1) for s in np.unique(strata)]
    return float(np.mean(1.0 - np.mean(per, axis=0)))


def _bootstrap(stat, acc_a, acc_b, strata, n_boot: int, level: float, seed: int):
    """``(stat, low, high)`` of ``stat(acc_a, acc_b, strata)`` with its percentile bootstrap
    interval: each replicate draws, within every stratum, as many workloads as it has, with
    replacement, the same draw for both models and all their runs. Workloads without a pair in
    either model are left out."""
    acc_a, acc_b = np.atleast_2d(acc_a), np.atleast_2d(acc_b)
    strata = np.asarray(strata)
    keep = ~(np.isnan(acc_a).all(axis=0) | np.isnan(acc_b).all(axis=0))
    acc_a, acc_b, strata = acc_a[:, keep], acc_b[:, keep], strata[keep]
    point = stat(acc_a, acc_b, strata)
    rng = np.random.default_rng(seed)
    members = [np.nonzero(strata == s)[0] for s in np.unique(strata)]
    values = np.empty(n_boot)
    for b in range(n_boot):
        idx = np.concatenate([rng.choice(m, size=len(m), replace=True) for m in members])
        values[b] = stat(acc_a[:, idx], acc_b[:, idx], strata[idx])
    tail = (1.0 - level) / 2 * 100
    low, high = np.nanpercentile(values, [tail, 100 - tail])
    return point, float(low), float(high)


def bootstrap_error_ratio(
    acc_a, acc_b, strata, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """``(ratio, low, high)``: :func:`error_ratio` and its percentile bootstrap interval.

    Each replicate draws, within every stratum (network), as many workloads as it has, with
    replacement; the same draw applies to both models and to all their runs, so the interval
    reflects which workloads happened to be measured, with the seeds' spread averaged in.
    """
    return _bootstrap(error_ratio, acc_a, acc_b, strata, n_boot, level, seed)


def _difference(acc_a, acc_b, strata) -> float:
    return _stratified_error(acc_b, strata) - _stratified_error(acc_a, strata)


def bootstrap_pairwise_difference(
    acc_a, acc_b, strata, n_boot: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float, float]:
    """``(difference, low, high)``: model a's pairwise accuracy minus model b's (each averaged
    as :func:`error_ratio` does) and its percentile bootstrap interval, resampled as
    :func:`bootstrap_error_ratio` resamples."""
    return _bootstrap(_difference, acc_a, acc_b, strata, n_boot, level, seed)


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
