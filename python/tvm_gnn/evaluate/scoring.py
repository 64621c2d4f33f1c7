# Licensed under the Apache License, Version 2.0.
"""Scoring measured groups with a cost model and the ranking metrics of a network, for any
tuner: a group's ``context`` and ``candidates`` are what the model's ``predict`` takes
(MetaSchedule's TuneContext and candidates, Ansor's SearchTask and states)."""

from __future__ import annotations

import time

import numpy as np

from ..dataset.groups import Group
from ..nn.metrics import pairwise_accuracy, pairwise_by_group, topk_score
from ..progress import bar

#: Models ``evaluate`` knows, in table order (Ansor's evaluation: gnn, xgb, random).
MODELS = ("gnn", "gnn-learned-emb", "gnn-no-topk", "xgb", "xgb-native", "mlp", "random")

#: bootstrap resamples of the error ratio's interval
BOOTSTRAP = 2000


def score_model(model, groups: list[Group], progress: bool = False, desc: str = "predict"):
    """Scores per group from ``model.predict``, and the candidates/s it achieved."""
    scores, seconds, count = [], 0.0, 0
    for g in bar(groups, desc, progress):
        start = time.perf_counter()
        s = np.asarray(model.predict(g.context, g.candidates), dtype=np.float64)
        seconds += time.perf_counter() - start
        count += len(g.candidates)
        scores.append(s)
    return scores, (count / seconds if seconds > 0 else float("nan"))


def _flatten(groups: list[Group], scores) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Scores, latencies and group index of every candidate of ``groups``, concatenated."""
    s = np.concatenate(scores)
    lat = np.concatenate([np.asarray(g.latencies) for g in groups])
    gid = np.concatenate([np.full(len(g.latencies), i) for i, g in enumerate(groups)])
    return s, lat, gid


def network_metrics(groups: list[Group], scores: list[np.ndarray]) -> dict:
    """Pairwise accuracy and top-1/top-5 of one network's groups."""
    if not groups:
        return {
            "workloads": 0,
            "candidates": 0,
            "pairwise": float("nan"),
            "top1": float("nan"),
            "top5": float("nan"),
        }
    s, lat, gid = _flatten(groups, scores)
    weights = {i: g.weight for i, g in enumerate(groups)}
    return {
        "workloads": len(groups),
        "candidates": len(lat),
        # labels: throughput (1/latency), so higher is better like the scores
        "pairwise": pairwise_accuracy(s, 1.0 / lat, gid),
        "top1": topk_score(s, lat, gid, weights, k=1),
        "top5": topk_score(s, lat, gid, weights, k=5),
    }


def workload_pairwise(groups: list[Group], scores) -> np.ndarray:
    """Pairwise accuracy of each group (NaN: no two latencies differ), in ``groups`` order."""
    if not groups:
        return np.zeros(0)
    s, lat, gid = _flatten(groups, scores)
    return pairwise_by_group(s, 1.0 / lat, gid)
