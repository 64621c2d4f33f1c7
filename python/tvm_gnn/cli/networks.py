# Licensed under the Apache License, Version 2.0.
"""``--network`` of ``collect`` and ``dataset-stats``: names, and the groups that stand for many."""

from __future__ import annotations

from .common import UsageError


def network_names(values: list[str]) -> list[str]:
    from ..dataset.splits import HELD_OUT
    from ..measure.networks import NETWORKS, SYNTHETIC

    real = [n for n in NETWORKS if n != "tiny_cnn"]
    names = []
    for v in values:
        if v == "all":
            names += real + list(SYNTHETIC)
        elif v == "held-out":
            names += list(HELD_OUT)
        elif v == "training":
            names += [n for n in real if n not in HELD_OUT] + list(SYNTHETIC)
        elif v == "synthetic":
            names += list(SYNTHETIC)
        elif v in NETWORKS or v in SYNTHETIC:
            names.append(v)
        else:
            raise UsageError(
                f"unknown network {v!r}; choose from "
                f"{', '.join([*NETWORKS, *SYNTHETIC])}, or all, held-out, training, "
                "synthetic"
            )
    return list(dict.fromkeys(names))
