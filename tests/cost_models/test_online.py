"""The online data's labels and the refit's held-back part."""

import torch
from hypothesis import given
from hypothesis import strategies as st
from torch_geometric.data import Data

from tvm_gnn.cost_models.online import HOLD_BACK, held_back


def _graphs(sizes):
    return [
        Data(x=torch.zeros(1, 1), y=torch.tensor(0.0), group=torch.tensor(gid), uid=i)
        for gid, n in enumerate(sizes)
        for i in range(n)
    ]


@given(st.lists(st.integers(0, 40), min_size=1, max_size=4), st.integers(0, 2**16))
def test_held_back_is_a_fifth_of_each_workload_that_can_spare_it(sizes, seed):
    graphs = _graphs(sizes)
    train, val = held_back(graphs, seed)
    assert sorted(id(g) for g in train + val) == sorted(id(g) for g in graphs)  # a partition
    for gid, n in enumerate(sizes):
        kept = sum(int(g.group) == gid for g in val)
        assert kept == (n // HOLD_BACK if n >= 2 * HOLD_BACK else 0)
    again = held_back(graphs, seed)
    assert [id(g) for g in again[1]] == [id(g) for g in val]  # repeatable under its seed


def test_the_calibration_embeds_each_measured_program_once(conv_candidates, monkeypatch):
    """A calibrated round rescores the workload's measured programs from their cached
    embeddings: it embeds only the programs measured since the last round, to the same scores."""
    import numpy as np
    from tvm.s_tir.meta_schedule.utils import shash2hex

    from tvm_gnn.cost_models import online
    from tvm_gnn.cost_models.gnn import GNNModel
    from tvm_gnn.cost_models.scoring import rescored
    from tvm_gnn.nn import training

    from .test_gnn import _results

    embedded = []

    def counted(model, graphs, *args, **kw):
        embedded.append(len(graphs))
        return training.readouts(model, graphs, *args, **kw)

    monkeypatch.setattr(online, "readouts", counted)
    ctx, cands = conv_candidates
    key = shash2hex(ctx.mod)
    model = GNNModel(seed=0, calibrated=True)
    model.update(ctx, cands[:16], _results(16))
    model.predict(ctx, cands[16:32])
    model.predict(ctx, cands[32:])  # a round's second call reuses its fit
    model.update(ctx, cands[16:24], _results(8, seed=1))  # too few to retrain the layers
    model.predict(ctx, cands[24:])
    assert embedded == [16, 8]
    got = online.measured_scores(model.model, key, model.data[key], model._readouts)
    fresh = rescored(model.model, model.data[key])
    np.testing.assert_allclose(got[0], fresh[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got[1], fresh[1])
