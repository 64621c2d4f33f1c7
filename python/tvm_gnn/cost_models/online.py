# Licensed under the Apache License, Version 2.0.
"""What ``GNNModel.update`` trains on: its online data (per workload hash, the measured
candidates' graphs and costs) labelled within each workload as ``min cost / cost``, a failed run
0 (:data:`~tvm_gnn.costs.FAILED_COST`), for the whole GNN (:func:`training_graphs`) or, with
``online="head"``, for the head alone on the graphs' embeddings (:func:`head_rows`); and that
data read back from a checkpoint (:func:`online_data`)."""

from __future__ import annotations

import dataclasses

import numpy as np
import torch

from ..costs import FAILED_COST, relative_labels
from ..errors import CheckpointError
from ..nn.batch import unpack_graphs
from ..nn.schema import NUM_FEATURES
from ..nn.training import TrainConfig, readouts
from .scoring import rescored

#: A trained model retrains online only after at least this many new measurements: a pretrained
#: model would otherwise retrain after every search round.
MIN_NEW_SAMPLES = 32

#: Online retraining, every setting named (none taken from ``TrainConfig``'s defaults, which are
#: the offline recipe's): a few epochs in a bounded time, so tuning does not wait for the model.
ONLINE_TRAIN = TrainConfig(
    epochs=8,  # passes over the tuning run's measurements at one update
    batch_size=128,  # one workload's measurements are a few batches: few, cheap steps
    lr=1e-3,  # a third of the offline rate: the update refines pretrained weights
    weight_decay=1e-5,  # as offline
    mse_weight=0.5,  # as offline
    # RankNet, as the update trained since it existed: offline, LambdaRank is no better at 8
    # epochs, 32 of it help (docs/tuning.md, "The online recipe, screened offline"; tuning decides)
    loss="ranknet",
    label_noise=0.0,
    aux_weight=0.0,  # the tuning run's candidates carry no per-store feature rows
    store_inputs=False,  # nor does the model read them (an offline upper bound only)
    exact=False,  # the relational layers' faster summation order: nothing to repeat bit for bit
    patience=8,  # = epochs: without validation data early stopping never fires
    max_seconds=20.0,  # the update's wall-clock bound per call
    seed=0,  # GNNModel passes its own seed (dataclasses.replace) at each update
    device="cpu",
)

#: ``online="refit"``: each retrain starts again from the weights the model started from and
#: trains on all of the tuning run's measurements (set before any measurement of it: the
#: online-learning issue's item 2 measures it)
REFIT_TRAIN = dataclasses.replace(
    ONLINE_TRAIN,
    epochs=40,  # at most: early stopping on the held-back measurements ends it
    batch_size=32,  # the offline recipe's: a few steps an epoch on a run's measurements
    loss="lambdarank",  # the shipped weights' loss: the fast end of the order counts most
    patience=5,  # epochs without a better held-back pairwise accuracy
    max_seconds=10.0,  # per retrain
)

#: What ``update`` retrains: ``"full"`` (the GNN, ``ONLINE_TRAIN``), ``"head"`` (the MLP head
#: alone, :data:`HEAD_STEPS` full-batch steps at ``train_config``'s learning rate) or ``"refit"``
#: (the GNN trained anew from its starting weights on every measurement, ``REFIT_TRAIN``, early
#: stopping on a held-back part: :func:`held_back`).
ONLINE_MODES = ("full", "head", "refit")
#: The part of each workload's measurements a refit holds back to stop on (every k-th, at random)
HOLD_BACK = 5
#: Adam steps of one head-only update: the embeddings are computed once per candidate, so a step
#: costs a head's forward and backward on a few hundred rows.
HEAD_STEPS = 100


def append_online(data: dict, key: str, graphs: list, costs) -> None:
    """Add workload ``key``'s measured ``graphs`` and their ``costs`` to the online ``data``."""
    old_graphs, old_costs = data.get(key, ([], np.zeros(0)))
    data[key] = (
        old_graphs + list(graphs),
        np.concatenate([old_costs, np.asarray(costs, dtype=np.float64)]),
    )


def _learnable(data: dict):
    """``(group id, key, graphs, costs)`` of each workload with at least one successful run."""
    for gid, (key, (graphs, costs)) in enumerate(data.items()):
        if (costs < FAILED_COST).any():
            yield gid, key, graphs, costs


def training_graphs(data: dict) -> list:
    """Copies of the online graphs with their labels (``y``) and workloads (``group``)."""
    out = []
    for gid, _, graphs, costs in _learnable(data):
        for g, y in zip(graphs, relative_labels(costs)):
            g = g.clone()
            g.y = torch.tensor(float(y))
            g.group = torch.tensor(gid)
            out.append(g)
    return out


def head_rows(model, data: dict, cache: dict):
    """``(readout, y, group)`` of every online graph for :func:`~tvm_gnn.nn.training.fit_head`,
    or None without a successful run. ``cache`` (workload -> embeddings) keeps each graph's
    embedding, computed once: the layers below the head do not change between head updates."""
    rows, ys, groups = [], [], []
    for gid, key, graphs, costs in _learnable(data):
        rows.append(measured_readouts(model, key, graphs, cache))
        ys.append(torch.from_numpy(relative_labels(costs)).float())
        groups.append(torch.full((len(graphs),), gid, dtype=torch.long))
    if not rows:
        return None
    return torch.cat(rows), torch.cat(ys), torch.cat(groups)


def measured_readouts(model, key: str, graphs: list, cache: dict) -> torch.Tensor:
    """The embeddings of workload ``key``'s measured ``graphs`` (which only grow between
    calls), from ``cache`` where they are there; the new ones computed and added."""
    done = cache.get(key)
    have = 0 if done is None else len(done)
    if have < len(graphs):
        new = readouts(model, graphs[have:])
        cache[key] = done = new if done is None else torch.cat([done, new])
    return done


def measured_scores(model, key: str, data, cache: dict, set_mean=None):
    """:func:`.scoring.rescored` of workload ``key``'s measured ``data`` (``(graphs, costs)``,
    None: None) from their embeddings in ``cache`` (:func:`measured_readouts`): a round embeds
    only the programs measured since the last, not all of them again."""
    if data is None:
        return None
    return rescored(model, data, set_mean, readout=measured_readouts(model, key, data[0], cache))


def held_back(graphs: list, seed: int) -> tuple[list, list]:
    """``(train, val)`` of :func:`training_graphs`' output: about one graph in :data:`HOLD_BACK`
    of each workload, drawn under ``seed``, goes to ``val`` (none of a workload with fewer than
    ``2 * HOLD_BACK`` graphs: too few to rank). ``val`` may be empty."""
    rng = np.random.default_rng(seed)
    groups = np.array([int(g.group) for g in graphs])
    val = np.zeros(len(graphs), dtype=bool)
    for gid in np.unique(groups):
        idx = np.nonzero(groups == gid)[0]
        if len(idx) >= 2 * HOLD_BACK:
            val[rng.choice(idx, len(idx) // HOLD_BACK, replace=False)] = True
    return [g for g, v in zip(graphs, val) if not v], [g for g, v in zip(graphs, val) if v]


def online_data(saved, path: str, model) -> dict:
    """A checkpoint's saved online data (workload -> packed graphs and costs) as ``GNNModel.data``
    (workload -> ``(graphs, costs)``); :class:`~tvm_gnn.errors.CheckpointError` naming ``path``
    where it is malformed."""
    if not isinstance(saved, dict):
        raise CheckpointError(f"{path}: its online data is not a dict of workloads")
    data = {}
    for key, entry in saved.items():
        try:
            graphs = _widen(unpack_graphs(entry["graphs"]), path, model)
            costs = entry["costs"].numpy()
        except CheckpointError:
            raise
        except Exception as err:  # noqa: BLE001 - any malformed part of a saved file
            raise CheckpointError(
                f"{path}: the online data of workload {key!r} is malformed ({err!r})"
            ) from err
        if len(graphs) != len(costs):
            raise CheckpointError(
                f"{path}: workload {key!r} has {len(graphs)} graphs and {len(costs)} costs"
            )
        data[key] = (graphs, costs)
    return data


def _widen(graphs, path, model):
    """Online graphs saved by an older featurizer with fewer feature columns, widened to this
    one's with zeros: only where the model never reads those columns (they would be garbage)."""
    width = graphs[0].x.shape[1] if graphs else NUM_FEATURES
    if width == NUM_FEATURES:
        return graphs
    if width > NUM_FEATURES or model.config.num_features > width:
        raise CheckpointError(
            f"{path}: its online data has {width} feature columns, this featurizer "
            f"{NUM_FEATURES}, and the model reads {model.config.num_features}"
        )
    for g in graphs:
        g.x = torch.nn.functional.pad(g.x, (0, NUM_FEATURES - width))
    return graphs
