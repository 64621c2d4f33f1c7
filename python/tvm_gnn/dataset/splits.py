# Licensed under the Apache License, Version 2.0.
"""The dataset's splits: the held-out networks (:data:`HELD_OUT`), and train / test splits of
samples by network, by workload, or at random within a workload."""

from __future__ import annotations

import numpy as np

from .records import Sample

SPLITS = ("network", "workload", "random")

#: The held-out networks: never trained on; the GNN is evaluated on them.
HELD_OUT = ("resnet18", "mobilenet_v2", "inception_v3")


def split(samples_: list[Sample], by: str, test, seed: int = 0, test_fraction: float = 0.2):
    """Indices ``(train, test)``.

    ``by="network"``: ``test`` is a collection of network names. ``by="workload"``: a random
    ``test_fraction`` of workloads (``test`` ignored). ``by="random"``: a random ``test_fraction``
    of each workload's samples.
    """
    if by not in SPLITS:
        raise ValueError(f"unknown split {by!r}; choose one of {SPLITS}")
    rng = np.random.default_rng(seed)
    idx = np.arange(len(samples_))
    if by == "network":
        is_test = np.array([s.network in set(test) for s in samples_], dtype=bool)
    elif by == "workload":
        wls = sorted({s.shash for s in samples_})
        chosen = set(rng.choice(wls, size=max(1, round(len(wls) * test_fraction)), replace=False))
        is_test = np.array([s.shash in chosen for s in samples_], dtype=bool)
    else:
        is_test = np.zeros(len(samples_), dtype=bool)
        groups: dict[str, list[int]] = {}
        for i, s in enumerate(samples_):
            groups.setdefault(s.shash, []).append(i)
        for members in groups.values():
            k = max(1, round(len(members) * test_fraction)) if len(members) > 1 else 0
            is_test[rng.choice(members, size=k, replace=False)] = True
    return idx[~is_test], idx[is_test]
