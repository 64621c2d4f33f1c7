# Licensed under the Apache License, Version 2.0.
"""What every row of ``tvm-gnn eval`` trains on: the records its GNN checkpoints were trained on.

The baselines are trained in the evaluation run on exactly those records, so every row sees the
same data; checkpoints that saw a network under test, or different records, are refused.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from .. import dataset
from ..dataset.splits import HELD_OUT
from ..errors import EvaluationError
from ..nn.checkpoint import read_info

logger = logging.getLogger(__name__)


def checkpoint_infos(checkpoints: dict, models, held_out) -> dict[str, list[dict]]:
    """What each GNN checkpoint among ``models`` recorded when it was trained, read once.

    Refuses a checkpoint that does not record its training networks, one that saw a network it is
    evaluated on, and checkpoints trained on different networks: the baselines are trained on
    exactly the GNNs' networks, so that every row sees the same records.
    """
    infos, seen = {}, {}
    for name in models:
        if not name.startswith("gnn"):
            continue
        if not checkpoints.get(name):
            raise EvaluationError(f"no checkpoint given for {name}")
        infos[name] = []
        for path in paths(checkpoints[name]):
            info = read_info(path)
            if info.get("train_networks") is None:
                raise EvaluationError(
                    f"{path} does not record its training networks; train it with `tvm-gnn train`"
                )
            leaked = sorted(set(info["train_networks"]) & set(held_out))
            if leaked:
                raise EvaluationError(f"{path} was trained on held-out network(s) {leaked}")
            infos[name].append(info)
            seen[str(path)] = info
    splits = {path: sorted(info["train_networks"]) for path, info in seen.items()}
    if len({tuple(v) for v in splits.values()}) > 1:
        raise EvaluationError(f"the GNN checkpoints were trained on different networks: {splits}")
    snapshots = {path: info.get("train_records") for path, info in seen.items()}
    if len({json.dumps(v, sort_keys=True) for v in snapshots.values()}) > 1:
        raise EvaluationError(
            "the GNN checkpoints were trained on different records (record "
            f"lines per network): {snapshots}; retrain them on the same data, "
            "e.g. with `tvm-gnn train --records-of`"
        )
    return infos


def paths(value) -> list:
    """One checkpoint path or several (the seeds of one configuration), as a list."""
    return [value] if isinstance(value, (str, Path)) else list(value)


def _records_reference(path, hardware: str, held_out) -> dict | None:
    """The training record of checkpoint ``path`` if it can stand for the GNN rows' records."""
    if not path or not Path(path).is_file():
        return None
    info = read_info(path)
    if (
        info.get("hardware") != hardware
        or info.get("train_networks") is None
        or set(info["train_networks"]) & set(held_out)
    ):
        return None
    logger.info("baselines train on the records %s was trained on", path)
    return info


def training_records(
    root, hardware: str, infos: dict, checkpoints: dict, held_out, baselines: bool = True
):
    """``(training networks, snapshot)``: the records every row trains on.

    Those the GNNs saw. Without a GNN row, those the ``gnn`` checkpoint saw if it was trained on
    this hardware without the held-out networks, so that ``--models mlp`` alone trains MLPModel
    on exactly what the full table's row saw; without either, every network not held out. Only
    with ``baselines`` (a row that trains) must ``root`` hold them all; without, the networks it
    lacks are left out, with a warning (their workloads count as unshared).
    """
    first_gnn = paths(checkpoints["gnn"])[0] if checkpoints.get("gnn") else None
    reference = next((i[0] for i in infos.values() if i), None) or _records_reference(
        first_gnn, hardware, held_out
    )
    snapshot = None
    if reference:
        train_nets = sorted(reference["train_networks"])
        snapshot = reference.get("train_records")
    else:  # no GNN to compare with: everything that is not held out
        train_nets = dataset.training_networks(root, hardware, set(held_out) | set(HELD_OUT))
    missing = [n for n in train_nets if not (Path(root) / hardware / n).is_dir()]
    if missing and not baselines:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        logger.warning(
            "%s/%s lacks %d of the GNN's training networks (%s): workloads the GNN saw only "
            "there count as unshared in the tables",
            root,
            hardware,
            len(missing),
            ", ".join(missing[:3]) + more,
        )
        return [n for n in train_nets if n not in missing], snapshot
    if missing:
        raise EvaluationError(
            f"the GNN was trained on {missing}, which {root}/{hardware} lacks: "
            "the baselines could not see the same records (--models with GNN rows alone "
            "needs only the held-out networks)"
        )
    if not train_nets:
        raise EvaluationError(f"no training networks under {root}/{hardware}")
    return train_nets, snapshot
